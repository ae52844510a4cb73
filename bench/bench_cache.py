"""Cache replay throughput against pycachesim's batched mode, side by side in one run.

Both simulators get the same two-level hierarchy (a 16 KiB 4-way L1 and a 512 KiB
16-way L2, 64-byte lines, LRU) and the same streams of 4-byte loads: uniformly
random addresses and a strided sweep.  pycachesim gets its batched call
``CacheSimulator.load(addrs, length)`` with a Python list, its fastest input (a
NumPy array is slower there, since every element becomes a NumPy scalar); ours a
NumPy array.  List conversion, building pycachesim's objects, resetting ours and
our kernel compile all happen outside the timed region, after one untimed warm-up
run of each.  Repetitions alternate between the two so that both see the same
machine load; each side's median is taken, in CPU time (``time.process_time``,
what the ratio is computed from, robust to other work on a shared machine) and
wall time.  Hit and miss counts are checked equal on every repetition.

``--index xor`` gives our levels the hashed set index (``CacheLevel.index``) and
keeps pycachesim's modulo hierarchy as the reference: the ratio then shows what the
hash costs, and counts are not compared (they differ by design).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

import numpy as np
from cachesim import Cache, CacheSimulator, MainMemory

from analyzers.replay import CacheHierarchy
from tracekit.targets.model import CacheLevel

L1 = CacheLevel("L1", "compute_unit", 16 * 1024, 64, 4)
L2 = CacheLevel("L2", "shared", 512 * 1024, 64, 16)
LENGTH = 4
GOAL = 5.0  # times pycachesim's throughput on both streams (CPU time), the replay engine's goal


def pycachesim():
    mem = MainMemory()
    l2 = Cache("L2", L2.sets, L2.ways, L2.line_bytes, "LRU")
    mem.load_to(l2)
    mem.store_from(l2)
    l1 = Cache("L1", L1.sets, L1.ways, L1.line_bytes, "LRU", load_from=l2, store_to=l2)
    return CacheSimulator(l1, mem), (l1, l2)


def timed(fn) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c0, time.perf_counter() - w0


def measure(addrs: np.ndarray, reps: int, index: str = "modulo") -> dict:
    as_list = addrs.tolist()
    ours = CacheHierarchy([dataclasses.replace(L1, index=index), dataclasses.replace(L2, index=index)])
    times = {"ref": [], "ours": []}
    counts = {}
    for rep in range(reps + 1):  # repetition 0 is the warm-up of both
        cs, levels = pycachesim()
        t_ref = timed(lambda cs=cs: cs.load(as_list, length=LENGTH))
        ref = [(c.backend.HIT_count, c.backend.MISS_count) for c in levels]
        ours.reset()
        t_ours = timed(lambda: ours.load(addrs, LENGTH))
        got = [tuple(int(x) for x in row[:2]) for row in ours.counters()]
        if got != ref and index == "modulo":
            raise SystemExit(f"counts differ: pycachesim {ref} ours {got}")
        counts = got
        if rep:
            times["ref"].append(t_ref)
            times["ours"].append(t_ours)
    med = {k: tuple(statistics.median(t[i] for t in v) for i in range(2)) for k, v in times.items()}
    return {"cpu": (med["ref"][0], med["ours"][0]), "wall": (med["ref"][1], med["ours"][1]), "counts": counts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=4_000_000, help="accesses per stream")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions per side (median)")
    ap.add_argument("--index", choices=("modulo", "xor"), default="modulo", help="our levels' set index")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    streams = {
        "random": rng.integers(0, 1 << 26, args.n),
        "strided": (np.arange(args.n, dtype=np.int64) * 72) % (1 << 26),
    }
    ratios, ref_rate = {}, {}
    print(f"{'stream':8} {'accesses':>10} {'time':>5} {'pycachesim Macc/s':>18} {'tracekit Macc/s':>16} "
          f"{'speedup':>8}  L1 (hit, miss)  L2 (hit, miss)")
    for name, addrs in streams.items():
        m = measure(addrs, args.reps, args.index)
        for metric in ("cpu", "wall"):
            t_ref, t_ours = m[metric]
            ratio = t_ref / t_ours
            ratios[(name, metric)] = ratio
            ref_rate[(name, metric)] = args.n / t_ref / 1e6
            print(f"{name:8} {args.n:>10} {metric:>5} {args.n / t_ref / 1e6:>18.2f} "
                  f"{args.n / t_ours / 1e6:>16.2f} {ratio:>7.2f}x  {m['counts'][0]}  {m['counts'][1]}")
    ok = all(ratios[(name, "cpu")] >= GOAL for name in streams)
    print(f"RESULT name=cache index={args.index} random_speedup={ratios[('random', 'cpu')]:.2f} "
          f"strided_speedup={ratios[('strided', 'cpu')]:.2f} "
          f"random_speedup_wall={ratios[('random', 'wall')]:.2f} "
          f"strided_speedup_wall={ratios[('strided', 'wall')]:.2f} "
          f"pycachesim_random_macc_per_cpu_s={ref_rate[('random', 'cpu')]:.2f} "
          f"pycachesim_strided_macc_per_cpu_s={ref_rate[('strided', 'cpu')]:.2f} "
          f"goal_speedup={GOAL} within_budget={'yes' if ok else 'no'}")

if __name__ == "__main__":
    main()
