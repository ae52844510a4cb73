"""SIMD utilisation: partial waves from the work-group size, packing, and divergence."""

from __future__ import annotations

import numpy as np
import pytest
from exec_model_helpers import KernelBuilder, make_target

from analyzers.geometry import LaunchGeometry, declares_work_group_size, launch_geometries
from analyzers.simd import simd_utilization, wave_issues, wave_layout
from tracekit.targets import load_target


def geo(n, local, **kw) -> LaunchGeometry:
    return LaunchGeometry(kernel="k", launch=0, global_size=(n, 1, 1), local_size=(local, 1, 1), **kw)


@pytest.fixture(scope="module")
def powervr():
    return load_target("powervr-g6400")


def test_work_group_of_32_fills_a_powervr_task(powervr):
    lay = wave_layout(geo(1024, 32), powervr)
    assert (lay.width, lay.waves_per_group, lay.waves) == (32, 1, 32)
    assert lay.idle_lanes == 0 and lay.idle_lanes_per_group == 0
    assert lay.partial_wave_utilization == 1.0


def test_work_group_of_48_leaves_a_task_partly_empty(powervr):
    lay = wave_layout(geo(48 * 10, 48), powervr)
    assert lay.waves_per_group == 2 and lay.waves == 20
    assert lay.idle_lanes_per_group == 16 and lay.idle_lanes == 160
    assert lay.partial_wave_utilization == pytest.approx(0.75)


def test_work_group_of_100_on_32_wide_target_shows_idle_lanes():
    lay = wave_layout(geo(100 * 3, 100), make_target(width=32))
    assert lay.waves_per_group == 4 and lay.waves == 12
    assert lay.idle_lanes_per_group == 28 and lay.idle_lanes == 84
    assert lay.partial_wave_utilization == pytest.approx(100 / 128)


def test_edge_work_group_of_a_non_uniform_grid_counts_its_own_waves():
    # 100 items in groups of 64: one full group (2 waves) and one of 36 (2 waves).
    g = geo(100, 64)
    assert g.group_size_histogram() == [(64, 1), (36, 1)]
    lay = wave_layout(g, make_target(width=32))
    assert lay.waves == 4 and lay.idle_lanes == 28


@pytest.mark.parametrize("size,per_task", [(4, 8), (8, 4), (16, 2)])
def test_powervr_packs_small_work_groups_into_one_task(powervr, size, per_task):
    lay = wave_layout(geo(size * 64, size), powervr)
    assert lay.packed and lay.groups_per_wave == per_task
    assert lay.waves == 64 // per_task
    assert lay.partial_wave_utilization == 1.0


def test_barrier_without_compile_time_size_gives_one_work_group_per_task(powervr):
    lay = wave_layout(geo(8 * 64, 8, has_barrier=True), powervr)
    assert not lay.packed and lay.packing_blocked_by_barrier
    assert lay.waves == 64 and lay.partial_wave_utilization == pytest.approx(8 / 32)
    # The same kernel with reqd_work_group_size packs again.
    lay = wave_layout(geo(8 * 64, 8, has_barrier=True, compile_time_work_group_size=True), powervr)
    assert lay.packed and lay.waves == 16 and lay.partial_wave_utilization == 1.0


def test_targets_without_packing_never_pack():
    lay = wave_layout(geo(8 * 64, 8), make_target(width=32, pack=0))
    assert not lay.packed and lay.waves == 64 and lay.partial_wave_utilization == 0.25


def test_reqd_work_group_size_is_found_for_the_right_kernel():
    src = ("__kernel __attribute__((reqd_work_group_size(8, 1, 1))) void a(__global float *x) {}\n"
           "__kernel void b(__global float *x) { barrier(CLK_LOCAL_MEM_FENCE); }\n")
    assert declares_work_group_size(src, "a")
    assert not declares_work_group_size(src, "b")
    assert not declares_work_group_size(None, "a")


def test_barrier_and_attribute_come_from_the_trace():
    src = "__kernel __attribute__((reqd_work_group_size(8,1,1))) void k(__global int *x) {}"
    b = KernelBuilder("k", 64, 8, source=src)
    b.count(1, "barrier", 1).count(2, "fp32_add", 1)
    (g,), warnings = launch_geometries(b.trace())
    assert g.has_barrier and g.compile_time_work_group_size and not warnings


def _branch_kernel(n, local, width, one_lane: bool, body=200):
    b = KernelBuilder("branch", n, local)
    lane = np.arange(n) % width
    b.count(1, "fp32_add", 1)
    b.count(2, "fp32_fma", np.where(lane == 0, body, 0) if one_lane else body)
    return b


def test_one_lane_branch_has_utilisation_one_over_width():
    t = make_target(width=32)
    b = _branch_kernel(256, 64, 32, one_lane=True)
    (g,), _ = launch_geometries(b.trace())
    res = simd_utilization(g, t, b.trace().instructions)
    site = res.per_site.set_index("site")
    assert site.loc[2, "utilization"] == pytest.approx(1 / 32)
    assert site.loc[2, "issues"] == 8 * 200        # every wave issues the whole body
    assert site.loc[1, "utilization"] == 1.0
    twin = _branch_kernel(256, 64, 32, one_lane=False)
    res2 = simd_utilization(g, t, twin.trace().instructions)
    assert res2.per_site.set_index("site").loc[2, "issues"] == site.loc[2, "issues"]
    assert res2.utilization == 1.0
    # Overall: (8 waves x (32 + 200 lane executions)) / (8 x 201 issues x 32 lanes)
    assert res.utilization == pytest.approx((32 + 200) / (201 * 32))


def test_divergence_counts_busiest_lane_per_wave():
    b = KernelBuilder("k", 64, 64)
    counts = np.zeros(64, int)
    counts[[0, 1]] = [3, 1]        # wave 0: lanes 0 and 1 run the loop 3 and 1 times
    counts[40] = 2                 # wave 1: one lane runs it twice
    b.count(7, "int_add", counts)
    (g,), _ = launch_geometries(b.trace())
    lay = wave_layout(g, make_target(width=32))
    iss = wave_issues(b.trace().instructions, lay)
    rows = zip(iss["wave"], iss["issues"], iss["lane_executions"], strict=True)
    assert sorted(rows) == [(0, 3, 4), (1, 2, 2)]
    res = simd_utilization(g, make_target(width=32), issues=iss)
    assert res.per_site["utilization"].iloc[0] == pytest.approx(6 / (5 * 32))


def test_packed_groups_share_a_wave_for_divergence(powervr):
    b = KernelBuilder("k", 64, 8)              # 8 groups of 8 -> 2 PowerVR tasks
    b.count(1, "fp32_add", 1)
    (g,), _ = launch_geometries(b.trace())
    res = simd_utilization(g, powervr, b.trace().instructions)
    assert res.layout.packed and res.issues == 2 and res.utilization == 1.0


def test_without_instruction_counts_the_geometry_figure_is_used():
    res = simd_utilization(geo(96, 48), make_target(width=32))
    assert res.source == "geometry" and res.utilization == pytest.approx(0.75)


def test_slot_minimum_leaves_half_a_slot_idle_for_two_item_groups():
    # With 4-lane slots (the smallest group the PowerVR guide packs), groups of 2 idle half their slot.
    t = make_target(width=32, pack=16, slot_min=4)
    lay = wave_layout(geo(2 * 64, 2), t)
    assert lay.packed and lay.groups_per_wave == 8 and lay.idle_lanes_per_group == 2
    assert lay.partial_wave_utilization == pytest.approx(0.5)
    odd = wave_layout(geo(12 * 8, 12), t)     # 12-item groups: two per task, 8 lanes idle
    assert odd.groups_per_wave == 2 and odd.waves == 4 and odd.partial_wave_utilization == pytest.approx(0.75)
