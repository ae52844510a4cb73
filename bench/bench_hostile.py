"""Benchmark: peak memory and time of `tracekit analyze` on launches of hostile shapes.

The replay cuts a launch between rounds of work-groups, never inside one, so a work-item
that issues millions of accesses (or a round of waves with one lane each) is a single
huge chunk.  Memory must still grow at most linearly with the accesses, at a small
constant.  For each access count this writes (with ``TraceWriter``, batch by batch, so
the generator holds no trace) one trace per shape:

* ``one-item``: one work-group of one work-item issuing every load, sequential addresses;
* ``one-item-strided``: the same with one 128-byte line per load;
* ``one-lane-groups``: one-item work-groups of four loads each (a request per access);
* ``well-shaped``: 64-item work-groups of four loads per item (the reference),

and runs ``tracekit analyze T -t TARGET -f json`` on each in its own process, measuring
wall time and the child's own peak RSS (``os.wait4``).  A 1,000-access trace gives the
baseline (interpreter, libraries, compiled kernels).  Printed per shape: peak RSS, bytes
per access above the baseline, seconds, and the ratio to the well-shaped trace of the
same count measured in the same run.

Prints one ``RESULT`` line (see bench/README.md).  Budget: peak memory grows by at most 200
bytes per access for every shape, between the two largest counts (above the baseline the
smaller counts also carry a chunk's fixed share: a chunk is up to a million rows).

It also times ``tracekit info --json`` and ``validate`` on a trace of 100,000 one-access
launches (``--launches``) against one launch of as many accesses.

``--write SHAPE N PATH`` and ``--child PATH TARGET`` are the two halves of one
measurement, used by the tests too.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

SHAPES = ("one-item", "one-item-strided", "one-lane-groups", "well-shaped")
BYTES_PER_ACCESS_BUDGET = 200
BATCH = 1 << 20
#: Accesses of the many-launches traces (``info`` and ``validate`` are timed on them).
LAUNCH_ACCESSES = 100_000


def _codes(value: str, n: int) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([value]))


def _batch(shape: str, lo: int, hi: int) -> pa.Table:
    """Rows ``lo:hi`` of a trace of the given shape (canonical order, one launch, one site)."""
    k = np.arange(lo, hi, dtype=np.int64)
    n = hi - lo
    if shape in ("one-item", "one-item-strided"):
        group, item, seq = np.zeros(n, np.int64), np.zeros(n, np.int32), k
        address = 0x10000 + k * (128 if shape == "one-item-strided" else 4)
    elif shape == "one-lane-groups":
        group, item, seq = k // 4, np.zeros(n, np.int32), k % 4
        address = 0x10000 + 4 * k
    else:  # well-shaped: 64 items x 4 loads per group
        group, item, seq = k // 256, ((k % 256) // 4).astype(np.int32), k % 4
        address = 0x10000 + 4 * ((group * 64 + item) * 4 + seq)
    return pa.table({
        "kernel": _codes("k", n), "launch": np.zeros(n, np.int32), "group": group, "item": item,
        "site": np.zeros(n, np.int32), "seq": seq, "space": _codes("global", n), "op": _codes("load", n),
        "address": address.astype(np.uint64), "size": np.full(n, 4, np.uint16),
        "buffer": np.zeros(n, np.int32)})


def write_launches(launches: int, path: Path) -> None:
    """A trace of ``launches`` one-access launches of 1,000 kernels (``--launches 1`` gives the
    reference: one launch with as many accesses)."""
    from tracekit.trace.store import conform, write_trace

    n = LAUNCH_ACCESSES
    per = n // launches  # accesses per launch: one-item groups of four loads
    k = np.arange(per * launches)
    launch = (k // per).astype(np.int32)
    names = np.char.add("kernel_", (np.arange(launches) % 1000).astype(str))
    acc = _batch("one-lane-groups", 0, len(k))
    for name, values in (("launch", pa.array(launch)), ("group", pa.array((k % per) // 4)),
                         ("seq", pa.array((k % per) % 4)),
                         ("kernel", pa.array(names[launch]).dictionary_encode())):
        acc = acc.set_column(acc.schema.get_field_index(name), name, values)
    dims = pa.array([[-(-per // 4), 1, 1]] * launches, pa.list_(pa.int64(), 3))
    ones = pa.array([[1, 1, 1]] * launches, pa.list_(pa.int64(), 3))
    table = conform(pa.table({"kernel": names, "launch": np.arange(launches, dtype=np.int32),
                              "global_size": dims, "local_size": ones,
                              "local_mem_bytes": np.zeros(launches, np.int64)}), "launches")
    write_trace(path, conform(acc, "accesses"), launches=table)


def write(shape: str, accesses: int, path: Path) -> None:
    """Write a trace of ``accesses`` accesses of ``shape`` to ``path`` (single-file layout)."""
    from tracekit.trace.store import TraceWriter, conform

    if shape == "one-item" or shape == "one-item-strided":
        groups, local = 1, 1
    elif shape == "one-lane-groups":
        groups, local = -(-accesses // 4), 1
    else:
        groups, local = -(-accesses // 256), 64
    with TraceWriter(path) as w:
        for lo in range(0, accesses, BATCH):
            w.write_accesses(_batch(shape, lo, min(accesses, lo + BATCH)))
        w.set_launches(conform(pa.table({
            "kernel": ["k"], "launch": pa.array([0], pa.int32()), "global_size": [[groups * local, 1, 1]],
            "local_size": [[local, 1, 1]], "local_mem_bytes": [0]}), "launches"))
        w.set_sites(conform(pa.table({"kernel": ["k"], "site": pa.array([0], pa.int32()), "opcode": ["load"],
                                      "file": ["k.cl"], "line": pa.array([1], pa.int32())}), "sites"))


def child(path: Path, target: str) -> None:
    """The measured process: ``tracekit analyze`` in-process, report beside the trace (with a
    target of ``info`` or ``validate``, that command instead, its output dropped)."""
    import contextlib

    from tracekit.cli import main

    args = (["info", "--json", str(path)] if target == "info" else ["validate", str(path)]
            if target == "validate" else
            ["analyze", str(path), "-t", target, "-f", "json", "-o", str(path.with_suffix(".json"))])
    try:
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            main(args)
    except SystemExit as exc:
        if exc.code:
            raise


def measure_launches(launches: int, tmp: Path) -> dict[str, tuple[float, float]]:
    """``info --json`` and ``validate`` on a trace of ``launches`` launches: (seconds, peak MB) each."""
    path = tmp / f"launches-{launches}.parquet"
    _run("--write-launches", str(launches), str(path))
    try:
        return {cmd: _run("--child", str(path), cmd) for cmd in ("info", "validate")}
    finally:
        path.unlink()


def _run(*args: str) -> tuple[float, float]:
    """Run this script with ``args`` in a child; (wall seconds, the child's own peak RSS in MB)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"child {' '.join(args)} failed:\n{err}")
    return wall, usage.ru_maxrss / 1024


def measure(shape: str, accesses: int, target: str, tmp: Path) -> tuple[float, float]:
    path = tmp / f"{shape}-{accesses}.parquet"
    _run("--write", shape, str(accesses), str(path))
    try:
        return _run("--child", str(path), target)
    finally:
        path.unlink()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--accesses", default="3e5,1e6,3e6", help="comma-separated access counts")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--target", default="adreno-640")
    ap.add_argument("--launches", type=int, default=100_000,
                    help="launches of the trace info and validate are timed on (0: skip)")
    ap.add_argument("--write", nargs=3, metavar=("SHAPE", "N", "PATH"), help=argparse.SUPPRESS)
    ap.add_argument("--write-launches", nargs=2, metavar=("N", "PATH"), help=argparse.SUPPRESS)
    ap.add_argument("--child", nargs=2, metavar=("PATH", "TARGET"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.write:
        return write(args.write[0], int(float(args.write[1])), Path(args.write[2]))
    if args.write_launches:
        return write_launches(int(float(args.write_launches[0])), Path(args.write_launches[1]))
    if args.child:
        return child(Path(args.child[0]), args.child[1])
    counts = [int(float(x)) for x in args.accesses.split(",")]
    shapes = [s for s in args.shapes.split(",") if s]
    if "well-shaped" not in shapes:
        shapes.append("well-shaped")
    tmp = Path(tempfile.mkdtemp(prefix="bench_hostile."))
    try:
        _, base = measure("well-shaped", 1000, args.target, tmp)
        print(f"baseline (1,000 accesses): peak RSS {base:.0f} MB   target {args.target}")
        print(f"{'shape':18} {'accesses':>11} {'peak MB':>8} {'B/access':>9} {'seconds':>8} "
              f"{'RSS vs well':>12}")
        worst, growth, last, before = 0.0, 0.0, {}, {}
        for n in counts:
            rows = {s: measure(s, n, args.target, tmp) for s in shapes}
            well = rows["well-shaped"][1]
            for s in shapes:
                wall, peak = rows[s]
                per = (peak - base) * 1e6 / n
                print(f"{s:18} {n:>11,} {peak:>8.0f} {per:>9.0f} {wall:>8.1f} {peak / well:>12.2f}")
                if n == counts[-1]:
                    worst = max(worst, per)
                    last[s] = (wall, peak)
                    if s in before and n > before[s][0]:  # growth from the previous count
                        growth = max(growth, (peak - before[s][1]) * 1e6 / (n - before[s][0]))
                else:
                    before[s] = (n, peak)
        many = {}
        if args.launches:
            one = measure_launches(1, tmp)
            many = measure_launches(args.launches, tmp)
            print(f"\n{LAUNCH_ACCESSES:,} accesses in 1 launch vs in {args.launches:,} launches:")
            for cmd in ("info", "validate"):
                print(f"  {cmd:9} {one[cmd][0]:6.1f} s {one[cmd][1]:6.0f} MB   vs   "
                      f"{many[cmd][0]:6.1f} s {many[cmd][1]:6.0f} MB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    n = counts[-1]
    well_wall, well_peak = last["well-shaped"]
    one_wall, one_peak = last.get("one-item", last["well-shaped"])
    print(f"RESULT name=hostile accesses={n} baseline_rss_mb={base:.0f} well_rss_mb={well_peak:.0f} "
          f"one_item_rss_mb={one_peak:.0f} one_item_rss_vs_well={one_peak / well_peak:.2f} "
          f"one_item_s={one_wall:.1f} well_s={well_wall:.1f} worst_bytes_per_access={worst:.0f} "
          f"worst_growth_bytes_per_access={growth:.0f} "
          + (f"info_{args.launches}_launches_s={many['info'][0]:.1f} "
             f"validate_{args.launches}_launches_s={many['validate'][0]:.1f} " if many else "")
          + f"within_budget={'yes' if growth <= BYTES_PER_ACCESS_BUDGET else 'no'}")


if __name__ == "__main__":
    main()
