"""PowerVR Rogue looks a task's loads up thread by thread (the guide's "one miss plus fifteen hits").

powervr-rogue-compute-recommendations.txt §System Memory Access: sixteen threads of a
task each read 8 bytes, all inside one aligned 128-byte line; the hardware resolves
the accesses in row order, so the request costs one cache miss and fifteen hits.
Targets with ``cache_lookup = "lane"`` replay exactly that; the default
(``"request"``) merges the lanes into the one line they touch.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from exec_model_helpers import KernelBuilder

from analyzers.analyze import analyze
from analyzers.replay.memory import replay_memory
from tracekit.targets import load_target

LINE = 128
BASE = 1 << 20          # 128-byte aligned


def guide_example(items=16) -> KernelBuilder:
    """One task of ``items`` threads, each loading 8 bytes of the same aligned 128-byte line."""
    b = KernelBuilder("row_read", items, items)
    b.access(0, BASE + 8 * b.gid, size=8)
    return b.count(0, "load", 1)


@pytest.mark.parametrize("name", ["powervr-g6400", "powervr-gx6650"])
def test_sixteen_threads_on_one_line_are_one_miss_and_fifteen_hits(name):
    t = load_target(name)
    assert t.cache_lookup == "lane"
    r = replay_memory(guide_example().trace(), t)
    l1 = r.caches[0]
    assert (l1.load_misses, l1.load_hits) == (1, 15)
    # one line travels: the request is still one transaction, the next level sees one miss
    mem = r.to_dict()["memory"]
    assert mem["requests"] == 1 and mem["transactions"] == 1
    l1_line, slc_line = t.caches[0].line_bytes, t.caches[1].line_bytes   # GX6650's SLC line is 64 bytes
    assert r.caches[1].load_misses == l1_line // slc_line and r.caches[1].load_hits == 0
    assert mem["dram_bytes_read"] == LINE


def test_merged_lookup_would_see_one_miss_only():
    t = replace(load_target("powervr-g6400"), cache_lookup="request")
    l1 = replay_memory(guide_example().trace(), t).caches[0]
    assert (l1.load_misses, l1.load_hits) == (1, 0)


def test_each_lookup_takes_an_l1_request_slot():
    """The sixteen lookups, not the one line, are what the L1's throughput serves."""
    t = load_target("powervr-g6400")
    launch = analyze(guide_example().trace(), t).launches[0]
    l1 = next(lv for lv in launch.memory.traffic.levels if lv.name == "L1")
    assert l1.bytes == 16 * LINE                                  # throughput: sixteen lookups
    assert (l1.load_accesses, l1.load_hits) == (1, 0)             # latency: one line, missed
    reported = launch.memory.memory.caches[0]               # the JSON keeps the lookups
    assert (reported.load_hits, reported.load_misses) == (15, 1)
    merged = analyze(guide_example().trace(), replace(t, cache_lookup="request")).launches[0]
    assert next(lv for lv in merged.memory.traffic.levels if lv.name == "L1").bytes == LINE


def test_the_request_waits_for_the_miss_plus_fifteen_lookups():
    """Latency: the one line misses (the fifteen hits are not a 94 % hit rate for the request), and the
    fifteen further lookups each take an L1 request slot (one line per cycle on the G6400 file)."""
    t = load_target("powervr-g6400")
    ev = analyze(guide_example().trace(), t).launches[0].bound.evidence
    slot = t.caches[0].line_bytes / t.caches[0].bandwidth_bytes_per_cycle
    assert ev["lane_lookup_s_per_request"] == pytest.approx(15 * slot / (t.clock_mhz * 1e6))
    assert ev["load_served_by"]["L1"] == 0.0
    assert ev["mean_load_latency_ns"] == pytest.approx(t.dram.latency_ns)
    merged = analyze(guide_example().trace(), replace(t, cache_lookup="request")).launches[0].bound.evidence
    assert merged["lane_lookup_s_per_request"] == 0.0


def test_stores_and_other_targets_keep_merged_lookups():
    b = KernelBuilder("row_write", 16, 16)
    b.access(0, BASE + 8 * b.gid, size=8, op="store")
    r = replay_memory(b.count(0, "store", 1).trace(), load_target("powervr-g6400"))
    assert r.caches[0].store_hits + r.caches[0].store_misses == 1   # write-through: one line
    adreno = replay_memory(guide_example().trace(), load_target("adreno-640")).caches[0]
    assert adreno.load_hits + adreno.load_misses == 2               # two 64-byte lines, merged
