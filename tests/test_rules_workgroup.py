"""Work-group, dataset and occupancy rules: each fires on its pattern and stays quiet on the fix."""

from __future__ import annotations

import pytest
from rules_helpers import KernelBuilder, fired, get_target

SRC = "__kernel void k(__global float *a, __local float *t) { }"
SRC_REQD = "__kernel __attribute__((reqd_work_group_size(16, 1, 1))) void k(__global float *a) { }"


def simple(gs, ls, **kw):
    k = KernelBuilder(gs, ls, **kw)
    k.load(1, lambda i: 4 * i.gid)
    k.ops(2, "fp32_fma", count=30)
    k.store(3, lambda i: 4 * i.gid, buffer=1)
    return k


def with_barrier(gs, ls, local=False, **kw):
    k = simple(gs, ls, **kw)
    if local:
        k.store(4, lambda i: 4 * i.lid, space="local")
        k.load(6, lambda i: 4 * ((i.lid + 1) % ls), space="local")
    k.ops(5, "barrier")
    return k


def dataset(t, enough):
    from rules_helpers import vendor_key
    if vendor_key(t) == "powervr":
        n = 512 * t.compute_units
    elif vendor_key(t) == "adreno":
        n = 4 * t.compute_units * t.simd.width
    else:
        n = t.occupancy.max_waves_per_cu * t.compute_units * t.simd.width
    return KernelBuilder(n if enough else 64, 32).load(1, lambda i: 4 * i.gid)


def occupancy(t, starve):
    """Starved: one-wave groups, each taking the whole local memory; fixed: 256-item groups, no local."""
    size = t.simd.width if starve else min(256, t.occupancy.max_work_group_size)
    waves = 2 * t.compute_units if starve else t.occupancy.max_waves_per_cu * t.compute_units
    k = KernelBuilder(waves * t.simd.width, size, local_mem_bytes=t.local_memory.size_bytes if starve else 0)
    return k.load(1, lambda i: 4 * i.gid)


def few_waves(t, few):
    per_cu = t.occupancy.registers_per_cu
    if not per_cu:
        pytest.skip("target has no register file size")
    regs = per_cu // (2 * t.simd.width) if few else max(1, per_cu // (8 * t.simd.width))
    return simple(1024, t.simd.width, registers=regs)


def long_kernel(t, long):
    k = simple(1024, t.simd.width)
    k.ops(7, "fp32_div", count=2_000_000 if long else 1)
    return k


#: rule id -> (vendors, builder that fires, builder that stays quiet); builders take the target.
CASES = {
    "PVR-WG-MULTIPLE": (["powervr"], lambda t: simple(960, 48), lambda t: simple(1024, 64)),
    "PVR-WG-PACK-BARRIER": (["powervr"], lambda t: with_barrier(1024, 16, source=SRC),
                            lambda t: with_barrier(1024, 16, source=SRC_REQD)),
    "PVR-REQD-WG-SIZE": (["powervr"], lambda t: with_barrier(1024, 64, local=True, source=SRC),
                         lambda t: with_barrier(1024, 64, local=True, source=SRC_REQD)),
    "PVR-DATASET-MULTIPLE-32": (["powervr"], lambda t: simple(1000, 8), lambda t: simple(1024, 8)),
    "ADR-WG-WAVE-MULTIPLE": (["adreno"], lambda t: simple((t.simd.width + 8) * 8, t.simd.width + 8),
                             lambda t: simple(t.simd.width * 8, t.simd.width)),
    "NV-WG-WARP-MULTIPLE": (["nvidia"], lambda t: simple(100 * 64, 100), lambda t: simple(128 * 64, 128)),
    "INTEL-WG-BARRIER-SIZE": (["intel"], lambda t: with_barrier(1024, 32), lambda t: with_barrier(1024, 128)),
    "INTEL-WG-PLAIN-32": (["intel"], lambda t: simple(1024, 64), lambda t: simple(1024, 32)),
    "INTEL-GLOBAL-MULTIPLE-8": (["intel"], lambda t: simple(1918, 14), lambda t: simple(1912, 8)),
    "GEN-DATASET-SMALL": (["powervr", "adreno", "intel", "nvidia"], lambda t: dataset(t, False),
                          lambda t: dataset(t, True)),
    "GEN-LOW-OCCUPANCY": (["powervr", "adreno", "intel", "nvidia"], lambda t: occupancy(t, True),
                          lambda t: occupancy(t, False)),
    "PVR-REGISTERS": (["powervr"], lambda t: simple(1024, 32, registers=64),
                      lambda t: simple(1024, 32, registers=32)),
    "ADR-FEW-WAVES": (["adreno"], lambda t: few_waves(t, True), lambda t: few_waves(t, False)),
    "INTEL-SLM-FOOTPRINT": (["intel"], lambda t: simple(1024, 64, local_mem_bytes=32768),
                            lambda t: simple(1024, 64, local_mem_bytes=4096)),
    "ADR-LONG-KERNEL": (["adreno"], lambda t: long_kernel(t, True), lambda t: long_kernel(t, False)),
    "PVR-KERNEL-SHORT": (["powervr"], lambda t: KernelBuilder(1024, 32).load(1, lambda i: 4 * i.gid),
                         lambda t: simple(1024, 32)),
}


def params(cases):
    return [pytest.param(rid, v, id=f"{rid}-{v}") for rid, (vs, _, _) in sorted(cases.items()) for v in vs]


def check_case(cases, rule_id, vendor):
    try:
        t = get_target(vendor)
    except LookupError:
        pytest.skip(f"no {vendor} target shipped yet")
    _, fire, quiet = cases[rule_id]
    f = fired(fire(t), vendor, rule_id)
    assert f is not None, f"{rule_id} did not fire on its pattern for {t.name}"
    assert f.rule_id == rule_id and f.target == t.name and f.evidence
    assert f.citation and "§" in f.citation
    assert fired(quiet(t), vendor, rule_id) is None, f"{rule_id} fired on the fixed kernel for {t.name}"
    return f


@pytest.mark.parametrize("rule_id,vendor", params(CASES))
def test_rule_fires_and_stays_quiet(rule_id, vendor):
    check_case(CASES, rule_id, vendor)


def test_idle_lane_evidence_and_gain():
    k = simple(960, 48)
    k.ops(8, "fp32_fma", count=1000)
    f = fired(k, "powervr", "PVR-WG-MULTIPLE")
    assert f.evidence["idle_lanes_per_group"] == 16
    assert f.evidence["lane_fill"] == pytest.approx(0.75)
    # ALU-bound kernel: a quarter of the issue slots are idle lanes, so a quarter of the ALU time goes.
    assert f.estimated_gain_fraction == pytest.approx(0.25, rel=1e-3)


def test_pack_barrier_fill_is_size_over_task():
    f = fired(with_barrier(1024, 8, source=SRC), "powervr", "PVR-WG-PACK-BARRIER")
    assert f.evidence["lane_fill"] == pytest.approx(8 / 32)


def test_few_waves_with_a_known_register_file():
    from dataclasses import replace

    from rules_helpers import context_for

    from analyzers.rules import run_rules
    t = get_target("adreno")
    t = replace(t, occupancy=replace(t.occupancy, registers_per_cu=t.simd.width * 64 * 8))
    many = simple(1024, t.simd.width, registers=t.occupancy.registers_per_cu // (2 * t.simd.width))
    found = run_rules(context_for(many, "adreno", t), only=["ADR-FEW-WAVES"])
    assert found and found[0].evidence["waves_by_registers"] == 2
    few = simple(1024, t.simd.width, registers=16)
    assert not run_rules(context_for(few, "adreno", t), only=["ADR-FEW-WAVES"])
