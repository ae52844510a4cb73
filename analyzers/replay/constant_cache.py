"""The constant cache: where ``__constant`` loads go on targets that have one (``[constant_cache]``).

NVIDIA GPUs serve constant loads from a read-only cache of each SM, not from the L1
data cache; a miss reads its line from the L2.  :class:`ConstantCache` filters the
replay's cache stream (:func:`analyzers.replay.memory._cache_stream`): the units of
constant-space loads are looked up, per compute unit, in an LRU cache of the
target's geometry; hits leave the stream, misses become one load of the whole line
entering the data hierarchy at the ``next`` level (the levels before it are not
touched).  Everything else passes through unchanged and in order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from analyzers.replay.cache import TextureCacheStats
from tracekit.targets.model import Target


class ConstantCache:
    """One launch's constant caches (one per compute unit) and their counters."""

    def __init__(self, target: Target):
        spec = target.constant_cache
        self.spec = spec
        self.cus = max(1, int(target.compute_units))
        self.line_bits = spec.line_bytes.bit_length() - 1
        self.sets, self.ways = spec.sets, spec.ways
        self.entry_level = [c.name for c in target.caches].index(spec.next)
        self.tags = np.full(self.cus * self.sets * self.ways, -1, np.int64)
        self.stamps = np.zeros(self.cus * self.sets * self.ways, np.int64)
        self.clock = np.zeros(1, np.int64)
        self.counts = np.zeros(2, np.int64)  # hits, misses

    @classmethod
    def for_target(cls, target: Target) -> ConstantCache | None:
        if getattr(target, "constant_loads", "caches") != "constant_cache" or not target.caches:
            return None
        return cls(target)

    def carry(self, warm: ConstantCache) -> None:
        """Start from the lines ``warm`` holds, with counters at zero.

        A compute unit runs work-group after work-group, and the constants they all read stay
        in its constant cache: only the first groups on each unit miss.  A sample replayed
        twice (:mod:`analyzers.replay.warm_sample`) counts its second run from the first run's lines.
        """
        self.tags[:] = warm.tags
        self.stamps[:] = warm.stamps
        self.clock[:] = warm.clock
        self.counts[:] = 0

    def filter(self, addrs, ops, cus, constant, unit_bytes: int):
        """(addrs, ops, lengths, cus, levels) for the data hierarchy, constant hits removed."""
        keep, lens, levels, addrs = _filter(addrs, cus, constant, self.line_bits, self.sets, self.ways,
                                            self.tags, self.stamps, self.clock, self.counts, unit_bytes,
                                            self.entry_level)
        return addrs[keep], ops[keep], lens[keep], cus[keep], levels[keep]

    def level_stats(self) -> list[TextureCacheStats]:
        hits, misses = (int(x) for x in self.counts)
        return [TextureCacheStats.of("constant", "compute_unit", hits, misses)]


@njit(cache=True)
def _filter(addrs, cus, constant, line_bits, sets, ways, tags, stamps, clock, counts, unit_bytes, entry):
    n = addrs.shape[0]
    keep = np.ones(n, np.bool_)
    lens = np.full(n, unit_bytes, np.int64)
    levels = np.zeros(n, np.int64)
    out = addrs.copy()
    clk = clock[0]
    for i in range(n):
        if not constant[i]:
            continue
        line = out[i] >> line_bits
        base = (cus[i] * sets + line % sets) * ways
        clk += 1
        victim = base
        hit = False
        for w in range(base, base + ways):
            if tags[w] == line:
                stamps[w] = clk
                hit = True
                break
            if stamps[w] < stamps[victim]:
                victim = w
        if hit:
            counts[0] += 1
            keep[i] = False
            continue
        counts[1] += 1
        tags[victim] = line
        stamps[victim] = clk
        out[i] = line << line_bits
        lens[i] = np.int64(1) << line_bits
        levels[i] = entry
    clock[0] = clk
    return keep, lens, levels, out
