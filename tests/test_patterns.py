"""The streaming access-pattern facts agree with the plain-pandas reference, fact by fact.

:mod:`analyzers.replay.patterns` computes what the rules read in compiled passes over
chunks of the replay; ``reference_patterns`` states the same facts over a whole
launch in pandas.  They must agree exactly on every bundled sample, on several
targets, and when the replay cuts a launch into many small chunks.
"""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc
import pytest
import reference_patterns as ref
from rules_helpers import KernelBuilder

from analyzers.replay.memory import replay_memory
from analyzers.replay.patterns import HotAddresses, SegmentSet
from tracekit.formats import open_trace
from tracekit.targets import load_target

SAMPLES = ["vector_add", "transpose_tiled", "transpose_naive", "matmul_tiled", "reduction", "box_filter_8x8",
           "divergent_branch", "strided_copy", "too_small_grid"]
TARGETS = ["nvidia-h200", "powervr-g6400", "intel-hd530", "adreno-640"]


def _compare(trace, target, chunk_rows=1 << 20):
    rep = replay_memory(trace, target, chunk_rows=chunk_rows)
    assert rep.patterns, "the replay gathered no pattern facts"
    for launch, pats in rep.patterns.items():
        acc = trace.accesses.filter(pc.equal(trace.accesses["launch"], launch)).to_pandas()
        acc = ref.prepare(acc, target.simd.width)
        want = ref.site_facts(acc, target, 16).set_index("site")
        got = pats.sites.set_index("site").reindex(want.index)
        for col in ("unaligned", "adjacent", "loop_adjacent", "ideal_transactions", "misaligned_requests",
                    "uniform_requests"):
            assert (got[col].fillna(0).astype(int) == want[col].fillna(0).astype(int)).all(), col
        rereads = want["accesses"] / got["distinct_item_addresses"]
        np.testing.assert_allclose(rereads, want["rereads_per_item"])
        reuse = ref.local_reuse(acc)
        lp = pats.launch
        assert (lp.local_loads, lp.local_stores, lp.local_words_stored) == (
            reuse["local_loads"], reuse["local_stores"], reuse["local_words_stored"])
        assert lp.local_storing_items_per_group == pytest.approx(reuse["local_storing_items_per_group"])
        assert lp.staged_local_store_fraction == pytest.approx(ref.staging(acc))
        assert lp.footprint_bytes == ref.footprint_bytes(acc, target.transaction_bytes)
        st = ref.stencil_rows(acc)
        merged = st.merge(lp.stencils, on="buffer", how="outer", suffixes=("_ref", ""))
        np.testing.assert_allclose(merged["rows"].astype(float), merged["rows_ref"].astype(float))
        np.testing.assert_allclose(merged["pitch"].astype(float), merged["pitch_ref"].astype(float))
        np.testing.assert_allclose(merged["cols"].astype(float), merged["cols_ref"].astype(float))


@pytest.mark.parametrize("sample", SAMPLES)
def test_patterns_match_the_reference_on_samples(sample):
    trace = open_trace(f"sample_traces/{sample}.tkt")
    for name in TARGETS:
        _compare(trace, load_target(name))


def test_patterns_do_not_depend_on_chunking():
    trace = open_trace("sample_traces/transpose_tiled.tkt")
    _compare(trace, load_target("powervr-g6400"), chunk_rows=1 << 10)


def test_synthetic_stencil_misalignment_and_reuse():
    """A 3-row stencil on a 256-byte pitch, a misaligned neighbour read, and a value read twice."""
    k = KernelBuilder((64, 8), (32, 4))
    for dy in (-1, 0, 1):
        k.load(1 + dy + 1, lambda i, dy=dy: 4 * i.gx + 256 * (i.gy + 1 + dy), buffer=0)
    k.load(5, lambda i: 4 * (128 * i.group + i.lid) + 4, buffer=1)   # a[i + 1]: one element off
    k.load(6, lambda i: 4 * i.gid, buffer=2)
    k.load(6, lambda i: 4 * i.gid, buffer=2)                # the same address again
    k.store(7, lambda i: 4 * i.gid, buffer=3)
    trace = k.trace()
    target = load_target("adreno-640")
    _compare(trace, target)
    pats = replay_memory(trace, target).patterns[0]
    st = pats.launch.stencils.set_index("buffer")
    assert st.loc[0, "rows"] == 3 and st.loc[0, "pitch"] == 256 and st.loc[0, "cols"] == 1
    sites = pats.sites.set_index("site")
    assert sites.loc[5, "misaligned_requests"] > 0
    assert sites.loc[6, "distinct_item_addresses"] * 2 == 2 * 64 * 8


def test_segment_set_counts_distinct_segments_across_pages():
    s = SegmentSet(32)
    rng = np.random.default_rng(1)
    addr = rng.integers(0, 1 << 36, 50_000, dtype=np.int64)
    size = np.full(addr.shape, 4, np.uint16)
    space = np.zeros(addr.shape, np.int32)
    s.add(addr, size, space, np.array([True]))
    s.add(addr[:1000], size[:1000], space[:1000], np.array([True]))      # seen again: no change
    expect = len(np.unique(np.concatenate([addr >> 5, (addr + 3) >> 5])))
    assert s.count() == expect
    # rows that return to a few pages between scattered ones (the remembered slots), wide rows that
    # cross pages, and a table that grows in the middle of the rows
    near = (np.arange(60_000) % 37) * (1 << 17) + (np.arange(60_000) * 24) % (1 << 17)
    mixed = np.where(np.arange(60_000) % 3 == 0, rng.integers(0, 1 << 40, 60_000), near).astype(np.int64)
    wide = np.full(mixed.shape, 100, np.uint16)
    t = SegmentSet(32)
    t.add(mixed, wide, np.zeros(mixed.shape, np.int32), np.array([True]))
    segs = [np.arange(a >> 5, ((a + 99) >> 5) + 1) for a in mixed.tolist()]
    assert t.count() == len(np.unique(np.concatenate(segs)))


def test_hot_addresses_keep_the_heavy_ones_exact():
    h = HotAddresses(keep=4)
    rng = np.random.default_rng(2)
    for _ in range(20):
        noise = rng.integers(1000, 100_000, 500)
        h.add(7, np.concatenate([noise, np.full(40, 5)]))
    assert h.maximum(7) >= 40 * 20 - 20 * 500 // 4    # within the dropped weight
    exact = HotAddresses(keep=1024)
    exact.add(1, np.array([3, 3, 3, 4]))
    exact.add(1, np.array([3, 9]))
    assert exact.maximum(1) == 4


def test_merged_parts_give_the_whole_launch_counts():
    """Compute-unit shards see disjoint work-groups: their counts add up to the whole launch's."""
    from analyzers.replay.patterns import merge_patterns
    from tracekit.trace.views import launch_groups, launch_view

    trace = open_trace("sample_traces/transpose_tiled.tkt")
    target = load_target("intel-hd530")
    whole = replay_memory(trace, target).patterns[0]
    groups = launch_groups(trace, 0)
    parts = [replay_memory(launch_view(trace, [0], g), target).patterns[0]
             for g in (groups[::2], groups[1::2])]
    merged = merge_patterns(parts)
    exact = ["unaligned", "adjacent", "loop_adjacent", "distinct_item_addresses", "ideal_transactions",
             "misaligned_requests", "uniform_requests", "distinct_addresses", "local_slices"]
    w = whole.sites.set_index("site")[exact].sort_index()
    m = merged.sites.set_index("site")[exact].sort_index()
    assert (w == m).all().all()
    for name in ("local_loads", "local_stores", "local_words_stored", "staged_local_stores"):
        assert getattr(merged.launch, name) == getattr(whole.launch, name)
    assert merged.launch.footprint_bytes >= whole.launch.footprint_bytes


def test_the_in_place_median_is_numpys():
    from analyzers.replay.patterns import _median_in_place

    rng = np.random.default_rng(3)
    for n in [1, 2, 3, 4, 31, 32, 33, 64, 65]:
        x = rng.integers(-(1 << 50), 1 << 50, n + 3).astype(np.int64)
        assert _median_in_place(x.copy(), n) == np.median(x[:n])


@pytest.mark.parametrize("a_values", [3, 10_000])   # a counting pass over few values; a sort over many
def test_pairs_sort_stably_by_site_then_address(a_values):
    """An item's (site, address) rows in the order a stable lexicographic sort gives, the third
    column riding along: long items with few sites, rows of one site ascending already or not."""
    from analyzers.replay.patterns import _sort_pairs

    rng = np.random.default_rng(5)
    for n in [5, 48, 49, 200, 3000]:
        for walk in (True, False):
            a = rng.integers(0, a_values, n).astype(np.int64)
            b = (np.arange(n) * 4 if walk else rng.integers(0, 40, n)).astype(np.int64)
            c = np.arange(n, dtype=np.int64)
            want = np.lexsort((b, a))   # stable: ties keep their row order
            got_a, got_b, got_c = a.copy(), b.copy(), c.copy()
            _sort_pairs(got_a, got_b, got_c, n)
            assert np.array_equal(got_a, a[want]) and np.array_equal(got_b, b[want])
            assert np.array_equal(got_c, c[want])
