"""Local-memory, barrier, instruction-mix and divergence rules: fire on the pattern, quiet on the fix."""

from __future__ import annotations

import pytest
from rules_helpers import KernelBuilder, fired, priced
from test_rules_workgroup import check_case, params

N, L = 2048, 64
ALL = ["powervr", "adreno", "intel", "nvidia"]


def base(**kw):
    k = KernelBuilder(N, L, **kw)
    k.load(1, lambda i: 4 * i.gid)
    return k


def local_read(t, stride_words):
    k = base(local_mem_bytes=4096)
    k.store(2, lambda i: 4 * i.lid, space="local")
    k.ops(3, "barrier")
    k.load(4, lambda i: (4 * i.lid * stride_words) % 4096, space="local")
    k.load(5, lambda i: (4 * i.lid * stride_words + 2048) % 4096, space="local")
    return k


def bank_stride(t):
    """Words between lanes so that every lane of a chunk hits the same bank."""
    lm = t.local_memory
    return lm.banks * lm.bank_width_bytes // 4


def local_write(t, conflict):
    k = base(local_mem_bytes=4096)
    s = bank_stride(t) if conflict else 1
    k.store(2, lambda i: (4 * i.lid * s) % 4096, space="local")
    k.ops(3, "barrier")
    k.load(4, lambda i: 4 * i.lid, space="local")
    return k


def reuse(fire):
    k = base(local_mem_bytes=4 * L)
    k.store(2, lambda i: 4 * i.lid, space="local")
    k.ops(3, "barrier")
    for j in range(1 if fire else 8):
        k.load(4, lambda i, j=j: 4 * ((i.lid + j) % L), space="local")
    k.ops(5, "fp32_fma", count=4)
    return k


def loader(fire):
    k = KernelBuilder(N, L, local_mem_bytes=4 * L)
    if fire:
        for j in range(L):
            k.load(1, lambda i, j=j: 4 * (i.group * L + j), mask=lambda i: i.lid == 0)
            k.store(2, lambda i, j=j: 4 * j + 0 * i.lid, space="local", mask=lambda i: i.lid == 0)
    else:
        k.load(1, lambda i: 4 * i.gid)
        k.store(2, lambda i: 4 * i.lid, space="local")
    k.ops(3, "barrier")
    for j in range(4):
        k.load(4, lambda i, j=j: 4 * ((i.lid + j) % L), space="local")
    return k


def local_vec(fire):
    k = base(local_mem_bytes=16 * L)
    size = 4 if fire else 16
    k.store(2, lambda i: size * i.lid, space="local", size=size)
    k.ops(3, "barrier")
    for j in range(4):
        k.load(4, lambda i, j=j: size * ((i.lid + j) % L), space="local", size=size)
    return k


def async_copy(fire):
    k = KernelBuilder(N, L, local_mem_bytes=4 * L)
    if fire:
        k.load(1, lambda i: 4 * i.gid)
    else:
        k.ops(1, "fp32_fma", count=4)
    k.store(2, lambda i: 4 * i.lid, space="local")
    k.ops(3, "barrier")
    for j in range(4):
        k.load(4, lambda i, j=j: 4 * ((i.lid + j) % L), space="local")
    return k


def barrier_after(fire):
    k = base(local_mem_bytes=4 * L)
    k.store(2, lambda i: 4 * i.lid, space="local")
    if not fire:
        k.ops(3, "fp32_fma", count=4)
    k.ops(4, "barrier")
    k.load(5, lambda i: 4 * ((i.lid + 1) % L), space="local")
    return k


def barrier_only(fire):
    k = base() if fire else base(local_mem_bytes=4 * L)
    if not fire:
        k.store(2, lambda i: 4 * i.lid, space="local")
    k.ops(3, "barrier")
    if not fire:
        k.load(4, lambda i: 4 * ((i.lid + 1) % L), space="local")
    return k


def mix(*ops, options="", load_size=4):
    k = KernelBuilder(N, L, build_options=options)
    k.load(1, lambda i: load_size * i.gid, size=load_size)
    for s, (opclass, count) in enumerate(ops, start=10):
        k.ops(s, opclass, count=count)
    k.store(2, lambda i: 4 * i.gid, buffer=1)
    return k


def same_line(k):
    """The builder with its arithmetic sites (10 and up) on one source line, as ``a * b + c`` is."""
    k.lines = {s: 20 for s in k.site_ops if s >= 10}
    return k


def promoted(fire):
    """A float kernel whose update runs in double precision (widened, computed, narrowed), against
    the same update in float."""
    k = mix(("fp64_fma", 4) if fire else ("fp32_fma", 4))
    if fire:
        k.site_ops[20] = "fpext"
        k.ops(20, "convert", count=2)
        k.site_ops[21] = "fptrunc"
        k.ops(21, "convert")
    return k


def divergent(fire):
    k = base()
    k.ops(2, "compare")
    k.ops(3, "branch")
    k.ops(4, "fp32_fma", count=40, mask=(lambda i: i.lid % 2 == 0) if fire else None)
    k.store(5, lambda i: 4 * i.gid, buffer=1)
    return k


CASES = {
    "GEN-LOCAL-BANK-CONFLICT": (["powervr", "intel", "nvidia"], lambda t: local_read(t, bank_stride(t)),
                                lambda t: local_read(t, 1)),
    "INTEL-SLM-WRITE-CONFLICT": (["intel"], lambda t: local_write(t, True), lambda t: local_write(t, False)),
    "GEN-LOCAL-READ-ONCE": (["powervr", "adreno", "intel"], lambda t: reuse(True), lambda t: reuse(False)),
    "GEN-LOCAL-SINGLE-LOADER": (["powervr", "adreno", "intel"], lambda t: loader(True),
            lambda t: loader(False)),
    "ADR-LOCAL-VECTOR": (["adreno"], lambda t: local_vec(True), lambda t: local_vec(False)),
    "PVR-ASYNC-COPY": (["powervr"], lambda t: async_copy(True), lambda t: async_copy(False)),
    "PVR-BARRIER-AFTER-LOCAL": (["powervr"], lambda t: barrier_after(True), lambda t: barrier_after(False)),
    "INTEL-BARRIER-NO-LOCAL": (["intel"], lambda t: barrier_only(True), lambda t: barrier_only(False)),
    "GEN-INT-DIV": (ALL, lambda t: mix(("int_div", 4), ("fp32_fma", 10)), lambda t: mix(("fp32_fma", 10))),
    "GEN-FAST-MATH": (ALL, lambda t: mix(("fp32_div", 4)),
                      lambda t: mix(("fp32_div", 4), options="-cl-fast-relaxed-math")),
    "GEN-NATIVE-MATH": (ALL, lambda t: mix(("math_exp", 4)), lambda t: mix(("math_native_exp", 4))),
    "GEN-INT64-INDEX": (["adreno", "intel"], lambda t: mix(("int64_add", 2), ("int64_mul", 1)),
                        lambda t: mix(("int_add", 2), ("int_mul", 1))),
    "GEN-FLOAT-OVER-INT": (["powervr", "intel"], lambda t: mix(("int_add", 20), ("int_mul", 20)),
                           lambda t: mix(("fp32_fma", 40), ("int_add", 2))),
    "INTEL-MAD": (["intel"], lambda t: same_line(mix(("fp32_mul", 10), ("fp32_add", 10))),
                  lambda t: mix(("fp32_fma", 10))),
    "ADR-FP16": (["adreno"], lambda t: mix(("fp32_mul", 10), load_size=1),
                 lambda t: mix(("fp16_mul", 10), load_size=1)),
    "GEN-DIVERGENCE": (ALL, lambda t: divergent(True), lambda t: divergent(False)),
    "GEN-FP64-IN-FLOAT": (ALL, lambda t: promoted(True), lambda t: promoted(False)),
}


@pytest.mark.parametrize("rule_id,vendor", params(CASES))
def test_rule_fires_and_stays_quiet(rule_id, vendor):
    check_case(CASES, rule_id, vendor)


def test_powervr_common_store_worst_case_is_16_way():
    """The guide's worst case: lanes 16 floats apart all hit one 128-bit bank, 16 cycles per 16 lanes."""
    f = fired(local_read(None, 16), "powervr", "GEN-LOCAL-BANK-CONFLICT")
    degrees = {s["site"]: s["conflict_degree_mean"] for s in f.evidence["sites"]}
    assert degrees[4] == pytest.approx(16)
    assert "pad" in f.evidence["padding_hint"]


def test_divergence_reports_half_busy_lanes():
    f = fired(divergent(True), "nvidia", "GEN-DIVERGENCE")
    assert f.evidence["sites"][0]["utilization"] == pytest.approx(0.5)
    assert f.sites[0] == ("kernel.cl", 14)


def test_int_div_gain_uses_target_cycles():
    f = fired(mix(("int_div", 4), ("fp32_fma", 10)), "powervr", "GEN-INT-DIV")
    assert f.evidence["cycles_per_issue"] == 60
    assert f.estimated_gain_s is None          # the rule's own estimate is gone: the replay prices it
    p = priced(mix(("int_div", 4), ("fp32_fma", 10)), "powervr", "GEN-INT-DIV")
    assert p.gain_method == "replay"
    assert p.what_if["change"].startswith("retype=int_div>convert.convert.fp32_div")
    # 4 divisions at 60 cycles against 2 conversions and a float divide, beside 10 fma: most of the ALU time
    assert 0.5 < p.estimated_gain_fraction < 1.0


def tree_sum():
    """A reduction tree: each level's survivors add a partner's partial sum and store it back, so the
    words are rewritten with values computed in the group, each read about once."""
    k = base(local_mem_bytes=4 * L)
    k.store(2, lambda i: 4 * i.lid, space="local")
    s = L // 2
    while s:
        k.ops(3, "barrier")
        k.load(4, lambda i, s=s: 4 * (i.lid + s), space="local", mask=lambda i, s=s: i.lid < s)
        k.store(5, lambda i: 4 * i.lid, space="local", mask=lambda i, s=s: i.lid < s)
        s //= 2
    return k


@pytest.mark.parametrize("vendor", ["powervr", "adreno", "intel"])
def test_read_once_quiet_on_a_reduction_tree(vendor):
    """Words read once but rewritten by the tree are not a copy of global data: nothing to drop."""
    assert fired(tree_sum(), vendor, "GEN-LOCAL-READ-ONCE") is None
    assert fired(reuse(True), vendor, "GEN-LOCAL-READ-ONCE") is not None     # the plain copy still fires
