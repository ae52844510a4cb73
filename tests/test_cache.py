"""Cache hierarchy replay: exact against pycachesim, plus sectors, flush and bad geometry."""

from __future__ import annotations

import numpy as np
import pytest
from cachesim import Cache, CacheSimulator, MainMemory
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzers.replay.cache import LOAD, STORE, CacheHierarchy
from tracekit.errors import TargetError
from tracekit.targets.model import CacheLevel


def level(name, size, line, ways, scope="shared", wb=True):
    return CacheLevel(name, scope, size, line, ways, write_policy="write_back" if wb else "write_through",
                      write_allocate=wb)


def reference(levels, l1_count=1):
    """pycachesim chain with the same geometry; several first levels may share the rest."""
    mem = MainMemory()
    below = None
    for lv in reversed(levels[1:]):
        c = Cache(lv.name, lv.sets, lv.ways, lv.line_bytes, "LRU",
                  write_back=lv.write_policy == "write_back", write_allocate=lv.write_allocate,
                  load_from=below, store_to=below)
        if below is None:
            mem.load_to(c)
            mem.store_from(c)
        below = c
    top = levels[0]
    firsts = [Cache(f"{top.name}{i}", top.sets, top.ways, top.line_bytes, "LRU",
                    write_back=top.write_policy == "write_back", write_allocate=top.write_allocate,
                    load_from=below, store_to=below) for i in range(l1_count)]
    if below is None:
        mem.load_to(firsts[0])
        mem.store_from(firsts[0])
    return firsts, CacheSimulator(firsts[0], mem)


def pyc_counts(caches):
    return [(c.backend.HIT_count, c.backend.MISS_count) for c in caches]


def ours_as_pycachesim(h):
    """pycachesim counts load hits, and misses of loads and of write-allocating stores."""
    return [(int(r[0]), int(r[1] + (r[3] if lv.write_allocate else 0)))
            for r, lv in zip(h.counters(), h.levels, strict=True)]


L1 = level("L1", 8 * 1024, 64, 4, scope="compute_unit")
L2 = level("L2", 64 * 1024, 64, 8)
L3 = level("L3", 256 * 1024, 128, 16)
# set counts that are not powers of two (96 and 384 sets, 12 ways): the set index is a modulo
L1_ODD = level("L1", 96 * 4 * 64, 64, 4, scope="compute_unit")
L2_ODD = level("L2", 384 * 12 * 64, 64, 12)
rng = np.random.default_rng(7)
STREAMS = {
    # pycachesim keeps 32-bit addresses: stay below 2**32
    "random": rng.integers(0, 1 << 22, 20000),
    "strided": (np.arange(20000) * 72) % (1 << 21),
    "random_high": rng.integers(0, (1 << 32) - 64, 20000),
}


@pytest.mark.parametrize("stream", sorted(STREAMS))
@pytest.mark.parametrize("levels", [(L1, L2), (L1, L2, L3), (L2,), (L1_ODD, L2_ODD)],
                         ids=["L1L2", "L1L2L3", "L2", "odd_sets"])
def test_loads_equal_pycachesim(stream, levels):
    addrs = STREAMS[stream]
    caches, cs = reference(levels)
    cs.load(addrs.tolist(), length=4)
    h = CacheHierarchy(levels)
    h.load(addrs, 4)
    assert ours_as_pycachesim(h) == pyc_counts(list(cs.levels(with_mem=False)))
    # DRAM reads are the last level's misses, one line each
    assert h.dram_bytes_read == h.counters()[-1][1] * levels[-1].line_bytes


@pytest.mark.parametrize("l1_wb", [True, False], ids=["write_back", "write_through"])
@pytest.mark.parametrize("stream", ["random", "strided"])
def test_loads_and_stores_equal_pycachesim(l1_wb, stream):
    levels = (level("L1", 8 * 1024, 64, 4, scope="compute_unit", wb=l1_wb), L2, L3)
    addrs = STREAMS[stream]
    ops = np.random.default_rng(3).integers(0, 2, addrs.size)
    caches, cs = reference(levels)
    for a, o in zip(addrs.tolist(), ops.tolist(), strict=True):
        (caches[0].backend.store if o else caches[0].backend.load)(a, length=4)
    h = CacheHierarchy(levels, store_touches_lru=False)  # pycachesim's convention for store hits
    h.access(addrs, ops=ops, lengths=4)
    assert ours_as_pycachesim(h) == pyc_counts(list(cs.levels(with_mem=False)))
    # dirty write-backs agree wherever a level writes back (pycachesim also counts clean
    # replacements of write-through levels as evictions)
    for r, lv, c in zip(h.counters(), levels, cs.levels(with_mem=False), strict=True):
        if lv.write_policy == "write_back":
            assert int(r[4]) == c.backend.EVICT_count


def test_two_compute_units_share_the_l2_like_pycachesim():
    levels = (L1, L2)
    addrs = STREAMS["random"][:8000] % (1 << 18)
    cus = np.arange(addrs.size) % 2
    caches, _ = reference(levels, l1_count=2)
    for a, cu in zip(addrs.tolist(), cus.tolist(), strict=True):
        caches[cu].backend.load(a, length=4)
    h = CacheHierarchy(levels, compute_units=2)
    h.access(addrs, cus=cus, lengths=4)
    got = h.counters()
    hits = sum(caches[i].backend.HIT_count for i in range(2))
    misses = sum(caches[i].backend.MISS_count for i in range(2))
    assert (got[0][0], got[0][1]) == (hits, misses)
    l2 = caches[0].load_from.backend
    assert (got[1][0], got[1][1]) == (l2.HIT_count, l2.MISS_count)


@settings(max_examples=30, deadline=None)
@given(addrs=st.lists(st.integers(0, 1 << 14), min_size=1, max_size=300),
       ops=st.lists(st.integers(0, 1), min_size=300, max_size=300),
       ways=st.sampled_from([1, 2, 4]), sets=st.sampled_from([1, 4, 16]))
def test_small_caches_equal_pycachesim(addrs, ops, ways, sets):
    levels = (level("L1", sets * ways * 32, 32, ways), level("L2", 4 * sets * ways * 64, 64, ways * 2))
    caches, cs = reference(levels)
    for a, o in zip(addrs, ops, strict=False):
        (caches[0].backend.store if o else caches[0].backend.load)(a, length=8)
    h = CacheHierarchy(levels, store_touches_lru=False)
    h.access(np.asarray(addrs), ops=np.asarray(ops[: len(addrs)]), lengths=8)
    assert ours_as_pycachesim(h) == pyc_counts(list(cs.levels(with_mem=False)))


def test_sectored_level_fills_and_hits_by_sector():
    lv = CacheLevel("L2", "shared", 4 * 128, 128, 4, sector_bytes=32)
    h = CacheHierarchy([lv])
    h.load([0, 32, 0, 100, 128 * 4], 4)
    # sector 0 miss (allocates line 0), sector 1 miss (line present), sector 0 hit, sector 3 miss, new line
    assert h.counters()[0][:2].tolist() == [1, 4]
    assert h.dram_bytes_read == 4 * 32


def _fetching(**kw):
    """A 64-byte-fetching L2 of 128-byte lines and 32-byte sectors behind an unsectored L1."""
    return CacheHierarchy([level("L1", 1024, 32, 2, scope="compute_unit", wb=False),
                           CacheLevel("L2", "shared", 16 * 128, 128, 4, sector_bytes=32, fetch_bytes=64,
                                      write_allocate=False, **kw)], compute_units=2)


def test_fetching_level_brings_the_block_and_serves_its_other_sector_later():
    h = _fetching()
    depth = np.full(3, -1, np.int64)
    h.access([0, 512, 32], lengths=32, depth=depth)  # sector 0, another line, then sector 1
    l2 = h.counters()[1]
    assert (l2[0], l2[1]) == (1, 2)  # sector 1 came with sector 0's fetch
    assert h.dram_bytes_read == 2 * 64
    assert depth.tolist() == [2, 2, 1]  # DRAM, DRAM, then the L2


def test_fetching_level_counts_the_same_requests_other_sector_as_a_miss():
    # a coalesced 128-byte request looks its four sectors up one after the other: the second
    # sector of each block is on its way, not there, and waits for DRAM as the first does
    h = _fetching()
    depth = np.full(4, -1, np.int64)
    h.access([0, 32, 64, 96], lengths=32, depth=depth)
    l2 = h.counters()[1]
    assert (l2[0], l2[1]) == (0, 4)
    assert h.dram_bytes_read == 128  # each sector once
    assert depth.tolist() == [2, 2, 2, 2]
    h.access([32, 96], lengths=32, cus=1)  # later lookups (another unit's L1 misses) hit
    assert h.counters()[1][0] == 2


def test_fetching_level_fetches_only_the_absent_sectors_of_a_block():
    h = _fetching()
    h.access([32, 0], ops=[STORE, LOAD], lengths=32)  # the store installs sector 1 without a fetch
    assert h.dram_bytes_read == 32  # the load's block had sector 1 already


@pytest.mark.parametrize("fetch, message", [(48, "power of two"), (256, "at most one line")])
def test_bad_fetch_block_is_a_target_error(fetch, message):
    lv = CacheLevel("L2", "shared", 16 * 128, 128, 4, sector_bytes=32, fetch_bytes=fetch)
    with pytest.raises(TargetError, match=message):
        CacheHierarchy([lv])


def test_flush_writes_dirty_lines_once():
    h = CacheHierarchy([level("L1", 1024, 64, 2, scope="compute_unit"), level("L2", 8192, 64, 4)])
    h.store(np.arange(0, 640, 4), 4)  # 10 lines written
    assert h.dram_bytes_written == 0
    h.flush()
    assert h.dram_bytes_written == 640
    stats = {s.level: s for s in h.stats()}
    assert stats["L1"].store_misses == 10 and stats["L1"].store_hits == 150
    assert 0 < stats["L1"].hit_rate < 1


def test_ops_other_than_load_and_store_are_refused():
    h = CacheHierarchy([L2])
    with pytest.raises(ValueError, match="LOAD"):
        h.access([0, 64], ops=[LOAD, 2])


def test_write_through_no_allocate_passes_stores_down():
    h = CacheHierarchy([level("L1", 1024, 64, 2, scope="compute_unit", wb=False)])
    h.access([0, 0, 64], ops=[STORE, LOAD, STORE], lengths=4)
    c = h.counters()[0]
    assert (c[0], c[1], c[2], c[3]) == (0, 1, 0, 2)  # the store did not allocate, so the load missed
    assert h.dram_bytes_written == 8 and h.dram_bytes_read == 64


@pytest.mark.parametrize("bad, message", [
    (CacheLevel("L1", "shared", 1000, 64, 4), "size_bytes"),
    (CacheLevel("L1", "shared", 1024, 48, 4), "power of two"),
    (CacheLevel("L1", "shared", 1024, 64, 4, sector_bytes=128), "sector"),
    (CacheLevel("L1", "everywhere", 1024, 64, 4), "scope"),
    (CacheLevel("L1", "shared", 4096, 1024, 4, sector_bytes=32), "16 sectors"),
])
def test_bad_geometry_is_a_target_error(bad, message):
    with pytest.raises(TargetError, match=message):
        CacheHierarchy([bad])


@pytest.mark.parametrize("stream", ["random", "strided"])
def test_line_may_shrink_towards_dram(stream):
    # a 128-byte first level over a 64-byte second level: every fill and every write-back
    # of the first level is exactly two accesses below
    levels = (level("L1", 16 * 1024, 128, 4, scope="compute_unit"), level("L2", 64 * 1024, 64, 8))
    addrs = STREAMS[stream] & ~3
    ops = np.random.default_rng(5).integers(0, 2, addrs.size)
    h = CacheHierarchy(levels)
    h.access(addrs, ops=ops, lengths=4)
    l1, l2 = h.counters()
    fills = l1[1] + l1[3]  # load misses and write-allocating store misses
    assert l2[:4].sum() == 2 * (fills + l1[4])
    assert l2[2] + l2[3] == 2 * l1[4]  # write-backs arrive as stores
    assert h.dram_bytes_read == 64 * (l2[1] + l2[3])


def test_kernels_compile_in_memory_when_no_folder_takes_their_source(monkeypatch):
    """A full disk (every write refused): the replay kernels are built from their source in memory
    and replay as the cached ones do."""
    from analyzers.replay import cache_kernels as ck

    def refuse(path, text):
        raise OSError(28, "No space left on device")

    levels = (CacheLevel("L1", "compute_unit", 2048, 64, 2), CacheLevel("L2", "shared", 8192, 64, 4))
    want = CacheHierarchy(levels)
    want.access(np.arange(0, 8192, 4), lengths=4)
    monkeypatch.setattr(ck, "_write_once", refuse)
    monkeypatch.setattr(ck, "_LOADED", {})
    got = CacheHierarchy(levels)
    got.access(np.arange(0, 8192, 4), lengths=4)
    assert type(ck._LOADED[got._geoms]).__name__ == "module"
    assert getattr(ck._LOADED[got._geoms], "__file__", None) is None   # not loaded from a file
    assert [s.__dict__ for s in got.stats()] == [s.__dict__ for s in want.stats()]
