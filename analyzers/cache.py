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

Sectored levels (``sector_bytes``) keep one tag per line and a valid and a dirty
bit per sector; the unit of hit, miss, fill and write-back is then the sector.

Counters per level: load hits/misses, store hits/misses, dirty evictions; DRAM
bytes read and written.  ``hits``/``misses`` add loads and stores.  The inner loop
is one numba function working on flat NumPy state arrays (tag, valid and dirty
sector masks, LRU stamps) with an explicit work stack instead of recursion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from tracekit.errors import TargetError
from tracekit.targets.model import CacheLevel, Target

LOAD = 0
STORE = 1
_ADDR_MASK = (1 << 63) - 1

# cfg columns
_SETS, _WAYS, _UBITS, _SBITS, _PERCU, _OFF, _WB, _WA, _SMASK = range(9)
# stats columns
_LH, _LM, _SH, _SM, _EV = range(5)


@njit(cache=True, inline="always", error_model="numpy")
def _find(tag, base, ways, line):
    # an empty way holds tag -1, so only the tag array is scanned
    for w in range(ways):
        if tag[base + w] == line:
            return w
    return -1


@njit(cache=True, inline="always", error_model="numpy")
def _scan(tag, stamp, base, line, n):
    best = 0
    best_s = stamp[base + n]
    for w in range(n):
        if tag[base + w] == line:
            return w
        if stamp[base + n + w] < best_s:
            best = w
            best_s = stamp[base + n + w]
    return -1 - best


@njit(cache=True, inline="always", error_model="numpy")
def _find_or_victim(tag, stamp, base, ways, line):
    """One pass: the way holding ``line`` (>= 0), else -1 - (least recently used way).

    Common associativities get a loop of constant length, which the compiler unrolls.
    """
    if ways == 4:
        return _scan(tag, stamp, base, line, 4)
    if ways == 8:
        return _scan(tag, stamp, base, line, 8)
    if ways == 16:
        return _scan(tag, stamp, base, line, 16)
    if ways == 2:
        return _scan(tag, stamp, base, line, 2)
    if ways == 32:
        return _scan(tag, stamp, base, line, 32)
    return _scan(tag, stamp, base, line, ways)


@njit(cache=True, inline="always", error_model="numpy")
def _victim(stamp, base, ways):
    # empty ways carry stamp -1 and so are taken first
    best = 0
    best_s = stamp[base + ways]
    for w in range(1, ways):
        if stamp[base + ways + w] < best_s:
            best = w
            best_s = stamp[base + ways + w]
    return best


@njit(cache=True, inline="always", error_model="numpy")
def _set_of(line, sets, smask):
    # a mask when the set count is a power of two: integer modulo costs tens of cycles
    return line & smask if smask >= 0 else line % sets


@njit(cache=True, error_model="numpy")
def _split(stack, sp, op, lvl, a, ln, first, last, ub):
    for u in range(last, first - 1, -1):  # pushed in reverse so the lowest unit runs first
        lo = max(a, u << ub)
        hi = min(a + ln, (u + 1) << ub)
        stack[sp, 0] = op
        stack[sp, 1] = lvl
        stack[sp, 2] = lo
        stack[sp, 3] = hi - lo
        sp += 1
    return sp


@njit(cache=True, error_model="numpy")
def _drain(cfg, tag, valid, dirty, stamp, clock, stats, dram, stack, sp, cu, touch_lru, counting):
    """Process the work stack until empty (depth first, like pycachesim's recursion)."""
    nlev = cfg.shape[0]
    while sp > 0:
        sp -= 1
        op = stack[sp, 0]
        lvl = stack[sp, 1]
        a = stack[sp, 2]
        ln = stack[sp, 3]
        if lvl == nlev:
            dram[op] += ln
            continue
        ub = cfg[lvl, _UBITS]
        first = a >> ub
        last = (a + ln - 1) >> ub
        if last > first:
            sp = _split(stack, sp, op, lvl, a, ln, first, last, ub)
            continue
        u = first
        sbits = cfg[lvl, _SBITS]
        ways = cfg[lvl, _WAYS]
        sets = cfg[lvl, _SETS]
        line = u >> sbits
        bit = np.int64(1) << (u & ((np.int64(1) << sbits) - 1))
        inst = cu if cfg[lvl, _PERCU] != 0 else 0
        base = cfg[lvl, _OFF] + (inst * sets + _set_of(line, sets, cfg[lvl, _SMASK])) * 4 * ways
        w = _find(tag, base, ways, line)
        present = w >= 0 and (valid[base + 2 * ways + w] & bit) != 0
        wb = cfg[lvl, _WB] != 0
        if op == LOAD:
            if present:
                if counting:
                    stats[lvl, _LH] += 1
                clock[0] += 1
                stamp[base + ways + w] = clock[0]
                continue
            if counting:
                stats[lvl, _LM] += 1
            fill = True
            new_dirty = np.int64(0)
        else:
            if present:
                if counting:
                    stats[lvl, _SH] += 1
                if touch_lru:
                    clock[0] += 1
                    stamp[base + ways + w] = clock[0]
                if wb:
                    dirty[base + 3 * ways + w] |= bit
                else:
                    stack[sp, 0] = STORE
                    stack[sp, 1] = lvl + 1
                    stack[sp, 2] = a
                    stack[sp, 3] = ln
                    sp += 1
                continue
            if counting:
                stats[lvl, _SM] += 1
            if cfg[lvl, _WA] != 0:
                fill = True
                new_dirty = bit if wb else np.int64(0)
                if not wb:
                    stack[sp, 0] = STORE
                    stack[sp, 1] = lvl + 1
                    stack[sp, 2] = a
                    stack[sp, 3] = ln
                    sp += 1
            elif wb:
                fill = False
                new_dirty = bit
            else:
                stack[sp, 0] = STORE
                stack[sp, 1] = lvl + 1
                stack[sp, 2] = a
                stack[sp, 3] = ln
                sp += 1
                continue
        # allocate (or complete a sector) -- state changes now, lower-level work via the stack
        clock[0] += 1
        if w >= 0:
            valid[base + 2 * ways + w] |= bit
            dirty[base + 3 * ways + w] |= new_dirty
            stamp[base + ways + w] = clock[0]
        else:
            v = _victim(stamp, base, ways)
            if valid[base + 2 * ways + v] != 0 and wb and dirty[base + 3 * ways + v] != 0:
                if counting:
                    stats[lvl, _EV] += 1
                d = dirty[base + 3 * ways + v]
                nsec = np.int64(1) << sbits
                for s in range(nsec - 1, -1, -1):  # stores run after the fill below
                    if (d >> s) & 1:
                        stack[sp, 0] = STORE
                        stack[sp, 1] = lvl + 1
                        stack[sp, 2] = ((tag[base + v] << sbits) + s) << ub
                        stack[sp, 3] = np.int64(1) << ub
                        sp += 1
            tag[base + v] = line
            valid[base + 2 * ways + v] = bit
            dirty[base + 3 * ways + v] = new_dirty
            stamp[base + ways + v] = clock[0]
        if fill:
            stack[sp, 0] = LOAD
            stack[sp, 1] = lvl + 1
            stack[sp, 2] = u << ub
            stack[sp, 3] = np.int64(1) << ub
            sp += 1
    return sp


@njit(cache=True, error_model="numpy")
def _run(cfg, tag, valid, dirty, stamp, clock, stats, dram, stack, cus, ops, addrs, lens, touch_lru):
    """Replay a batch of accesses (byte ranges) in order.

    ``cus``, ``ops`` and ``lens`` have one entry per access or a single entry for all.
    A load walks down the levels in a plain loop, one first-level unit at a time
    (while units do not shrink towards DRAM one unit maps onto one unit below); dirty
    victims it displaces are written back afterwards, deepest level first, which is
    the order pycachesim's recursion produces.  Everything else goes through
    :func:`_drain`.
    """
    nlev = cfg.shape[0]
    pend_lvl = np.zeros(nlev, np.int64)
    pend_tag = np.zeros(nlev, np.int64)
    pend_dirty = np.zeros(nlev, np.int64)
    reach = np.zeros(nlev + 1, np.int64)  # fast-path walks by the level they stopped at
    ub0 = cfg[0, _UBITS]
    nl = lens.shape[0] > 1
    nc = cus.shape[0] > 1
    no = ops.shape[0] > 1
    last_u = np.int64(-1)
    last_cu = np.int64(-1)
    last_op = np.int64(-1)
    clk = clock[0]
    for i in range(addrs.shape[0]):
        ln = lens[i if nl else 0]
        cu = cus[i if nc else 0]
        op = ops[i if no else 0]
        if op != LOAD:
            last_op = -1
            stack[0, 0] = op
            stack[0, 1] = 0
            stack[0, 2] = addrs[i]
            stack[0, 3] = ln
            clock[0] = clk
            _drain(cfg, tag, valid, dirty, stamp, clock, stats, dram, stack, 1, cu, touch_lru, True)
            clk = clock[0]
            continue
        # a load walks each first-level unit it touches, lowest first (pycachesim's order)
        for u0 in range(addrs[i] >> ub0, ((addrs[i] + ln - 1) >> ub0) + 1):
            if u0 == last_u and cu == last_cu and last_op == LOAD:
                stats[0, _LH] += 1  # the unit just loaded is still present and already most recent
                continue
            last_u = u0
            last_cu = cu
            last_op = LOAD
            a = u0 << ub0
            npend = 0
            lvl = 0
            shrink = False
            while lvl < nlev:
                ub = cfg[lvl, _UBITS]
                sbits = cfg[lvl, _SBITS]
                ways = cfg[lvl, _WAYS]
                sets = cfg[lvl, _SETS]
                u = a >> ub
                line = u >> sbits
                bit = np.int64(1) << (u & ((np.int64(1) << sbits) - 1))
                inst = cu if cfg[lvl, _PERCU] != 0 else 0
                base = cfg[lvl, _OFF] + (inst * sets + _set_of(line, sets, cfg[lvl, _SMASK])) * 4 * ways
                w = _find_or_victim(tag, stamp, base, ways, line)
                clk += 1
                if w >= 0 and (sbits == 0 or (valid[base + 2 * ways + w] & bit) != 0):
                    stamp[base + ways + w] = clk
                    break
                if w >= 0:
                    valid[base + 2 * ways + w] |= bit
                    stamp[base + ways + w] = clk
                else:
                    v = base - 1 - w
                    if dirty[v + 3 * ways] != 0 and valid[v + 2 * ways] != 0 and cfg[lvl, _WB] != 0:
                        stats[lvl, _EV] += 1
                        pend_lvl[npend] = lvl
                        pend_tag[npend] = tag[v]
                        pend_dirty[npend] = dirty[v + 3 * ways]
                        npend += 1
                    tag[v] = line
                    valid[v + 2 * ways] = bit
                    dirty[v + 3 * ways] = 0
                    stamp[v + ways] = clk
                a = u << ub
                ln = np.int64(1) << ub
                lvl += 1
                if lvl < nlev and cfg[lvl, _UBITS] < ub:
                    shrink = True  # the unit shrinks below: the fill spans several units there
                    break
            # hits where the walk stopped, misses on every level above it (one update per walk)
            reach[lvl] += 1
            if lvl < nlev and not shrink:
                stats[lvl, _LH] += 1
            if shrink:
                stack[0, 0] = LOAD
                stack[0, 1] = lvl
                stack[0, 2] = a
                stack[0, 3] = ln
                clock[0] = clk
                _drain(cfg, tag, valid, dirty, stamp, clock, stats, dram, stack, 1, cu, touch_lru, True)
                clk = clock[0]
            elif lvl == nlev:
                dram[LOAD] += ln
            if npend:
                clock[0] = clk
            for k in range(npend - 1, -1, -1):
                lv = pend_lvl[k]
                sbits = cfg[lv, _SBITS]
                ub = cfg[lv, _UBITS]
                sp = 0
                for s in range((np.int64(1) << sbits) - 1, -1, -1):
                    if (pend_dirty[k] >> s) & 1:
                        stack[sp, 0] = STORE
                        stack[sp, 1] = lv + 1
                        stack[sp, 2] = ((pend_tag[k] << sbits) + s) << ub
                        stack[sp, 3] = np.int64(1) << ub
                        sp += 1
                _drain(cfg, tag, valid, dirty, stamp, clock, stats, dram, stack, sp, cu, touch_lru, True)
                clk = clock[0]
    clock[0] = clk
    deeper = 0  # a walk that stopped at level e missed on every level above e
    for lvl in range(nlev - 1, -1, -1):
        deeper += reach[lvl + 1]
        stats[lvl, _LM] += deeper


@njit(cache=True, error_model="numpy")
def _flush(cfg, tag, valid, dirty, stamp, clock, stats, dram, stack, ncu, touch_lru):
    """Write every dirty unit back level by level (not counted as hits or misses)."""
    nlev = cfg.shape[0]
    for lvl in range(nlev):
        if cfg[lvl, _WB] == 0:
            continue
        ninst = ncu if cfg[lvl, _PERCU] != 0 else 1
        sets = cfg[lvl, _SETS]
        ways = cfg[lvl, _WAYS]
        sbits = cfg[lvl, _SBITS]
        ub = cfg[lvl, _UBITS]
        for blk in range(ninst * sets):
            for w in range(ways):
                e = cfg[lvl, _OFF] + blk * 4 * ways + w
                d = dirty[e + 3 * ways]
                if valid[e + 2 * ways] == 0 or d == 0:
                    continue
                dirty[e + 3 * ways] = 0
                for s in range(np.int64(1) << sbits):
                    if (d >> s) & 1:
                        stack[0, 0] = STORE
                        stack[0, 1] = lvl + 1
                        stack[0, 2] = ((tag[e] << sbits) + s) << ub
                        stack[0, 3] = np.int64(1) << ub
                        _drain(cfg, tag, valid, dirty, stamp, clock, stats, dram, stack, 1,
                               blk // sets, touch_lru, False)


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
        cfg = np.zeros((len(levels), 9), dtype=np.int64)
        off = 0
        for i, lv in enumerate(levels):
            lbits = _log2(lv.line_bytes, f"caches.{lv.name}.line_bytes")
            unit = lv.sector_bytes or lv.line_bytes
            ubits = _log2(unit, f"caches.{lv.name}.sector_bytes")
            if ubits > lbits or lbits - ubits > 62:
                raise TargetError(f"caches.{lv.name}: sector_bytes {unit} does not divide line_bytes")
            if lv.sets <= 0 or lv.sets * lv.ways * lv.line_bytes != lv.size_bytes:
                raise TargetError(f"caches.{lv.name}: size_bytes {lv.size_bytes} is not "
                                  f"line_bytes x ways x sets")
            if lv.scope not in ("compute_unit", "shared"):
                raise TargetError(f"caches.{lv.name}.scope must be compute_unit or shared, got {lv.scope!r}")
            if lv.write_policy not in ("write_back", "write_through"):
                raise TargetError(f"caches.{lv.name}.write_policy must be write_back or write_through")
            percu = lv.scope == "compute_unit"
            ninst = self.compute_units if percu else 1
            cfg[i] = (lv.sets, lv.ways, ubits, lbits - ubits, int(percu), off,
                      int(lv.write_policy == "write_back"), int(lv.write_allocate),
                      lv.sets - 1 if lv.sets & (lv.sets - 1) == 0 else -1)
            off += ninst * lv.sets * lv.ways * 4
        self._cfg = cfg
        self._entries = off
        self._stack = np.zeros((max_stack, 4), dtype=np.int64)
        self.reset()

    @classmethod
    def from_target(cls, target: Target, **kw) -> CacheHierarchy:
        return cls(target.caches, target.compute_units, **kw)

    @property
    def first_unit_bytes(self) -> int:
        """Bytes of the first level's unit of hit and miss (sector or line)."""
        return 1 << int(self._cfg[0, _UBITS])

    def reset(self) -> None:
        """Empty every level and zero the counters."""
        # one array, one block per set: tags, LRU stamps, valid masks, dirty masks of its ways
        # (the kernels take it four times under those names and offset by multiples of ways)
        st = np.zeros(self._entries, dtype=np.int64)
        for row in self._cfg:
            ninst = self.compute_units if row[_PERCU] else 1
            view = st[row[_OFF]: row[_OFF] + ninst * row[_SETS] * 4 * row[_WAYS]].reshape(-1, 4, row[_WAYS])
            view[:, 0, :] = -1  # empty ways: tag -1
            view[:, 1, :] = -1  # and stamp -1, so they are taken first
        self._tag = self._valid = self._dirty = self._stamp = st
        self._clock = np.zeros(1, dtype=np.int64)
        self._stats = np.zeros((len(self.levels), 5), dtype=np.int64)
        self._dram = np.zeros(2, dtype=np.int64)

    def access(self, addrs, *, ops=None, lengths=1, cus=0) -> None:
        """Replay accesses in order: byte ranges ``[addr, addr + length)``.

        ``ops`` holds :data:`LOAD`/:data:`STORE` per access (default all loads);
        ``cus`` the compute unit that issued each (scalar or array).
        """
        addrs = np.asarray(addrs)
        if addrs.dtype != np.int64 or (addrs.size and addrs.min() < 0):
            addrs = (addrs.astype(np.uint64) & np.uint64(_ADDR_MASK)).astype(np.int64)
        addrs = np.ascontiguousarray(addrs)
        n = addrs.shape[0]
        ops, lens, cus = (_per_access(x, n, name) for x, name in
                          ((LOAD if ops is None else ops, "ops"), (lengths, "lengths"), (cus, "cus")))
        if n and (cus.min() < 0 or cus.max() >= self.compute_units):
            raise ValueError(f"compute unit out of range 0..{self.compute_units - 1}")
        if n and lens.min() <= 0:
            raise ValueError("access lengths must be positive")
        _run(self._cfg, self._tag, self._valid, self._dirty, self._stamp, self._clock, self._stats,
             self._dram, self._stack, cus, ops, addrs, lens, self.store_touches_lru)

    def load(self, addrs, length=1, cu=0) -> None:
        self.access(addrs, lengths=length, cus=cu)

    def store(self, addrs, length=1, cu=0) -> None:
        self.access(addrs, ops=STORE, lengths=length, cus=cu)

    def flush(self) -> None:
        """Write all dirty data back to DRAM (counted in :attr:`dram_bytes_written` only)."""
        _flush(self._cfg, self._tag, self._valid, self._dirty, self._stamp, self._clock, self._stats,
               self._dram, self._stack, self.compute_units, self.store_touches_lru)

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
