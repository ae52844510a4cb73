"""End-to-end memory replay on small traces with explicit target geometry."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from analyzers.replay.memory import MemoryReplay, replay_memory
from tracekit.formats import open_trace
from tracekit.targets.model import (
    CacheLevel,
    DramSpec,
    LocalMemorySpec,
    OccupancySpec,
    SimdSpec,
    Target,
)
from tracekit.trace.store import conform, write_trace


def target(width=16, cus=1, transaction=64, caches=None, local=None, pack=0):
    return Target(
        name="test", vendor="test", family="test", description="explicit geometry for tests",
        compute_units=cus, clock_mhz=1000.0, simd=SimdSpec(width, pack_small_groups_up_to=pack),
        caches=caches if caches is not None else (CacheLevel("L1", "compute_unit", 4096, 64, 4),
                                                  CacheLevel("L2", "shared", 32768, 64, 8)),
        transaction_bytes=transaction,
        local_memory=local or LocalMemorySpec(65536, 16, 4, 16),
        dram=DramSpec(10.0, 100.0), occupancy=OccupancySpec(256, 64))


def accesses(per_item, groups, items, *, launch=0, kernel="k"):
    """Rows for ``groups`` x ``items`` work-items; ``per_item(g, i)`` gives (site, space, op, addr, size)."""
    rows = []
    for g in range(groups):
        for i in range(items):
            for seq, (site, space, op, addr, size) in enumerate(per_item(g, i)):
                rows.append((kernel, launch, g, i, site, seq, space, op, addr, size))
    return pd.DataFrame(rows, columns=["kernel", "launch", "group", "item", "site", "seq", "space", "op",
                                       "address", "size"]).astype({"address": np.uint64, "size": np.uint16})


def launches_table(sizes):
    return conform(pa.table({
        "kernel": ["k"] * len(sizes), "launch": list(sizes),
        "global_size": [[g * n, 1, 1] for g, n in sizes.values()],
        "local_size": [[n, 1, 1] for _, n in sizes.values()],
        "local_mem_bytes": [0] * len(sizes)}), "launches")


BASE = 1 << 24


def test_intel_global_cases_per_site():
    # intel-processor-graphics-opencl-guide.txt, "__global Memory and __constant Memory", cases 1-6
    index = [lambda g: g, lambda g: g + 1, lambda g: 4095 - g, lambda g: 4 * g, lambda g: 16 * g,
             lambda g: 32 * g]
    df = accesses(lambda g, i: [(s, "global", "load", BASE + (s << 20) + 4 * f(16 * g + i), 4)
                                for s, f in enumerate(index)], groups=4, items=16)
    r = replay_memory(df, target(width=16))
    per = r.per_site.set_index("site")
    assert per["transactions_per_request"].tolist() == [1, 2, 1, 4, 16, 16]
    assert per["requests"].tolist() == [4] * 6
    d = r.to_dict()
    assert d["memory"]["requests"] == 24 and d["memory"]["transactions"] == 4 * (1 + 2 + 1 + 4 + 16 + 16)


def test_adreno_coalescing_through_replay():
    # qualcomm-adreno-opencl-optimization.txt §3.2.6: 8 work-items, 4 bytes each, 128-bit transactions
    df = accesses(lambda g, i: [(0, "global", "load", BASE + 4 * i, 4),
                                (1, "global", "load", BASE + 16 * i, 4)], groups=1, items=8)
    per = replay_memory(df, target(width=8, transaction=16)).per_site.set_index("site")
    assert per.loc[0, "transactions"] == 2 and per.loc[1, "transactions"] == 8


def test_powervr_common_store_through_replay():
    # powervr-rogue-compute-recommendations.txt "Common Store": one float stride, 16-float stride, float4
    pvr = target(width=32, local=LocalMemorySpec(4096, 4, 16, 16), pack=16)
    df = accesses(lambda g, i: [(0, "local", "load", 4 * i, 4), (1, "local", "load", 64 * i, 4),
                                (2, "local", "load", 16 * i, 16)], groups=2, items=32)
    r = replay_memory(df, pvr)
    per = r.per_site.set_index("site")
    per16 = per["local_cycles"] / per["requests"] / 2  # a task of 32 threads is two rounds of 16
    assert per16.tolist() == [1.0, 16.0, 4.0]
    assert per["conflict_degree_max"].tolist() == [1, 16, 4]
    d = r.to_dict()["local_memory"]
    assert d == {"requests": 6, "cycles": 2 * (2 + 32 + 8), "conflict_degree_mean": (1 + 16 + 4) / 3}
    hist = r.conflict_degrees.set_index("site")
    assert hist.loc[1, "conflict_degree"] == 16 and hist.loc[1, "requests"] == 2


def test_packed_small_groups_share_requests():
    pvr = target(width=32, local=LocalMemorySpec(4096, 4, 16, 16), pack=16)
    df = accesses(lambda g, i: [(0, "global", "load", BASE + 4 * (8 * g + i), 4)], groups=8, items=8)
    assert replay_memory(df, pvr, group_sizes={0: 8}).to_dict()["memory"]["requests"] == 2
    assert replay_memory(df, target(width=32), group_sizes={0: 8}).to_dict()["memory"]["requests"] == 8


def _mixed(launch, groups=12, items=64):
    def per_item(g, i):
        gid = g * items + i
        return [(0, "global", "load", BASE + 4 * gid, 4),
                (1, "global", "load", BASE + (1 << 22) + 36 * ((gid * 7919) % 4096), 4),
                (2, "local", "store", 8 * i, 4),
                (3, "private", "load", 1 << 30, 4),
                (4, "global", "store", BASE + (1 << 23) + 4 * gid, 4)]
    return accesses(per_item, groups, items, launch=launch)


def test_trace_on_disk_chunked_and_filtered(tmp_path):
    df = pd.concat([_mixed(0), _mixed(1, groups=5)], ignore_index=True)
    table = conform(pa.Table.from_pandas(df, preserve_index=False), "accesses")
    path = write_trace(tmp_path / "mixed.tkt", table, launches=launches_table({0: (12, 64), 1: (5, 64)}))
    trace = open_trace(path)
    tgt = target(width=16, cus=3)
    whole = replay_memory(trace, tgt)
    assert isinstance(whole, MemoryReplay) and whole.accesses == len(df)
    chunked = replay_memory(trace, tgt, chunk_rows=700)
    assert chunked.to_dict() == whole.to_dict()
    pd.testing.assert_frame_equal(chunked.per_site, whole.per_site)
    # launches are independent: replaying them apart adds up to the whole
    parts = [replay_memory(trace, tgt, launches=[k]) for k in (0, 1)]
    for key in ("requests", "transactions", "dram_bytes"):
        assert sum(p.to_dict()["memory"][key] for p in parts) == whole.to_dict()["memory"][key]
    hits = [sum(p.caches[i].hits for p in parts) for i in range(2)]
    assert hits == [c.hits for c in whole.caches]
    assert [whole.launch_caches[k] for k in (0, 1)] == [p.caches for p in parts]
    assert list(whole.per_launch["launch"]) == [0, 1]
    assert set(whole.per_site["space"]) == {"global", "local", "private"}


def test_to_dict_keys_and_determinism():
    r = replay_memory(_mixed(0), target(cus=2))
    d = r.to_dict()
    assert set(d) == {"memory", "local_memory"}
    keys = {"requests", "transactions", "transactions_per_request", "caches", "dram_bytes"}
    assert keys <= set(d["memory"])
    assert set(d["local_memory"]) == {"requests", "cycles", "conflict_degree_mean"}
    assert [c["level"] for c in d["memory"]["caches"]] == ["L1", "L2"]
    assert all(0.0 <= c["hit_rate"] <= 1.0 for c in d["memory"]["caches"])
    # 12 groups x 4 waves x 3 global sites; the private site is not memory traffic
    assert d["memory"]["requests"] == 12 * 4 * 3
    assert d["memory"]["dram_bytes"] == d["memory"]["dram_bytes_read"] + d["memory"]["dram_bytes_written"]
    assert d["memory"]["dram_bytes_written"] >= 12 * 64 * 4  # every stored byte reaches DRAM
    assert replay_memory(_mixed(0), target(cus=2)).to_dict() == d


def test_no_caches_still_counts_transactions():
    r = replay_memory(_mixed(0, groups=2), target(caches=()))
    d = r.to_dict()["memory"]
    assert d["caches"] == [] and d["dram_bytes"] == 0 and d["transactions"] > 0


@pytest.mark.parametrize("cus", [1, 4])
def test_streaming_reuse_hits_in_l1(cus):
    # every item reads the same 64 bytes twice per group: after the first miss, hits
    df = accesses(lambda g, i: [(0, "global", "load", BASE + 4 * (i % 16), 4)] * 2, groups=8, items=16)
    r = replay_memory(df, target(width=16, cus=cus))
    l1 = r.caches[0]
    assert l1.misses == cus and l1.hits == 16 - cus


def test_dictionary_order_does_not_matter():
    # the replay reads space/op codes straight from the dictionary indices when the dictionary
    # follows the schema's order, and translates them otherwise: both must agree
    df = _mixed(0, groups=6)
    table = conform(pa.Table.from_pandas(df, preserve_index=False), "accesses")

    def redictionary(values, names):
        codes = pa.array([names.index(v) for v in values.to_pylist()], pa.int32())
        return pa.DictionaryArray.from_arrays(codes, pa.array(names, pa.string()))

    shuffled = table
    for name, names in (("space", ["private", "local", "global"]), ("op", ["store", "load"]),
                        ("kernel", ["other", "k"])):
        values = shuffled[name].combine_chunks().dictionary_decode()
        shuffled = shuffled.set_column(shuffled.schema.get_field_index(name), shuffled.schema.field(name),
                                       redictionary(values, names))
    assert shuffled["space"].combine_chunks().dictionary.to_pylist() == ["private", "local", "global"]
    tgt = target(width=16, cus=2)
    a, b = replay_memory(table, tgt), replay_memory(shuffled, tgt)
    assert a.to_dict() == b.to_dict()
    pd.testing.assert_frame_equal(a.per_site, b.per_site)
    pd.testing.assert_frame_equal(a.conflict_degrees, b.conflict_degrees)


def test_sample_meets_the_per_unit_caches_another_group_left(tmp_path):
    """Eight recorded groups read one shared row and a row of their own.  Replayed plainly each
    unit is cold; with the units warmed by the first pass, the shared row hits in the L1 and the
    own rows still miss (a group never meets its own data); the shared level starts cold."""
    from analyzers.replay.warm_sample import replay_warm_units
    from tracekit.targets import load_target

    def per_item(g, i):
        return [(1, "global", "load", BASE + 4 * i, 4),
                (2, "global", "load", BASE + (1 << 22) + 4 * (32 * g + i), 4)]
    df = accesses(per_item, 8, 32)
    table = conform(pa.Table.from_pandas(df, preserve_index=False), "accesses")
    trace = open_trace(write_trace(tmp_path / "shared.tkt", table, launches=launches_table({0: (8, 32)})))
    h200 = load_target("nvidia-h200")
    cold = replay_memory(trace, h200)
    assert cold.caches[0].load_hits == 0
    warm = replay_warm_units(trace, h200, 0, 32)
    l1 = warm.caches[0]
    assert l1.load_hits == 8 * 4 and l1.load_misses == 8 * 4   # 4 sectors a request
    assert warm.caches[1].load_hits == 0                           # L2 cold: the misses go on
    assert warm.to_dict()["memory"]["requests"] == cold.to_dict()["memory"]["requests"] == 16
