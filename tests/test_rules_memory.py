"""Global, constant, private and atomic memory rules: fire on the pattern, quiet on the fix."""

from __future__ import annotations

import numpy as np
import pytest
from rules_helpers import KernelBuilder, fired
from test_rules_workgroup import check_case, params

N, L = 2048, 64
ALL = ["powervr", "adreno", "intel", "nvidia"]


def k1(addr, op="load", size=4, gs=N, ls=L, space="global", **kw):
    k = KernelBuilder(gs, ls, **kw)
    k.access(1, space, op, addr, size=size)
    k.ops(2, "fp32_fma", count=4)
    return k


def vector(fire):
    k = KernelBuilder(N, L)
    if fire:
        for j in range(4):
            k.load(1 + j, lambda i, j=j: 16 * i.gid + 4 * j)
    else:
        k.load(1, lambda i: 16 * i.gid, size=16)
    k.store(9, lambda i: 4 * i.gid, buffer=1)
    return k


def reread(fire):
    k = KernelBuilder(N, L)
    for j in range(8):
        k.load(1, (lambda i: 4 * i.gid) if fire else (lambda i, j=j: 4 * (i.gid + j * N)))
        k.ops(2, "fp32_fma")
    return k


def hot(fire):
    k = KernelBuilder(N, L)
    k.load(1, lambda i: 4 * i.gid)
    k.load(2, (lambda i: 0 * i.gid) if fire else (lambda i: 4 * i.gid), buffer=1)
    k.store(3, lambda i: 4 * i.gid, buffer=2)
    return k


def const(fire):
    k = KernelBuilder(N, L)
    k.load(1, lambda i: 4 * i.gid)
    for j in range(4):
        k.load(2, (lambda i, j=j: 4 * ((i.gid * 7 + j) % 64)) if fire else (lambda i, j=j: 4 * j + 0 * i.gid),
               space="constant", buffer=1)
    return k


def uniform_global(fire):
    k = KernelBuilder(N, L)
    k.load(1, lambda i: 4 * i.gid)
    for j in range(4):
        k.load(2, (lambda i, j=j: 4 * j + 0 * i.gid) if fire else (lambda i, j=j: 4 * (i.gid + j * N)),
               buffer=1)
    return k


def stencil(fire, w=64):
    k = KernelBuilder((w, 32), (16, 4)) if fire else KernelBuilder(w * 32, 64)
    s = 10
    if fire:
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                k.load(s, lambda i, dx=dx, dy=dy: 4 * ((i.gy + dy).clip(0, 31) * w + (i.gx + dx).clip(0,
                        w - 1)))
                s += 1
    else:
        for dx in (-1, 0, 1):
            k.load(s, lambda i, dx=dx: 4 * (i.gid + dx).clip(0, w * 32 - 1))
            s += 1
    k.store(1, lambda i: 4 * i.gid, buffer=1)
    return k


def atomic(fire):
    k = KernelBuilder(N, L)
    k.load(1, lambda i: 4 * i.gid)
    k.access(2, "global", "atomic", (lambda i: 0 * i.gid) if fire else (lambda i: 4 * i.gid), buffer=1)
    return k


def spill(fire):
    k = KernelBuilder(N, L)
    k.load(1, lambda i: 4 * i.gid)
    if fire:
        for j in range(4):
            k.store(2, lambda i, j=j: 4 * j + 0 * i.gid, space="private")
            k.load(3, lambda i, j=j: 4 * j + 0 * i.gid, space="private")
    k.ops(4, "fp32_fma", count=8)
    k.store(5, lambda i: 4 * i.gid, buffer=1)
    return k


CASES = {
    "GEN-UNCOALESCED-LOAD": (ALL, lambda t: k1(lambda i: 128 * i.gid), lambda t: k1(lambda i: 4 * i.gid)),
    "GEN-UNCOALESCED-STORE": (ALL, lambda t: k1(lambda i: 128 * i.gid, op="store"),
                              lambda t: k1(lambda i: 4 * i.gid, op="store")),
    "GEN-MISALIGNED": (ALL, lambda t: k1(lambda i: 4 * i.gid + 4), lambda t: k1(lambda i: 4 * i.gid)),
    "GEN-VECTOR-LOAD": (["powervr", "adreno", "intel"], lambda t: vector(True), lambda t: vector(False)),
    # one byte per item along a row: four items' bytes make one word; 16-byte items are wide already
    "GEN-ITEM-COARSEN": (["powervr", "adreno", "intel"], lambda t: k1(lambda i: i.gid, size=1),
                         lambda t: k1(lambda i: 16 * i.gid, size=16)),
    "INTEL-SUB32-ACCESS": (["intel"], lambda t: k1(lambda i: i.gid, size=1),
            lambda t: k1(lambda i: 4 * i.gid)),
    "INTEL-WIDE-ACCESS": (["intel"], lambda t: k1(lambda i: 32 * i.gid, size=32),
                          lambda t: k1(lambda i: 16 * i.gid, size=16)),
    "INTEL-WG-SHAPE-2D": (["intel"], lambda t: k1(lambda i: 4 * (i.gy * 64 + i.gx), gs=(64, 64), ls=(4, 4)),
                          lambda t: k1(lambda i: 4 * (i.gy * 64 + i.gx), gs=(64, 64), ls=(64, 1))),
    "GEN-CACHE-THRASH": (["powervr", "adreno", "intel"], lambda t: thrash(t, True), lambda t: thrash(t,
            False)),
    "GEN-LOOP-REREAD": (ALL, lambda t: reread(True), lambda t: reread(False)),
    "INTEL-HOT-ELEMENT": (["intel"], lambda t: hot(True), lambda t: hot(False)),
    "GEN-CONST-DIVERGENT": (["adreno", "intel", "nvidia"], lambda t: const(True), lambda t: const(False)),
    "ADR-CONST-PROMOTE": (["adreno"], lambda t: uniform_global(True), lambda t: uniform_global(False)),
    "GEN-IMAGE-2D": (ALL, lambda t: stencil(True), lambda t: stencil(False)),
    "GEN-ATOMIC-HOT": (["powervr", "adreno", "intel"], lambda t: atomic(True), lambda t: atomic(False)),
    "GEN-PRIVATE-SPILL": (ALL, lambda t: spill(True), lambda t: spill(False)),
    # the candidate only: whether the padding helps is the replay's to say (test_rules_recorded.py)
    "GEN-PITCH-PAD": (ALL, lambda t: pitched(t), lambda t: pitched(t, pad=4)),
}


def thrash(t, fire, rows=64):
    """Column walk over a matrix whose rows all fall into one set of every cache level (each line is
    evicted before its next use), against the same walk over the matrix stored densely."""
    cols = 64
    base = np.array(_colliding_rows(t, rows) if fire else [r * 4 * cols for r in range(rows)], np.int64)
    k = KernelBuilder(rows * cols // 8, 32)
    for j in range(8):
        k.load(1, lambda i, j=j: base[i.gid % rows] + 4 * (j + 8 * (i.gid // rows)))
    return k


def pitched(t, rows=64, pad=0):
    """The column walk with rows one constant pitch apart that sends them all to one set of the
    first level (a power-of-two pitch under modulo; line x 2^b x (1 + 2^b) under an XOR fold,
    whose two equal chunks cancel); ``pad`` bytes make the pitch no whole number of lines."""
    first = t.caches[0]
    if first.index == "xor":
        b = (first.sets - 1).bit_length()
        pitch = first.line_bytes * (1 << b) * (1 + (1 << b))
    else:
        pitch = 2 * max(c.size_bytes for c in t.caches)
    cols = 64
    k = KernelBuilder(rows * cols // 8, 32)
    for j in range(8):
        k.load(1, lambda i, j=j: (i.gid % rows) * (pitch + pad) + 4 * (j + 8 * (i.gid // rows)))
    return k


def _colliding_rows(t, rows):
    """Byte addresses of ``rows`` lines a multiple of every level's line apart that share a set at
    every level, under each level's set index (modulo: a multiple of the set count apart; a hashed
    index needs a search)."""
    from analyzers.replay.cache_kernels import set_of
    line = max(c.line_bytes for c in t.caches)
    step = int(np.lcm.reduce([c.sets * c.line_bytes // line for c in t.caches]))
    cand = np.arange(1 << 22, dtype=np.int64) * step
    same = np.ones(len(cand), bool)
    for c in t.caches:
        lines = cand * (line // c.line_bytes)
        sets = set_of(lines, c.sets, c.index, c.line_bytes.bit_length() - 1)
        same &= sets == sets[0]
    found = cand[same][:rows]
    assert len(found) == rows, "no rows that collide at every level"
    return found * line


@pytest.mark.parametrize("rule_id,vendor", params(CASES))
def test_rule_fires_and_stays_quiet(rule_id, vendor):
    check_case(CASES, rule_id, vendor)


def test_uncoalesced_evidence_counts_transactions():
    f = fired(k1(lambda i: 128 * i.gid), "powervr", "GEN-UNCOALESCED-LOAD")
    site = f.evidence["sites"][0]
    # PowerVR: 32 lanes, each in its own 128-byte line; the 128 bytes asked for fit in one.
    assert site["transactions_per_request"] == pytest.approx(32)
    assert site["ideal_per_request"] == pytest.approx(1)
    assert f.sites == (("kernel.cl", 11),)


def test_uncoalesced_gain_is_memory_time_of_extra_transactions():
    f = fired(k1(lambda i: 128 * i.gid), "powervr", "GEN-UNCOALESCED-LOAD")
    # The kernel is memory-bound and the load carries nearly all bytes: fixing it removes ~31/32 of them.
    assert 0.9 < f.estimated_gain_fraction <= 1.0


def test_vector_load_suggests_128_bits():
    f = fired(vector(True), "adreno" if False else "intel", "GEN-VECTOR-LOAD")
    assert f.evidence["suggested_width_bytes"] == 16
    assert f.evidence["mean_run"] == pytest.approx(4)


def rows_of_four(i):
    """Four neighbouring items write one 16-byte chunk; each chunk lands in its own 8 KiB row."""
    return 8192 * (i.gid // 4) + 4 * (i.gid % 4)


def test_adreno_store_scattered_over_lines_is_uncoalesced_though_its_transactions_are_full():
    # Adreno moves 16-byte transactions but its L2 (the first level buffers reach) holds 64-byte
    # lines: a 64-item wave writing 16 chunks of 16 bytes fills its 16 transactions exactly, yet
    # asks for 16 lines where 4 would hold its 256 bytes.
    f = fired(k1(rows_of_four, op="store"), "adreno", "GEN-UNCOALESCED-STORE")
    site = f.evidence["sites"][0]
    assert site["transactions_per_request"] == pytest.approx(site["ideal_per_request"]) == pytest.approx(16)
    assert site["cache_units_per_request"] == pytest.approx(16)
    assert site["ideal_cache_units_per_request"] == pytest.approx(4)
    assert f.evidence["cache_unit_bytes"] == 64
    assert f.estimated_gain_s > 0
    assert not fired(k1(lambda i: 4 * i.gid, op="store"), "adreno", "GEN-UNCOALESCED-STORE")


def test_neighbour_reads_straddling_lines_are_not_a_scatter_at_line_grain():
    # rows of 16 items in a 64-wide wave read a[i-1]: each 64-byte row straddles two lines, the
    # extra line is misalignment (GEN-MISALIGNED's), not a scatter
    k = KernelBuilder((256, 16), (16, 4))
    k.load(1, lambda i: 4 * (i.gy * 256 + (i.gx - 1).clip(0, 255)))
    k.ops(2, "fp32_fma", count=4)
    assert not fired(k, "adreno", "GEN-UNCOALESCED-LOAD")


def test_cache_thrash_gains_only_where_dram_binds():
    """Cutting DRAM traffic to the footprint saves DRAM's time, and the launch gains only what that
    takes off its slowest memory level: an L1-bound launch whose DRAM time is a third of the L1's
    gains nothing, a DRAM-bound one down to the next level's time."""
    from types import SimpleNamespace

    import pandas as pd

    from analyzers.rules.facts import Facts

    def facts(levels):
        te = {"alu_s": 1e-6, "memory_s": max(levels.values()), "latency_s": 0.5e-6,
              "total_s": max(levels.values()), "memory_levels_s": levels}
        return Facts(target=None, result=SimpleNamespace(time_estimates=te), sites=pd.DataFrame(),
                     ops=pd.DataFrame())

    l1_bound = facts({"L1": 9e-6, "L2": 4e-6, "DRAM": 3e-6})
    assert l1_bound.gain_level("DRAM", 2e-6) == 0.0
    dram_bound = facts({"L1": 2e-6, "L2": 4e-6, "DRAM": 9e-6})
    assert dram_bound.gain_level("DRAM", 8e-6) == pytest.approx(5e-6)   # down to the L2's 4 us
    assert dram_bound.gain_level("DRAM", 1e-6) == pytest.approx(1e-6)
    assert dram_bound.gain_level("texture", 1e-6) == 0.0                 # a level the launch lacks
