"""Occupancy: resident work-groups and waves per compute unit, and the limiting factor."""

from __future__ import annotations

import pytest
from exec_model_helpers import make_target

from analyzers.geometry import LaunchGeometry
from analyzers.occupancy import LaunchDoesNotFit, local_mem_allocation, occupancy
from analyzers.simd import wave_layout
from tracekit.targets import list_targets, load_target


def geo(n, local, **kw) -> LaunchGeometry:
    g = LaunchGeometry(kernel="k", launch=0, global_size=(n, 1, 1), local_size=(local, 1, 1), **kw)
    return g


def intel_like(**kw):
    """A Gen9-like subslice: 64 KB SLM (4 KB minimum, 1 KB steps), 16 barriers, 8 EUs x 7 threads."""
    return make_target(width=16, cus=3, max_wg=256, max_waves=56, barriers=16, lmem=65536,
                       lmem_min=4096, lmem_step=1024, **kw)


def occ(g, t):
    return occupancy(g, wave_layout(g, t), t)


def test_32kb_of_local_memory_allows_two_work_groups_per_subslice():
    r = occ(geo(256 * 64, 256, local_mem_bytes=32 * 1024), intel_like())
    assert r.work_groups_per_cu == 2 and r.limiting_factor == "local_memory"
    assert r.waves_per_cu == 2 * 16 and r.local_mem_alloc_bytes == 32768


@pytest.mark.parametrize("asked,alloc,groups", [(100, 4096, 16), (4096, 4096, 16), (4097, 5120, 12),
                                                (6000, 6144, 10), (0, 0, None)])
def test_local_memory_allocation_granularity(asked, alloc, groups):
    t = intel_like()
    assert local_mem_allocation(asked, t.occupancy) == alloc
    r = occ(geo(64 * 100, 64, local_mem_bytes=asked), t)
    assert r.limits.get("local_memory") == groups


def test_sixteen_barrier_registers_cap_resident_work_groups():
    t = intel_like()
    with_barrier = occ(geo(16 * 1000, 16, has_barrier=True), t)
    assert with_barrier.work_groups_per_cu == 16 and with_barrier.limiting_factor == "barriers"
    assert with_barrier.waves_per_cu == 16
    without = occ(geo(16 * 1000, 16), t)
    assert without.work_groups_per_cu == 56 and without.limiting_factor == "waves"
    assert without.occupancy == 1.0 and with_barrier.occupancy == pytest.approx(16 / 56)


def test_small_grid_is_reported_as_the_limit():
    r = occ(geo(2 * 64, 64), make_target(width=32, cus=4, max_waves=32))
    assert r.limiting_factor == "grid_size" and r.work_groups_per_cu == 1 and r.waves_per_cu == 2
    assert r.hardware_limiting_factor == "waves" and r.hardware_work_groups_per_cu == 16


def test_register_file_limits_resident_work_groups():
    t = make_target(width=32, max_waves=48, regs=20480)
    r = occ(geo(32 * 1000, 32, registers_per_item=40), t)
    assert r.limits["registers"] == 16 and r.limiting_factor == "registers" and r.waves_per_cu == 16
    r = occ(geo(32 * 1000, 32, registers_per_item=10), t)
    assert r.limits["registers"] == 64 and r.limiting_factor == "waves" and r.waves_per_cu == 48


def test_packed_small_groups_fill_the_task_pool():
    t = make_target(width=32, max_waves=48, pack=16)
    r = occ(geo(8 * 10000, 8), t)
    assert r.limits["waves"] == 48 * 4 and r.waves_per_cu == 48


def test_work_group_above_the_target_maximum_does_not_fit():
    with pytest.raises(LaunchDoesNotFit, match="exceeds .* maximum work-group size of 256"):
        occ(geo(1024, 512), intel_like())
    with pytest.raises(LaunchDoesNotFit, match="local memory"):
        occ(geo(1024, 64, local_mem_bytes=70000), intel_like())


def test_shipped_intel_targets_follow_the_guide():
    names = [n for n in list_targets() if n.startswith("intel")]
    if not names:
        pytest.skip("no Intel target file shipped yet")
    for name in names:
        t = load_target(name)
        g = geo(256 * 64, 256, local_mem_bytes=32 * 1024)
        r = occ(g, t)
        assert r.limits["local_memory"] == t.local_memory.size_bytes // 32768
        r = occ(geo(16 * 10000, 16, has_barrier=True), t)
        assert r.limits["barriers"] == t.occupancy.barrier_slots_per_cu == 16
