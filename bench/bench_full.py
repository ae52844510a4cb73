"""Full analysis throughput and memory on one core: a 100-million-access trace, end to end.

A synthetic trace with several launches of two kernels and many work-groups is
streamed to a temporary directory with :class:`tracekit.trace.store.TraceWriter`:

* ``tiled_update`` (256 items per group, two loop iterations): a coalesced global
  load, a strided global load (eight floats apart), a local store and a local load
  with two-way bank conflicts, a coalesced global store;
* ``gather_transpose``: a coalesced index load, a data-dependent (hashed) global
  load, a column-wise (transposed) global load and a coalesced store.

Both carry per-item instruction counts (loads, stores, FMAs, integer adds), so the
ALU model and the verdict have real input.  :func:`analyzers.analyze` then runs
everything (waves, coalescing, L1 and SLC caches, local-memory banks, SIMD, ALU,
occupancy, verdict) on the Adreno 640 model, in a child process pinned to one
core so its peak RSS is the analysis's alone.  The same child first scans the
accesses the replay reads with plain pyarrow (a reference measured in the same
run).  A pyarrow reader over a whole file keeps the column chunks it has read
until the file is closed (about the file's size), so the scan reads through its
own :class:`~tracekit.trace.reader.Trace`, which is dropped before the analysis opens
the trace afresh, and the peak RSS high-water mark is reset in between (Linux
``/proc/self/clear_refs``; the scan's peak is printed beside the analysis's).
The analysis is run at the full length and at a quarter of it, and both peak
RSS figures are printed: bounded memory means they are about equal.

``--accesses 2e6`` is a quick run; ``--target`` picks the target; ``--src DIR`` also analyses
the full-length trace with another source tree's analyzers (the previous engine), in the same
run, and prints the CPU-time ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

GROUP = 256
#: The replay engine's goal (issue: "the replay engine ... fast enough to use interactively"):
#: the 100 M-access trace on the Adreno 640 at 20 M accesses per CPU second in at most 1 GB.
TARGET = "adreno-640"
RSS_BUDGET_MB = 1024
GOAL_PER_S = 20e6
SCAN_COLUMNS = ["kernel", "launch", "group", "item", "site", "space", "op", "address", "size"]
KERNELS = {
    # site: (space, op) per access of one loop iteration
    "tiled_update": [("global", "load"), ("global", "load"), ("local", "store"), ("local", "load"),
                     ("global", "store")],
    "gather_transpose": [("global", "load"), ("global", "load"), ("global", "load"), ("global", "store")],
}
ITERATIONS = 2
OPCLASSES = ["load", "store", "fp32_fma", "int_add"]


def _addresses(kernel: str, gid: np.ndarray, lid: np.ndarray, it: int, n_items: int) -> list[np.ndarray]:
    base = [np.uint64(k << 28) for k in range(1, 5)]
    g = gid.astype(np.uint64)
    if kernel == "tiled_update":
        off = np.uint64(it * n_items)
        return [base[0] + 4 * (g + off),                                   # x[gid + it*n]: coalesced
                base[1] + 4 * ((g * np.uint64(8) + np.uint64(it)) % np.uint64(1 << 24)),  # y[8 gid]
                4 * lid.astype(np.uint64),                                 # tile[lid]
                4 * ((lid.astype(np.uint64) * np.uint64(2)) % np.uint64(GROUP)),  # tile[2 lid]: 2-way
                base[2] + 4 * (g + off)]                                   # out[gid + it*n]
    width = np.uint64(2048)
    h = (g * np.uint64(2654435761) + np.uint64(it * 97)) % np.uint64(1 << 22)
    return [base[0] + 4 * g,                                               # idx[gid]
            base[1] + 4 * h,                                               # data[hash(gid)]
            base[2] + 4 * (((g % width) * width + g // width + np.uint64(it)) % np.uint64(1 << 24)),
            base[3] + 4 * (g + np.uint64(it * n_items))]                   # out[gid]


def _block(kernel: str, launch: int, g0: int, g1: int, n_items: int) -> tuple[pa.Table, pa.Table]:
    """Accesses and instruction counts of work-groups [g0, g1) of one launch, canonical order."""
    sites = KERNELS[kernel]
    per_it = len(sites)
    per_item = per_it * ITERATIONS
    groups = np.arange(g0, g1, dtype=np.int64)
    lid = np.tile(np.arange(GROUP, dtype=np.int32), len(groups))
    grp = np.repeat(groups, GROUP)
    gid = grp * GROUP + lid
    cols = []
    for it in range(ITERATIONS):
        cols += _addresses(kernel, gid, lid, it, n_items)
    address = np.stack(cols, axis=1).ravel()
    n = address.size
    site_of = np.tile(np.arange(per_it, dtype=np.int32), ITERATIONS)
    space_codes = np.array([["global", "local"].index(s) for s, _ in sites] * ITERATIONS, np.int32)
    op_codes = np.array([["load", "store"].index(o) for _, o in sites] * ITERATIONS, np.int32)
    items = len(gid)
    acc = pa.table({
        "kernel": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), [kernel]),
        "launch": np.full(n, launch, np.int32),
        "group": np.repeat(grp, per_item),
        "item": np.repeat(lid, per_item),
        "site": np.tile(site_of, items),
        "seq": np.tile(np.arange(per_item, dtype=np.int64), items),
        "space": pa.DictionaryArray.from_arrays(np.tile(space_codes, items), ["global", "local"]),
        "op": pa.DictionaryArray.from_arrays(np.tile(op_codes, items), ["load", "store"]),
        "address": address,
        "size": np.full(n, 4, np.uint16),
    })
    loads = sum(1 for _, o in sites if o == "load") * ITERATIONS
    counts = np.array([loads, per_item - loads, 8 * ITERATIONS, 3 * ITERATIONS], np.int64)
    ni = len(OPCLASSES)
    instr = pa.table({
        "kernel": pa.DictionaryArray.from_arrays(np.zeros(items * ni, np.int32), [kernel]),
        "launch": np.full(items * ni, launch, np.int32),
        "group": np.repeat(grp, ni),
        "item": np.repeat(lid, ni),
        "site": np.tile(np.arange(100, 100 + ni, dtype=np.int32), items),
        "opclass": pa.DictionaryArray.from_arrays(np.tile(np.arange(ni, dtype=np.int32), items), OPCLASSES),
        "count": np.tile(counts, items),
    })
    return acc, instr


def generate(path: Path, accesses: int, launches: int = 4, groups_per_block: int = 256) -> int:
    """Write a trace of about ``accesses`` accesses; returns the exact count."""
    from tracekit.trace import store

    names = list(KERNELS)
    kernels = [names[i % len(names)] for i in range(launches)]
    per_item = {k: len(v) * ITERATIONS for k, v in KERNELS.items()}
    mean = sum(per_item[k] for k in kernels) / launches
    groups = max(1, int(accesses / (mean * GROUP * launches)))
    total = 0
    rows = []
    with store.TraceWriter(path) as w:
        for launch, kernel in enumerate(kernels):
            n_items = groups * GROUP
            for g0 in range(0, groups, groups_per_block):
                acc, instr = _block(kernel, launch, g0, min(groups, g0 + groups_per_block), n_items)
                w.write_accesses(acc)
                w.write_instructions(instr)
                total += acc.num_rows
            rows.append({"kernel": kernel, "launch": launch, "global_size": [n_items, 1, 1],
                         "local_size": [GROUP, 1, 1],
                         "local_mem_bytes": GROUP * 4 if kernel == "tiled_update" else 0,
                         "build_options": "-cl-fast-relaxed-math"})
        w.set_launches(store.conform(pa.Table.from_pylist(rows), "launches"))
    return total


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak_rss() -> bool:
    """Restart the peak RSS from the current RSS (Linux); False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _cpu_s() -> float:
    """CPU seconds of this process (all threads); on a shared machine wall time also counts waiting."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(path: str, warm: str, target_name: str = TARGET) -> None:
    """Measure in this (fresh) process: reference scan, then the full analysis."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from analyzers import analyze
    from tracekit.formats import open_trace
    from tracekit.targets import load_target

    target = load_target(target_name)
    analyze(open_trace(warm), target)  # load the compiled kernels from numba's cache
    scan = open_trace(path)
    n = scan.num_accesses
    t0, c0 = time.perf_counter(), _cpu_s()
    scanned = 0
    b = c = None
    for b in scan.iter_batches(columns=SCAN_COLUMNS):
        for c in b.columns:
            c = c.indices if pa.types.is_dictionary(c.type) else c
            c.to_numpy(zero_copy_only=False)
        scanned += b.num_rows
    t_scan, c_scan = time.perf_counter() - t0, _cpu_s() - c0
    rss_scan = _peak_rss_mb()
    # the scan's reader keeps what it read until its file is closed: close it, hand the memory
    # back, and count the peak from here on, so that it is the analysis's (plus what is resident)
    del b, c, scan
    pa.default_memory_pool().release_unused()
    reset = _reset_peak_rss()
    trace = open_trace(path)
    t0, c0 = time.perf_counter(), _cpu_s()
    result = analyze(trace, target)
    t_full, c_full = time.perf_counter() - t0, _cpu_s() - c0
    doc = result.to_dict()
    verdicts = {r.launch: r.verdict for r in result.launches}
    print(json.dumps({"accesses": n, "scanned": scanned, "t_scan": t_scan, "t_full": t_full,
                      "cpu_scan": c_scan, "cpu_full": c_full, "load": os.getloadavg()[0],
                      "peak_rss_mb": _peak_rss_mb(), "rss_after_scan_mb": rss_scan, "rss_reset": reset,
                      "verdicts": verdicts, "errors": result.errors,
                      "launch0_memory": doc["launches"][0].get("memory", {}) if doc.get("launches") else {}}))


def run_child(path: Path, warm: Path, target: str = TARGET, src: Path | None = None) -> dict:
    """One measurement in a fresh process; ``src``: the analyzers of another source tree."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, __file__, "--child", str(path), "--warm", str(warm),
                           "--target", target], capture_output=True, text=True, env=env,
                          cwd=str(src) if src is not None else None)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"the analysis of {path.name} failed (exit {proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--accesses", type=float, default=1e8, help="accesses in the full-length trace")
    ap.add_argument("--launches", type=int, default=4)
    ap.add_argument("--target", default=TARGET, help="the target to analyse on")
    ap.add_argument("--src", type=Path, default=None,
                    help="another tracekit source tree (the previous engine): its analysis of the same "
                         "full-length trace is measured too, and the speed ratio printed")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--warm", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.warm, args.target)
        return
    with tempfile.TemporaryDirectory(prefix="tracekit-bench-full-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        generate(tmp / "warm.tkt", 200_000, launches=2)
        n_full = generate(tmp / "full.tkt", int(args.accesses), args.launches)
        n_quarter = generate(tmp / "quarter.tkt", int(args.accesses) // 4, args.launches)
        took = time.perf_counter() - t0
        print(f"generated {n_full:,} + {n_quarter:,} accesses in {took:.0f} s", flush=True)
        runs = {}
        for name, n in (("quarter", n_quarter), ("full", n_full)):
            r = run_child(tmp / f"{name}.tkt", tmp / "warm.tkt", args.target)
            assert r["accesses"] == r["scanned"] == n, r
            if r["errors"]:
                raise SystemExit(f"analysis errors: {r['errors']}")
            runs[name] = r
            print(f"{name:8} {n:>12,} accesses  analysis {r['t_full']:7.1f} s = "
                  f"{n / r['t_full'] / 1e6:6.2f} M/s (CPU {r['cpu_full']:.1f} s = "
                  f"{n / r['cpu_full'] / 1e6:.2f} M/s)   pyarrow scan {n / r['t_scan'] / 1e6:6.1f} M/s   "
                  f"peak RSS {r['peak_rss_mb']:6.0f} MiB (scan {r['rss_after_scan_mb']:.0f} MiB)   "
                  f"load avg {r['load']:.1f}   "
                  f"verdicts {r['verdicts']}", flush=True)
        ref = None
        if args.src:
            ref = run_child(tmp / "full.tkt", tmp / "warm.tkt", args.target, args.src.resolve())
            print(f"previous {n_full:>12,} accesses  analysis CPU {ref['cpu_full']:.1f} s = "
                  f"{n_full / ref['cpu_full'] / 1e6:.2f} M/s   peak RSS {ref['peak_rss_mb']:6.0f} MiB  "
                  f"({args.src})", flush=True)
    full, quarter = runs["full"], runs["quarter"]
    rate = n_full / full["t_full"]
    cpu_rate = n_full / full["cpu_full"]
    slowdown = full["cpu_full"] / full["cpu_scan"]
    growth = full["peak_rss_mb"] / quarter["peak_rss_mb"]
    # one pinned core: CPU seconds are what the analysis costs; wall time adds other users' load
    ok = cpu_rate >= GOAL_PER_S and full["peak_rss_mb"] <= RSS_BUDGET_MB and growth < 1.25
    if not (full["rss_reset"] and quarter["rss_reset"]):
        print("note: the peak RSS could not be reset after the scan; it is the whole process's")
    print(f"analysis takes {slowdown:.1f}x the CPU time of a plain pyarrow scan of the same columns; "
          f"peak RSS at 4x the length: x{growth:.2f}")
    print(f"RESULT name=full accesses={n_full} accesses_per_s={rate:.0f} accesses_per_cpu_s={cpu_rate:.0f} "
          f"scan_accesses_per_s={n_full / full['t_scan']:.0f} time_vs_scan={slowdown:.2f} "
          f"peak_rss_mb={full['peak_rss_mb']:.0f} peak_rss_quarter_mb={quarter['peak_rss_mb']:.0f} "
          f"rss_growth={growth:.2f} peak_rss_scan_mb={full['rss_after_scan_mb']:.0f} "
          f"target={args.target}"
          + (f" src_accesses_per_cpu_s={n_full / ref['cpu_full']:.0f} "
             f"speed_vs_src={ref['cpu_full'] / full['cpu_full']:.2f}" if ref is not None else "")
          + f" within_budget={'yes' if ok else 'no'}")


if __name__ == "__main__":
    main()
