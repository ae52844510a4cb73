"""Set-associative LRU cache hierarchy, replayed access by access in compiled code.

The hierarchy is a chain of levels taken from ``Target.caches`` (nearest first);
each level is either private to a compute unit (one instance per unit) or shared.
Levels are wired the way pycachesim wires them (``load_from`` / ``store_to``: a
miss loads the missing unit from the next level, a dirty eviction stores it to the
next level, the last level talks to DRAM), and the semantics follow pycachesim's
so that its hit and miss counts are a usable reference:

* load: hit if the unit is present (refreshes LRU); a miss loads the unit from
  below and installs it, evicting the least recently used line of the set;
* store, write-allocate: a missing unit is first loaded like a load miss, then
  marked dirty (write-back) -- this holds for write-backs arriving from the level
  above as well;
* store, no write-allocate: write-back levels install the unit dirty without a
  fill; write-through levels pass the store down (hit or miss);
* a store hit refreshes LRU unless ``store_touches_lru=False`` (pycachesim's
  convention, used to compare against it).

A level's set of a line is the line address modulo the set count, or, for levels
with ``index = "xor"``, that address with its upper bits XOR-folded onto the set
bits first (:func:`analyzers.replay.cache_kernels.set_index`): hashed caches do not
thrash on the power-of-two pitches that pile modulo-indexed lines into few sets.

Sectored levels (``sector_bytes``) keep one tag per line and a valid and a dirty
bit per sector; the unit of hit, miss, fill and write-back is then the sector.

Counters per level: load hits/misses, store hits/misses, dirty evictions; DRAM
bytes read and written.  ``hits``/``misses`` add loads and stores.  The replay is
compiled per geometry (:mod:`analyzers.replay.cache_kernels`): one NumPy state array per
level, an inline walk down the levels for loads, and an explicit work stack instead
of recursion for everything else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from analyzers.replay.cache_kernels import LevelGeometry, block_entries, empty_stamp, kernels
from tracekit.errors import TargetError
from tracekit.targets.model import CacheLevel, Target
from tracekit.targets.schema import SET_INDEXES

LOAD = 0
STORE = 1
_ADDR_MASK = (1 << 63) - 1


_NO_DEPTH = np.zeros(0, np.int64)  # the kernels' "no per-access depth wanted"


def _log2(n: int, what: str) -> int:
    if n <= 0 or n & (n - 1):
        raise TargetError(f"{what} must be a positive power of two, got {n}")
    return n.bit_length() - 1


def _per_access(x, n: int, name: str) -> np.ndarray:
    a = np.ascontiguousarray(np.atleast_1d(np.asarray(x)).astype(np.int64, copy=False))
    if a.shape[0] not in (1, n):
        raise ValueError(f"{name} must be a scalar or have one entry per access")
    return a


@dataclass
class LevelStats:
    """Counters of one cache level, summed over its instances."""

    level: str
    scope: str
    instances: int
    load_hits: int
    load_misses: int
    store_hits: int
    store_misses: int
    evictions: int

    @property
    def hits(self) -> int:
        return self.load_hits + self.store_hits

    @property
    def misses(self) -> int:
        return self.load_misses + self.store_misses

    @property
    def hit_rate(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


@dataclass(frozen=True)
class TextureCacheStats:
    """One read-only cache's counts (recorded work-groups): a texture cache's image reads, or the
    constant cache's constant loads."""

    level: str
    scope: str
    hits: int
    misses: int
    hit_rate: float

    @classmethod
    def of(cls, level: str, scope: str, hits: int, misses: int) -> TextureCacheStats:
        hits, misses = int(hits), int(misses)
        return cls(level, scope, hits, misses, hits / (hits + misses) if hits + misses else 0.0)

    def to_dict(self) -> dict:
        return asdict(self)


class CacheHierarchy:
    """A target's cache chain with batch calls (``load``, ``store``, ``access``).

    State persists across calls until :meth:`reset`; call :meth:`flush` at the end
    of a kernel so dirty data counts as DRAM writes.
    """

    def __init__(self, levels: Sequence[CacheLevel], compute_units: int = 1, *,
                 store_touches_lru: bool = True, max_stack: int = 4096):
        if not levels:
            raise TargetError("a cache hierarchy needs at least one level")
        self.levels = tuple(levels)
        self.compute_units = max(1, int(compute_units))
        self.store_touches_lru = store_touches_lru
        geoms = []
        for lv in levels:
            lbits = _log2(lv.line_bytes, f"caches.{lv.name}.line_bytes")
            unit = lv.sector_bytes or lv.line_bytes
            ubits = _log2(unit, f"caches.{lv.name}.sector_bytes")
            if ubits > lbits:
                raise TargetError(f"caches.{lv.name}: sector_bytes {unit} does not divide line_bytes")
            if lbits - ubits > 4:  # the dirty mask shares a word with the LRU stamp
                raise TargetError(f"caches.{lv.name}: at most 16 sectors per line are modelled, "
                                  f"got {lv.line_bytes // unit}")
            if lv.sets <= 0 or lv.sets * lv.ways * lv.line_bytes != lv.size_bytes:
                raise TargetError(f"caches.{lv.name}: size_bytes {lv.size_bytes} is not "
                                  f"line_bytes x ways x sets")
            if lv.scope not in ("compute_unit", "shared"):
                raise TargetError(f"caches.{lv.name}.scope must be compute_unit or shared, got {lv.scope!r}")
            if lv.write_policy not in ("write_back", "write_through"):
                raise TargetError(f"caches.{lv.name}.write_policy must be write_back or write_through")
            index = getattr(lv, "index", "modulo")
            if index not in SET_INDEXES:
                raise TargetError(f"caches.{lv.name}.index must be one of {', '.join(SET_INDEXES)}, "
                                  f"got {index!r}")
            fetch = int(getattr(lv, "fetch_bytes", 0) or 0)
            fbits = 0
            if fetch:
                _log2(fetch, f"caches.{lv.name}.fetch_bytes")
            if fetch > unit:
                fbits = _log2(fetch // unit, f"caches.{lv.name}.fetch_bytes")
                if fbits > lbits - ubits or lv is not levels[-1]:
                    raise TargetError(f"caches.{lv.name}.fetch_bytes {fetch}: a fetch block of the last "
                                      "level's sectors, at most one line, is modelled")
            geoms.append(LevelGeometry(lv.sets, lv.ways, ubits, lbits - ubits, lv.scope == "compute_unit",
                                       lv.write_policy == "write_back", bool(lv.write_allocate), index,
                                       fbits))
        self._geoms = tuple(geoms)
        kernels(self._geoms)  # generate and import the kernel module up front
        self._stack = np.zeros((max_stack, 4), dtype=np.int64)
        self.reset()

    @classmethod
    def from_target(cls, target: Target, **kw) -> CacheHierarchy:
        return cls(target.caches, target.compute_units, **kw)

    @property
    def continuing(self) -> bool:
        """Whether the next :meth:`access` continues the stream of the last one.

        By default each call starts a stream of its own (the just-loaded unit and the
        sectors in flight are forgotten between calls); a replay that cuts one stream into
        several calls sets this so the pieces give what the whole would."""
        return bool(self._clock[1])

    @continuing.setter
    def continuing(self, on: bool) -> None:
        self._clock[1] = int(bool(on))

    @property
    def first_unit_bytes(self) -> int:
        """Bytes of the first level's unit of hit and miss (sector or line)."""
        return 1 << self._geoms[0].unit_bits

    def _empty_state(self, g: LevelGeometry) -> np.ndarray:
        # one block per (instance, set): the tags of its ways, their LRU stamps (dirty
        # sector mask in the low bits) and, when sectored, their valid sector masks
        ninst = self.compute_units if g.per_cu else 1
        st = np.zeros((ninst * g.sets, block_entries(g) // g.ways, g.ways), dtype=np.int64)
        st[:, 0, :] = -1  # empty ways: no tag, and the oldest stamp, so they are taken first
        st[:, 1, :] = empty_stamp(g)
        return st.reshape(-1)

    def reset(self) -> None:
        """Empty every level and zero the counters."""
        self._states = tuple(self._empty_state(g) for g in self._geoms)
        # the LRU clock, then whether a call continues the last one's stream and the stream
        # state the kernel carries from one access to the next (last unit and compute unit,
        # the sectors the last miss fetched): see :attr:`continuing`
        self._clock = np.zeros(7, dtype=np.int64)
        self._stats = np.zeros((len(self.levels), 5), dtype=np.int64)
        self._dram = np.zeros(2, dtype=np.int64)

    def _settle(self, keep_units: bool, keep_shared: bool) -> None:
        """Write the per-unit levels' dirty data below, empty the levels not kept, zero the counters."""
        for k, g in enumerate(self._geoms):
            if g.per_cu and g.write_back:
                self._flush_level(k)
        for k, g in enumerate(self._geoms):
            if not (keep_units if g.per_cu else keep_shared):
                self._states[k][:] = self._empty_state(g)
        self._stats[:] = 0
        self._dram[:] = 0

    def settle_shared(self) -> None:
        """Keep what the shared levels hold; empty the per-unit levels and zero every counter.

        A sampled launch's replay runs its recorded work-groups once to fill the shared
        levels, calls this, and counts a second run: the shared levels then hold data as
        they do in the middle of the launch, when other work-groups have touched the same
        kind of data, while each work-group still meets its compute unit's caches cold.
        Dirty data of a per-unit level is first written to the level below, as a flush does.
        """
        self._settle(keep_units=False, keep_shared=True)

    def settle_units(self) -> None:
        """Keep what the per-unit levels hold (written back, so clean); empty the shared levels and
        zero every counter.

        The counterpart of :meth:`settle_shared` for a sample replayed without a footprint: a
        compute unit of the whole launch runs many work-groups one after the other, so data
        they all read (SpMV's vector, a filter's coefficients) waits in its first level, while
        the shared levels stay as the plain sampled replay has them, cold.
        """
        self._settle(keep_units=True, keep_shared=False)

    def settle_all(self) -> None:
        """Keep what every level holds (per-unit levels written back, so clean); zero every counter.

        For a sample replayed with a footprint whose groups are enough to warm each other's
        compute units (:func:`analyzers.replay.warm_sample.replay_warm`): the shared levels and the
        per-unit ones are then both as they are mid-launch.
        """
        self._settle(keep_units=True, keep_shared=True)

    def access(self, addrs, *, ops=None, lengths=1, cus=0, levels=0, depth: np.ndarray | None = None) -> None:
        """Replay accesses in order: byte ranges ``[addr, addr + length)``.

        ``ops`` holds :data:`LOAD`/:data:`STORE` per access (default all loads);
        ``cus`` the compute unit that issued each (scalar or array); ``levels`` the
        level each enters at (0, the nearest, by default; a later level skips the ones
        before it).  ``depth`` (int64, one per access, set to -1 by the caller) receives
        the farthest level a load found its data at (``len(levels)``: DRAM); stores and
        loads entering below the first level are left at -1.  A request waits for its
        slowest line, so the latency model needs where each request's lines came from,
        not only each level's hit rate (:func:`analyzers.replay.inflight.request_depths`).
        """
        addrs = np.asarray(addrs)
        if addrs.dtype != np.int64 or (addrs.size and addrs.min() < 0):
            addrs = (addrs.astype(np.uint64) & np.uint64(_ADDR_MASK)).astype(np.int64)
        addrs = np.ascontiguousarray(addrs)
        n = addrs.shape[0]
        ops, lens, cus, firsts = (_per_access(x, n, name) for x, name in
                                  ((LOAD if ops is None else ops, "ops"), (lengths, "lengths"), (cus, "cus"),
                                   (levels, "levels")))
        if n and (firsts.min() < 0 or firsts.max() >= len(self.levels)):
            raise ValueError(f"entry level out of range 0..{len(self.levels) - 1}")
        if n and (cus.min() < 0 or cus.max() >= self.compute_units):
            raise ValueError(f"compute unit out of range 0..{self.compute_units - 1}")
        if n and lens.min() <= 0:
            raise ValueError("access lengths must be positive")
        if n and ops.shape[0] > 1 and (ops.min() < LOAD or ops.max() > STORE):
            raise ValueError("ops must be LOAD (0) or STORE (1)")
        if depth is not None and depth.shape[0] != n:
            raise ValueError(f"depth has {depth.shape[0]} entries for {n} accesses")
        self._run(cus, ops, addrs, lens, firsts, _NO_DEPTH if depth is None else depth)

    def _run(self, cus, ops, addrs, lens, firsts: np.ndarray, depth: np.ndarray) -> None:
        kernels(self._geoms).run(self._states, self._stats, self._dram, self._stack, self._clock,
                                 cus, ops, addrs, lens, self.store_touches_lru, firsts, depth)

    def load(self, addrs, length=1, cu=0) -> None:
        self.access(addrs, lengths=length, cus=cu)

    def store(self, addrs, length=1, cu=0) -> None:
        self.access(addrs, ops=STORE, lengths=length, cus=cu)

    def flush(self) -> None:
        """Write all dirty data back to DRAM (counted in :attr:`dram_bytes_written` only).

        Level by level, nearest first: the dirty units of a level, in set, way and
        sector order, become stores entering the next level (which may make that
        level dirty in turn, flushed next).  None of it counts as hits, misses or
        evictions.
        """
        counted = self._stats.copy()
        for k, g in enumerate(self._geoms):
            if g.write_back:
                self._flush_level(k)
        self._stats[:] = counted

    def _flush_level(self, k: int) -> None:
        """Level k's dirty units, in set, way and sector order, become stores entering level k+1."""
        g = self._geoms[k]
        nsec = 1 << g.sector_bits
        block = self._states[k].reshape(-1, block_entries(g) // g.ways, g.ways)
        dirty = block[:, 1, :] & ((1 << nsec) - 1)
        blk, way = np.nonzero(dirty)
        if not blk.size:
            return
        masks = dirty[blk, way]
        block[blk, 1, way] ^= masks
        entry, sec = np.nonzero((masks[:, None] >> np.arange(nsec)) & 1)
        units = (block[blk[entry], 0, way[entry]] << g.sector_bits) + sec
        self._run(np.ascontiguousarray(blk[entry] // g.sets, dtype=np.int64),
                  np.array([STORE], dtype=np.int64), units << g.unit_bits,
                  np.array([1 << g.unit_bits], dtype=np.int64), np.array([k + 1], dtype=np.int64), _NO_DEPTH)

    @property
    def dram_bytes_read(self) -> int:
        return int(self._dram[LOAD])

    @property
    def dram_bytes_written(self) -> int:
        return int(self._dram[STORE])

    def counters(self) -> np.ndarray:
        """Raw counters, one row per level: load hits, load misses, store hits, store misses, evictions."""
        return self._stats.copy()

    def stats(self) -> list[LevelStats]:
        out = []
        for lv, row in zip(self.levels, self._stats, strict=True):
            ninst = self.compute_units if lv.scope == "compute_unit" else 1
            out.append(LevelStats(lv.name, lv.scope, ninst, *(int(x) for x in row)))
        return out
