"""Cache replay throughput against pycachesim's batched mode, side by side in one run.

Both simulators get the same two-level hierarchy (a 16 KiB 4-way L1 and a 512 KiB
16-way L2, 64-byte lines, LRU) and the same streams of 4-byte loads: uniformly
random addresses and a strided sweep.  pycachesim gets a Python list (its fastest
input to ``CacheSimulator.load(addrs, length)``), ours a NumPy array; compile and
list conversion happen before timing.  Hit and miss counts are checked equal, and
the best of a few repetitions is compared.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from cachesim import Cache, CacheSimulator, MainMemory

from analyzers.cache import CacheHierarchy
from tracekit.targets.model import CacheLevel

L1 = CacheLevel("L1", "compute_unit", 16 * 1024, 64, 4)
L2 = CacheLevel("L2", "shared", 512 * 1024, 64, 16)


def pycachesim():
    mem = MainMemory()
    l2 = Cache("L2", L2.sets, L2.ways, L2.line_bytes, "LRU")
    mem.load_to(l2)
    mem.store_from(l2)
    l1 = Cache("L1", L1.sets, L1.ways, L1.line_bytes, "LRU", load_from=l2, store_to=l2)
    return CacheSimulator(l1, mem), (l1, l2)


def best(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(addrs: np.ndarray, reps: int):
    as_list = addrs.tolist()
    state = {}

    def ref():
        cs, levels = pycachesim()
        cs.load(as_list, length=4)
        state["ref"] = [(c.backend.HIT_count, c.backend.MISS_count) for c in levels]

    ours_h = CacheHierarchy([L1, L2])
    ours_h.load(addrs[:1000], 4)  # compile / load the cached machine code

    def ours():
        ours_h.reset()
        ours_h.load(addrs, 4)
        state["ours"] = [tuple(int(x) for x in row[:2]) for row in ours_h.counters()]

    t_ref = best(ref, reps)
    t_ours = best(ours, reps)
    if state["ref"] != state["ours"]:
        raise SystemExit(f"counts differ: pycachesim {state['ref']} ours {state['ours']}")
    return t_ref, t_ours, state["ours"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2_000_000, help="accesses per stream")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    streams = {
        "random": rng.integers(0, 1 << 26, args.n),
        "strided": (np.arange(args.n, dtype=np.int64) * 72) % (1 << 26),
    }
    ratios = {}
    print(f"{'stream':8} {'accesses':>10} {'pycachesim Macc/s':>18} {'tracekit Macc/s':>16} {'speedup':>8}"
          "  L1 (hit, miss)  L2 (hit, miss)")
    for name, addrs in streams.items():
        t_ref, t_ours, counts = measure(addrs, args.reps)
        ratios[name] = t_ref / t_ours
        print(f"{name:8} {args.n:>10} {args.n / t_ref / 1e6:>18.2f} {args.n / t_ours / 1e6:>16.2f} "
              f"{ratios[name]:>7.2f}x  {counts[0]}  {counts[1]}")
    print(f"RESULT name=cache random_speedup={ratios['random']:.2f} strided_speedup={ratios['strided']:.2f}")


if __name__ == "__main__":
    main()
