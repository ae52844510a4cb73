"""Full memory replay throughput (waves, coalescing, L1 and L2, banks) on a synthetic trace.

A stencil-like kernel is written as a multi-million-access trace (streamed to disk
in batches), then :func:`analyzers.replay.memory.replay_memory` replays it on a GPU-like
target.  Prints accesses per second and the peak resident memory of the process
(the trace generation is bounded by its batch size, so the peak is the replay's),
and the reference throughput of reading the same accesses from Parquet in the same
run, so the replay's own cost can be told apart from I/O.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from analyzers.replay import replay_memory
from tracekit.formats import open_trace
from tracekit.targets.model import CacheLevel, DramSpec, LocalMemorySpec, OccupancySpec, SimdSpec, Target
from tracekit.trace import store

COLUMNS = ["kernel", "launch", "group", "item", "site", "space", "op", "address", "size"]  # what replay reads
GROUP = 256
WIDTH = 1024  # row pitch of the 2D input, in floats

TARGET = Target(
    name="bench-gpu", vendor="bench", family="bench", description="synthetic GPU-like geometry",
    compute_units=8, clock_mhz=1000.0, simd=SimdSpec(32),
    caches=(CacheLevel("L1", "compute_unit", 16 * 1024, 64, 4),
            CacheLevel("L2", "shared", 512 * 1024, 64, 16)),
    transaction_bytes=64, local_memory=LocalMemorySpec(32 * 1024, 16, 4, 16),
    dram=DramSpec(25.6, 300.0), occupancy=OccupancySpec(256, 64))


def _batch(g0: int, g1: int) -> pa.Table:
    """Accesses of work-groups [g0, g1): per item 4 global loads, a local store and load, a global store."""
    groups = np.arange(g0, g1)
    item = np.tile(np.arange(GROUP), len(groups))
    group = np.repeat(groups, GROUP)
    gid = group * GROUP + item
    x, y = gid % WIDTH, gid // WIDTH
    sites = np.array([0, 1, 2, 3, 4, 5, 6], np.int32)
    spaces = np.array(["global", "global", "global", "global", "local", "local", "global"])
    ops = np.array(["load", "load", "load", "load", "store", "load", "store"])
    addr = np.stack([
        (1 << 28) + 4 * gid,                          # in[gid]
        (1 << 28) + 4 * (gid + 1),                    # in[gid + 1] (misaligned by one)
        (1 << 28) + 4 * (np.maximum(y - 1, 0) * WIDTH + x),   # row above
        (2 << 28) + 4 * (x * WIDTH + y % WIDTH),      # a transposed (column) read
        4 * item,                                     # tile[lid] = ...
        4 * ((item * 2) % GROUP),                     # ... = tile[2 lid]: two-way conflicts
        (3 << 28) + 4 * gid,                          # out[gid]
    ], axis=1).ravel()
    n = len(gid) * len(sites)
    return pa.table({
        "kernel": pa.array(["stencil"] * n).dictionary_encode(),
        "launch": pa.array(np.zeros(n, np.int32)),
        "group": np.repeat(group, len(sites)).astype(np.int64),
        "item": np.repeat(item, len(sites)).astype(np.int32),
        "site": np.tile(sites, len(gid)),
        "seq": np.tile(np.arange(len(sites), dtype=np.int64), len(gid)),
        "space": pa.array(np.tile(spaces, len(gid))).dictionary_encode(),
        "op": pa.array(np.tile(ops, len(gid))).dictionary_encode(),
        "address": addr.astype(np.uint64),
        "size": np.full(n, 4, np.uint16),
    })


def write(path: Path, accesses: int) -> int:
    groups = max(1, accesses // (GROUP * 7))
    with store.TraceWriter(path) as w:
        for g0 in range(0, groups, 256):
            w.write_accesses(_batch(g0, min(groups, g0 + 256)))
        w.set_launches(store.conform(pa.table({
            "kernel": ["stencil"], "launch": [0], "global_size": [[groups * GROUP, 1, 1]],
            "local_size": [[GROUP, 1, 1]], "local_mem_bytes": [GROUP * 4]}), "launches"))
    return groups * GROUP * 7


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=4_000_000, help="accesses in the synthetic trace")
    ap.add_argument("--chunk-rows", type=int, default=1 << 20)
    ap.add_argument("--target", help="a shipped target instead of the synthetic one (e.g. nvidia-h200, whose "
                                     "hashed set index and L1 priced per request the replay then runs)")
    args = ap.parse_args()
    target = TARGET
    if args.target:
        from tracekit.targets import load_target
        target = load_target(args.target)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.tkt"
        n = write(path, args.n)
        trace = open_trace(path)
        replay_memory(trace, target, chunk_rows=1 << 16, launches=[0])  # compile / load cached code
        t0 = time.perf_counter()
        rows = sum(b.num_rows for b in trace.iter_batches(batch_size=args.chunk_rows, columns=COLUMNS))
        t_read = time.perf_counter() - t0
        t0 = time.perf_counter()
        result = replay_memory(trace, target, chunk_rows=args.chunk_rows)
        t_replay = time.perf_counter() - t0
    assert rows == n == result.accesses
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    d = result.to_dict()
    print(f"accesses            {n:,}")
    print(f"parquet read only   {n / t_read / 1e6:.2f} M accesses/s")
    print(f"full memory replay  {n / t_replay / 1e6:.2f} M accesses/s ({t_replay:.2f} s)")
    print(f"peak RSS            {peak_mb:.0f} MiB")
    print(f"transactions/request {d['memory']['transactions_per_request']:.3f}, "
          + ", ".join(f"{c['level']} hit rate {c['hit_rate']:.3f}" for c in d["memory"]["caches"])
          + f", local conflict degree {d['local_memory']['conflict_degree_mean']:.2f}")
    print(f"RESULT name=replay target={target.name} accesses={n} accesses_per_s={n / t_replay:.0f} "
          f"read_accesses_per_s={n / t_read:.0f} peak_rss_mb={peak_mb:.0f}")


if __name__ == "__main__":
    main()
