"""Access patterns: the facts behind the advice, gathered in the same streaming pass as the replay.

The replay says what a kernel's accesses cost; the checklist also needs to know
what *shape* they have, because that is what a programmer changes: whether a
wave's addresses could fit in fewer transactions (ideal transactions), whether a
contiguous request straddles a boundary (misaligned), whether every lane reads
one address (uniform), whether one work-item loads neighbouring words one by one
(adjacent), reads the same address again (re-reads), walks several rows of a 2D
array (stencil rows and pitch), stages global data into local memory and how often
it reads each staged word, and how many distinct bytes the launch touches at all
(the footprint, the least any cache hierarchy must fetch).

:class:`PatternAccumulator` folds one chunk of whole work-groups at a time
(:mod:`analyzers.replay.memory` calls it), in compiled passes, so the facts cost a small
share of the replay and memory stays bounded by the chunk.  Hot addresses (one
address read by most work-items, atomics piling on one address) are tracked with
bounded counters: exact for any address that matters to the rules, approximate
only for addresses too rare to.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit

from analyzers.replay.coalescing import sort_small
from analyzers.replay.intdiv import ADDR_MASK, div, shift_of
from analyzers.replay.waves import counting_order

#: A gap between one item's addresses larger than this many bytes (and than 4 accesses)
#: starts a new row of a 2D array.
ROW_GAP_BYTES = 64
#: Distinct addresses kept per site for hot-address counting (heavy hitters).
HOT_KEEP = 1024
#: Distinct lane-to-lane steps kept per site (the most frequent one is the site's ``lane_stride``).
STRIDES_KEEP = 64
#: Site-level pattern columns (one row per site in :attr:`Patterns.sites`).
SITE_COLUMNS = ("unaligned", "adjacent", "loop_adjacent", "distinct_item_addresses", "ideal_transactions",
                "misaligned_requests", "uniform_requests", "distinct_addresses", "max_items_one_address",
                "max_accesses_one_address", "buffer", "local_slices", "lane_stride", "cache_units",
                "ideal_cache_units", "misaligned_cache_units")


@njit(cache=True)
def request_scratch(req_ptr):
    """Two buffers long enough for the largest request (addresses and sizes)."""
    cap = 16
    for r in range(req_ptr.shape[0] - 1):
        cap = max(cap, req_ptr[r + 1] - req_ptr[r])
    return np.empty(cap, np.int64), np.empty(cap, np.int64)


@njit(cache=True)
def sorted_accesses(order, lo, hi, address, size, keys, sizes):
    """Fill ``keys`` / ``sizes`` with the byte addresses and sizes (at least 1) of the request's
    accesses ``order[lo:hi]``, ascending by address; returns how many."""
    n = hi - lo
    ascending = True
    for t in range(n):
        i = order[lo + t]
        keys[t] = address[i] & ADDR_MASK
        sizes[t] = max(np.int64(size[i]), np.int64(1))
        if t and keys[t] < keys[t - 1]:
            ascending = False
    if not ascending:
        idx = np.argsort(keys[:n], kind="mergesort")
        k2 = keys[:n][idx].copy()
        s2 = sizes[:n][idx].copy()
        keys[:n] = k2
        sizes[:n] = s2
    return n


@njit(cache=True)
def request_facts(order, req_ptr, address, size, tx_bytes, transactions, active):
    """Per request (where ``active``): distinct addresses, ideal transactions, misalignment.

    The ideal is the bytes of the request's distinct addresses in whole transactions;
    a request is misaligned when its accesses form one contiguous span that would fit
    in fewer transactions than it takes.
    """
    nreq = req_ptr.shape[0] - 1
    distinct = np.zeros(nreq, np.int64)
    ideal = np.zeros(nreq, np.int64)
    misaligned = np.zeros(nreq, np.bool_)
    keys, sizes = request_scratch(req_ptr)
    sh = shift_of(tx_bytes)
    for r in range(nreq):
        if not active[r]:
            continue
        n = sorted_accesses(order, req_ptr[r], req_ptr[r + 1], address, size, keys, sizes)
        d = 0
        b = np.int64(0)
        lo = keys[0]
        hi = keys[0] + sizes[0]
        for t in range(n):
            if t == 0 or keys[t] != keys[t - 1]:
                d += 1
                b += sizes[t]
            hi = max(hi, keys[t] + sizes[t])
        distinct[r] = d
        ideal[r] = div(b + tx_bytes - 1, tx_bytes, sh)
        span = hi - lo
        if span == b:
            misaligned[r] = transactions[r] > div(span + tx_bytes - 1, tx_bytes, sh)
    return distinct, ideal, misaligned


@njit(cache=True)
def run_units(order, req_ptr, address, size, unit_bytes, active):
    """Per request (where ``active``): its contiguous runs' units if each run started on a unit
    boundary, and the ideal (its distinct bytes in whole units).

    A run is a maximal range of adjacent or overlapping accesses.  A request of several
    runs that each fill whole units (rows of a 2-D work-group) is coalesced row by row;
    units it takes beyond the aligned count come from runs straddling boundaries, which is
    misalignment, not scatter."""
    nreq = req_ptr.shape[0] - 1
    aligned = np.zeros(nreq, np.int64)
    ideal = np.zeros(nreq, np.int64)
    keys, sizes = request_scratch(req_ptr)
    sh = shift_of(unit_bytes)
    for r in range(nreq):
        if not active[r]:
            continue
        n = sorted_accesses(order, req_ptr[r], req_ptr[r + 1], address, size, keys, sizes)
        a = np.int64(0)
        b = np.int64(0)
        run_lo = keys[0]
        run_hi = keys[0] + sizes[0]
        for t in range(1, n + 1):
            if t < n and keys[t] <= run_hi:
                run_hi = max(run_hi, keys[t] + sizes[t])
                continue
            span = run_hi - run_lo
            a += div(span + unit_bytes - 1, unit_bytes, sh)
            b += span
            if t < n:
                run_lo = keys[t]
                run_hi = keys[t] + sizes[t]
        aligned[r] = a
        ideal[r] = div(b + unit_bytes - 1, unit_bytes, sh)
    return aligned, ideal


@njit(cache=True)
def lane_strides(order, req_ptr, address):
    """Per request: the address step from its first lane to its second (0 with one lane).

    For a local tile read by column this is the tile's row pitch, the number a padding
    fix changes."""
    nreq = req_ptr.shape[0] - 1
    out = np.zeros(nreq, np.int64)
    for r in range(nreq):
        if req_ptr[r + 1] - req_ptr[r] >= 2:
            out[r] = (address[order[req_ptr[r] + 1]] & ADDR_MASK) - (address[order[req_ptr[r]]] & ADDR_MASK)
    return out


@njit(cache=True)
def lane_slices(order, req_ptr, lane, lanes_per_cycle, active):
    """Per request (where ``active``): the slices of ``lanes_per_cycle`` lanes it occupies, the
    cycles it would take in the banks without a conflict (rows are in ascending lane order)."""
    nreq = req_ptr.shape[0] - 1
    out = np.zeros(nreq, np.int64)
    sh = shift_of(lanes_per_cycle)
    for r in range(nreq):
        if not active[r]:
            continue
        last = np.int64(-1)
        for t in range(req_ptr[r], req_ptr[r + 1]):
            s = div(np.int64(lane[order[t]]), lanes_per_cycle, sh)
            if s != last:
                out[r] += 1
                last = s
    return out


@njit(cache=True)
def _sort_pairs(a, b, c, n):
    """Sort the first ``n`` rows of (a, b, c) by a, then b (``c`` rides along), stably.

    Long items (a GEMV work-item walks a whole matrix row) are sorted by a with one counting
    pass when a's values are few (sites, buffers), and the rows of one a are sorted by b only
    where they are not ascending already: a loop walks memory upwards, so usually they are.
    """
    if n > 48:
        lo = a[:n].min()
        span = a[:n].max() - lo + 1
        if span <= 4 * n:
            idx = counting_order(a[:n] - lo, span, np.arange(n))
        else:
            idx = np.argsort(a[:n], kind="mergesort")
        a[:n] = a[:n][idx].copy()
        b[:n] = b[:n][idx].copy()
        c[:n] = c[:n][idx].copy()
        s = 0
        while s < n:
            e = s + 1
            ascending = True
            while e < n and a[e] == a[s]:
                if b[e] < b[e - 1]:
                    ascending = False
                e += 1
            if not ascending:
                sub = np.argsort(b[s:e], kind="mergesort")
                b[s:e] = b[s:e][sub].copy()
                c[s:e] = c[s:e][sub].copy()
            s = e
        return
    for i in range(1, n):
        va, vb, vc = a[i], b[i], c[i]
        j = i - 1
        while j >= 0 and (a[j] > va or (a[j] == va and b[j] > vb)):
            a[j + 1] = a[j]
            b[j + 1] = b[j]
            c[j + 1] = c[j]
            j -= 1
        a[j + 1] = va
        b[j + 1] = vb
        c[j + 1] = vc


@njit(cache=True)
def _median_in_place(x, n):
    """``np.median(x[:n])`` without an allocation: the item's few row gaps are sorted in place."""
    sort_small(x, n)
    if n % 2:
        return np.float64(x[n // 2])
    return (np.float64(x[n // 2 - 1]) + np.float64(x[n // 2])) / 2.0


@njit(cache=True)
def _longest_runs(group, item):
    """The most rows of one work-group and of one work-item (rows in canonical order)."""
    n = group.shape[0]
    longest_group = longest_item = 0
    g0 = i0 = 0
    for r in range(1, n + 1):
        if r == n or group[r] != group[r - 1]:
            longest_group = max(longest_group, r - g0)
            g0 = r
        if r == n or group[r] != group[r - 1] or item[r] != item[r - 1]:
            longest_item = max(longest_item, r - i0)
            i0 = r
    return longest_group, longest_item


@njit(cache=True)
def item_facts(group, item, site, space, op, address, size, buffer, nsites, vector_bytes,
               local_code, global_code, load_code, store_code, nonlocal_mask):
    """One pass over a chunk's rows in canonical (group, item, seq) order.

    Returns per site (dense by site id): unaligned accesses, adjacent narrow loads,
    narrow global loads that continue the item's previous load at the same site (a loop
    walking memory: ``loop_adjacent``), distinct (item, address) pairs; the launch-level
    counts of staged local stores,
    local loads and stores, distinct stored local words (per group), items that
    store to local memory; and per (item, buffer) of global loads the rows, the median row
    pitch and the distinct addresses per row (arrays ``st_buffer``, ``st_rows``, ``st_pitch``,
    ``st_cols``): a 2D neighbourhood reads several neighbouring elements of each row, a
    column walk one.
    """
    n = group.shape[0]
    unaligned = np.zeros(nsites, np.int64)
    adjacent = np.zeros(nsites, np.int64)
    loop_adjacent = np.zeros(nsites, np.int64)
    last_end = np.full(nsites, -1, np.int64)   # end of the item's previous narrow load at each site
    pairs = np.zeros(nsites, np.int64)
    staged = 0
    local_loads = 0
    local_stores = 0
    local_words = 0
    storing_items = 0
    groups_storing = 0
    st_buffer = np.empty(n, np.int64)
    st_rows = np.empty(n, np.int64)
    st_pitch = np.empty(n, np.float64)
    st_cols = np.empty(n, np.float64)
    ns = 0
    # every buffer is sized here for the longest item and group, before the loop: a buffer the
    # loop might replace makes every access to it dearer
    wcap, cap = _longest_runs(group, item)
    wcap, cap = max(wcap, 64), max(cap, 64)
    ka = np.empty(cap, np.int64)
    kb = np.empty(cap, np.int64)
    kc = np.empty(cap, np.int64)
    ga = np.empty(cap, np.int64)
    gb = np.empty(cap, np.int64)
    gs = np.empty(cap, np.int64)
    gaps = np.empty(cap, np.int64)
    wa = np.empty(wcap, np.int64)
    i = 0
    while i < n:
        # one work-group: [i, gend)
        g = group[i]
        gend = i
        while gend < n and group[gend] == g:
            gend += 1
        nw = 0
        items_storing = 0
        j = i
        while j < gend:
            it = item[j]
            e = j
            while e < gend and item[e] == it:
                e += 1
            m = e - j
            stores_here = False
            ng = 0
            for r in range(j, e):
                a = address[r] & ADDR_MASK
                sz = np.int64(size[r])
                s = site[r]
                sp = space[r]
                o = op[r]
                if a % min(max(sz, np.int64(1)), np.int64(4)) != 0:
                    unaligned[s] += 1
                if r + 1 < e and o == load_code and sz < vector_bytes:
                    if (space[r + 1] == sp and op[r + 1] == o and site[r + 1] != s
                            and (address[r + 1] & ADDR_MASK) == a + sz):
                        adjacent[s] += 1
                if sp == global_code and o == load_code and sz < vector_bytes:
                    if last_end[s] == a:
                        loop_adjacent[s] += 1
                    last_end[s] = a + sz
                ka[r - j] = s
                kb[r - j] = a
                if sp == local_code:
                    if o == load_code:
                        local_loads += 1
                    elif o == store_code:
                        local_stores += 1
                        stores_here = True
                        wa[nw] = a
                        nw += 1
                        if r > j and space[r - 1] == global_code and op[r - 1] == load_code:
                            staged += 1
                elif sp == global_code and o == load_code:
                    ga[ng] = buffer[r]
                    gb[ng] = a
                    gs[ng] = sz
                    ng += 1
            if stores_here:
                items_storing += 1
            for r in range(j, e):   # the next item starts its loops afresh
                last_end[site[r]] = -1
            # distinct (site, address) per site: re-reads
            _sort_pairs(ka, kb, kc, m)
            for t in range(m):
                if t == 0 or ka[t] != ka[t - 1] or kb[t] != kb[t - 1]:
                    pairs[ka[t]] += 1
            # 2D stencil shape per buffer: distinct addresses, big gaps start new rows
            if ng:
                _sort_pairs(ga, gb, gs, ng)
                t = 0
                while t < ng:
                    u = t
                    while u < ng and ga[u] == ga[t]:
                        u += 1
                    rows = 1
                    nbig = 0
                    distinct = 1
                    prev = t
                    for v in range(t + 1, u):
                        if gb[v] == gb[prev]:
                            continue
                        distinct += 1
                        gap = gb[v] - gb[prev]
                        prev = v
                        if gap > max(np.int64(ROW_GAP_BYTES), 4 * gs[v]):
                            rows += 1
                            gaps[nbig] = gap
                            nbig += 1
                    st_buffer[ns] = ga[t]
                    st_rows[ns] = rows
                    st_pitch[ns] = _median_in_place(gaps, nbig) if nbig else np.nan
                    st_cols[ns] = distinct / rows
                    ns += 1
                    t = u
            j = e
        if nw:
            groups_storing += 1
            storing_items += items_storing
            words = np.sort(wa[:nw])
            for t in range(nw):
                if t == 0 or words[t] != words[t - 1]:
                    local_words += 1
        i = gend
    counts = np.array([staged, local_loads, local_stores, local_words, storing_items, groups_storing],
                      np.int64)
    return (unaligned, adjacent, loop_adjacent, pairs, counts, st_buffer[:ns], st_rows[:ns], st_pitch[:ns],
            st_cols[:ns])


@njit(cache=True)
def _page_slot(keys, used, page):
    """The slot of ``page`` in the open-addressing page table, inserted if new; -1 when full."""
    cap = keys.shape[0]
    h = (page * 0x9E3779B97F4A7C15) & (cap - 1)
    while True:
        k = keys[h]
        if k == page:
            return h
        if k == -1:
            if used[0] * 2 >= cap:
                return -1
            keys[h] = page
            used[0] += 1
            return h
        h = (h + 1) & (cap - 1)


@njit(cache=True)
def _seg_add(keys, bits, used, address, size, space, mask, shift):
    """Add the segments the rows touch; returns the first row not added (table full) or n.

    Neighbouring rows touch a few pages over and over (one per buffer a work-item reads), so the
    slots of the last pages seen are remembered, 16 by page number: within one call slots do not
    move (the table only grows between calls)."""
    memo_page = np.full(16, -1, np.int64)
    memo_slot = np.zeros(16, np.int64)
    for r in range(address.shape[0]):
        if not mask[space[r]]:
            continue
        a = address[r] & ADDR_MASK
        first = a >> shift
        last = (a + max(np.int64(size[r]), np.int64(1)) - 1) >> shift
        for s in range(first, last + 1):
            page = s >> 12
            m = page & 15
            if memo_page[m] == page:
                h = memo_slot[m]
            else:
                h = _page_slot(keys, used, page)
                if h < 0:
                    return r
                memo_page[m] = page
                memo_slot[m] = h
            bits[h, (s >> 6) & 63] |= np.uint64(1) << np.uint64(s & 63)
    return address.shape[0]


@njit(cache=True)
def _popcount_total(bits, keys):
    total = 0
    for h in range(keys.shape[0]):
        if keys[h] == -1:
            continue
        for w in range(bits.shape[1]):
            x = bits[h, w]
            while x:
                x &= x - np.uint64(1)
                total += 1
    return total


class SegmentSet:
    """The distinct aligned segments a launch touches: pages of 4096 segments in a hash table
    of bitmaps, so a gigabyte of touched data costs a few megabytes to remember."""

    def __init__(self, segment_bytes: int):
        self.shift = int(segment_bytes).bit_length() - 1
        if 1 << self.shift != segment_bytes:
            raise ValueError("segment size must be a power of two")
        self.segment_bytes = int(segment_bytes)
        self._alloc(1 << 10)

    def _alloc(self, cap: int) -> None:
        self.keys = np.full(cap, -1, np.int64)
        self.bits = np.zeros((cap, 64), np.uint64)
        self.used = np.zeros(1, np.int64)

    def add(self, address, size, space, mask) -> None:
        start = 0
        while start < address.shape[0]:
            done = _seg_add(self.keys, self.bits, self.used, address[start:], size[start:], space[start:],
                            mask, self.shift)
            start += done
            if start < address.shape[0]:
                self._grow()

    def _grow(self) -> None:
        old_keys, old_bits = self.keys, self.bits
        self._alloc(2 * old_keys.shape[0])
        _rehash(old_keys, old_bits, self.keys, self.bits, self.used)

    def count(self) -> int:
        return int(_popcount_total(self.bits, self.keys))

    def bytes(self) -> int:
        return self.count() * self.segment_bytes


@njit(cache=True)
def _rehash(old_keys, old_bits, keys, bits, used):
    cap = keys.shape[0]
    for h in range(old_keys.shape[0]):
        page = old_keys[h]
        if page == -1:
            continue
        p = (page * 0x9E3779B97F4A7C15) & (cap - 1)
        while keys[p] != -1:
            p = (p + 1) & (cap - 1)
        keys[p] = page
        used[0] += 1
        bits[p, :] = old_bits[h, :]


class HotAddresses:
    """Per site, how often the most frequent addresses occur (bounded: heavy hitters).

    Counts are added chunk by chunk; when a site holds more than ``keep`` addresses
    the smallest counts are dropped (Misra-Gries style: every address whose share
    of the site's count exceeds 1/``keep`` survives, with its count exact up to the
    dropped weight).  The maximum is what the rules read.
    """

    def __init__(self, keep: int = HOT_KEEP):
        self.keep = keep
        self.counts: dict[int, dict[int, int]] = {}

    def add(self, site: int, addresses: np.ndarray, weights: np.ndarray | None = None) -> None:
        if not len(addresses):
            return
        uniq, inv = np.unique(addresses, return_inverse=True)
        w = np.bincount(inv, weights=weights) if weights is not None else np.bincount(inv)
        del inv
        if len(uniq) > 2 * self.keep:
            # the chunk's own summary first (the same cut, so no Python object per address): an
            # address that matters keeps its count less the weight dropped with the rest
            cut = np.partition(w, len(w) - 2 * self.keep - 1)[len(w) - 2 * self.keep - 1]
            sel = w > cut
            uniq, w = uniq[sel], w[sel] - cut
        d = self.counts.setdefault(int(site), {})
        for a, c in zip(uniq.tolist(), w.tolist(), strict=True):
            d[a] = d.get(a, 0) + int(c)
        if len(d) > 2 * self.keep:
            cut = sorted(d.values(), reverse=True)[self.keep]
            self.counts[int(site)] = {a: c - cut for a, c in d.items() if c > cut}

    def maximum(self, site: int) -> int:
        d = self.counts.get(int(site))
        return max(d.values()) if d else 0


@dataclass
class LaunchPatterns:
    """Launch-level pattern facts of one launch (counts of the recorded work-groups)."""

    footprint_bytes: int = 0
    local_loads: int = 0
    local_stores: int = 0
    local_words_stored: int = 0
    local_storing_items: int = 0
    local_groups_storing: int = 0
    staged_local_stores: int = 0
    #: Per global buffer: median rows one item reads, the median row pitch in bytes, and the median
    #: distinct addresses one item reads per row (``cols``: 1 for a column walk).
    stencils: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["buffer", "rows", "pitch",
                                                                                 "cols"]))

    @property
    def local_reads_per_word(self) -> float:
        return self.local_loads / self.local_words_stored if self.local_words_stored else float("nan")

    @property
    def staged_local_store_fraction(self) -> float:
        return self.staged_local_stores / self.local_stores if self.local_stores else 0.0

    @property
    def local_storing_items_per_group(self) -> float:
        g = self.local_groups_storing
        return self.local_storing_items / g if g else 0.0

    @property
    def local_stores_per_storing_item(self) -> float:
        return self.local_stores / self.local_storing_items if self.local_stores else 0.0


@dataclass
class Patterns:
    """The pattern facts of one launch: per site (:data:`SITE_COLUMNS`) and launch-wide."""

    sites: pd.DataFrame
    launch: LaunchPatterns


class ValueCounts:
    """How often each value occurred, added a chunk at a time.

    A data-dependent walk can give a new value on almost every row (a hashed gather's row
    pitch), so the counts are kept as arrays: each chunk's distinct values join a pending
    list, merged into one sorted table when the list outgrows it (each value is merged a
    bounded number of times), instead of one dictionary update per value.
    """

    def __init__(self) -> None:
        self._values = np.zeros(0, np.float64)
        self._counts = np.zeros(0, np.int64)
        self._pending: list[tuple[np.ndarray, np.ndarray]] = []
        self._pending_rows = 0

    def add(self, values: np.ndarray) -> None:
        if not len(values):
            return
        u, k = np.unique(values, return_counts=True)
        self._pending.append((u.astype(np.float64), k.astype(np.int64)))
        self._pending_rows += len(u)
        if self._pending_rows > max(4096, len(self._values)):
            self._merge()

    def _merge(self) -> None:
        if not self._pending:
            return
        values = np.concatenate([self._values, *(v for v, _ in self._pending)])
        counts = np.concatenate([self._counts, *(k for _, k in self._pending)])
        self._pending, self._pending_rows = [], 0
        self._values, inv = np.unique(values, return_inverse=True)
        self._counts = np.bincount(inv.ravel(), weights=counts, minlength=len(self._values)).astype(np.int64)

    def median(self) -> float:
        """The median of every value added (NaN when none was)."""
        self._merge()
        return _hist_median(self._values, self._counts) if len(self._values) else float("nan")


class PatternAccumulator:
    """Folds the pattern facts of one launch, chunk by chunk (see the module docstring)."""

    def __init__(self, target, spaces: tuple[str, ...], ops: tuple[str, ...], vector_bytes: int = 16):
        self.tx_bytes = int(target.transaction_bytes)
        # the first data cache's unit (sector or line): where it is coarser than a transaction
        # (Adreno: 16-byte transactions, 64-byte L2 lines), a request that uses every byte of its
        # transactions can still spread over more lines than its bytes need
        first = target.caches[0] if getattr(target, "caches", None) else None
        self.unit_bytes = max(self.tx_bytes, int(first.sector_bytes or first.line_bytes) if first else 0)
        self.lanes_per_cycle = int(target.local_memory.lanes_per_cycle)
        self.vector_bytes = int(vector_bytes)
        self.codes = {s: i for i, s in enumerate(spaces)}
        self.ops = {s: i for i, s in enumerate(ops)}
        self.nonlocal_mask = np.array([s in ("global", "constant", "image", "private") for s in spaces])
        self.site = {c: np.zeros(0, np.int64) for c in ("unaligned", "adjacent", "loop_adjacent", "pairs")}
        #: key -> [ideal, misaligned, uniform, distinct, slices, cache units, ideal units, units over aligned]
        self.req: dict[int, np.ndarray] = {}
        self.strides: dict[int, dict[int, int]] = {}   # local key -> {lane stride: requests}
        self.buffer: dict[int, int] = {}
        self.launch = LaunchPatterns()
        self.footprint = SegmentSet(self.tx_bytes)
        self.hot_accesses = HotAddresses()
        self.hot_items = HotAddresses()
        self._stencil_rows: dict[int, np.ndarray] = {}
        self._stencil_pitch: dict[int, ValueCounts] = {}
        self._stencil_cols: dict[int, ValueCounts] = {}

    # -- per chunk ------------------------------------------------------------------
    def add_rows(self, c: dict, buffer: np.ndarray) -> None:
        site = c["site"]
        nsites = int(site.max()) + 1
        ua, ad, la, pr, counts, sb, sr, sp, sc = item_facts(
            c["group"], c["item"], site, c["space"], c["op"], c["address"], c["size"], buffer, nsites,
            self.vector_bytes, self.codes["local"], self.codes["global"], self.ops["load"], self.ops["store"],
            self.nonlocal_mask)
        for name, arr in (("unaligned", ua), ("adjacent", ad), ("loop_adjacent", la), ("pairs", pr)):
            cur = self.site[name]
            if cur.shape[0] < nsites:
                cur = np.concatenate([cur, np.zeros(nsites - cur.shape[0], np.int64)])
            cur[:nsites] += arr
            self.site[name] = cur
        lp = self.launch
        lp.staged_local_stores += int(counts[0])
        lp.local_loads += int(counts[1])
        lp.local_stores += int(counts[2])
        lp.local_words_stored += int(counts[3])
        lp.local_storing_items += int(counts[4])
        lp.local_groups_storing += int(counts[5])
        if len(sb):
            for b in np.unique(sb).tolist():
                sel = sb == b
                rows = np.bincount(np.minimum(sr[sel], 4096))
                old = self._stencil_rows.get(b)
                if old is not None:
                    if len(old) < len(rows):
                        old, rows = rows, old
                    rows = old + np.pad(rows, (0, len(old) - len(rows)))
                self._stencil_rows[b] = rows
                pitches = sp[sel]
                pitches = pitches[~np.isnan(pitches)]
                for values, into in ((pitches, self._stencil_pitch), (sc[sel], self._stencil_cols)):
                    into.setdefault(b, ValueCounts()).add(values)
        self.footprint.add(c["address"], c["size"], c["space"], self.nonlocal_mask)
        atomic = c["op"] == self.ops["atomic"]
        if atomic.any():
            for s in np.unique(site[atomic]).tolist():
                sel = atomic & (site == s)
                self.hot_accesses.add(s, c["address"][sel] & 0x7FFFFFFFFFFFFFFF)
        bad = buffer >= 0
        if bad.any():
            s_ids, first = np.unique(site[bad], return_index=True)
            bufs = buffer[bad][first]
            for s, b in zip(s_ids.tolist(), bufs.tolist(), strict=True):
                self.buffer.setdefault(s, b)

    def add_requests(self, key, order, req_ptr, req_wave, lane, address, size, transactions, nonlocal_req,
                     first_row, site_of_req, is_load_global, cache_units=None) -> None:
        """Request-level facts: ideal transactions, misalignment, uniform requests, hot reads,
        conflict-free bank cycles of local requests; the same coalescing facts in units of the
        first cache level (``cache_units``: distinct units per request, or None to count them as
        the transactions)."""
        distinct, ideal, mis = request_facts(order, req_ptr, address, size, self.tx_bytes, transactions,
                                             nonlocal_req)
        if cache_units is None or self.unit_bytes <= self.tx_bytes:
            units, ideal_u, mis_u = transactions, ideal, mis.astype(np.int64)
        else:
            units = np.where(nonlocal_req, cache_units, 0)
            aligned_u, ideal_u = run_units(order, req_ptr, address, size, self.unit_bytes,
                                           nonlocal_req & (units > 0))
            mis_u = np.maximum(units - aligned_u, 0)
        slices = lane_slices(order, req_ptr, lane, self.lanes_per_cycle, ~nonlocal_req)
        uniform = nonlocal_req & (distinct == 1)
        ukey, inv = np.unique(key, return_inverse=True)
        sums = np.zeros((len(ukey), 8), np.int64)
        np.add.at(sums, inv, np.stack([ideal, mis.astype(np.int64), uniform.astype(np.int64), distinct,
                                       slices, np.where(nonlocal_req, units, 0), ideal_u,
                                       mis_u], 1))
        for k, row in zip(ukey.tolist(), sums, strict=True):
            acc = self.req.get(k)
            if acc is None:
                self.req[k] = row.copy()
            else:
                acc += row
        # the step from a request's first lane to its second: a local tile's row pitch when read by
        # column, a global buffer's row pitch when each lane walks its own row
        multi = (req_ptr[1:] - req_ptr[:-1]) >= 2
        if multi.any():
            stride = lane_strides(order, req_ptr, address)[multi]
            pairs, counts = np.unique(np.stack([key[multi], stride]), axis=1, return_counts=True)
            for (k, st), c in zip(pairs.T.tolist(), counts.tolist(), strict=True):
                d = self.strides.setdefault(k, {})
                d[st] = d.get(st, 0) + c
            for k in np.unique(key[multi]).tolist():
                d = self.strides[k]
                if len(d) > 2 * STRIDES_KEEP:        # data-dependent steps: keep the common ones
                    self.strides[k] = dict(sorted(d.items(), key=lambda kv: -kv[1])[:STRIDES_KEEP])
        # one address read by many work-items: uniform global-load requests, once per (wave, address)
        hot = uniform & is_load_global
        if hot.any():
            lanes = (req_ptr[1:] - req_ptr[:-1])[hot]
            addr = address[first_row[hot]] & 0x7FFFFFFFFFFFFFFF
            wave = req_wave[hot]
            sites = site_of_req[hot]
            order_ = np.lexsort((wave, addr, sites))
            s2, a2, w2, l2 = sites[order_], addr[order_], wave[order_], lanes[order_]
            keep = np.ones(len(s2), bool)
            keep[1:] = (s2[1:] != s2[:-1]) | (a2[1:] != a2[:-1]) | (w2[1:] != w2[:-1])
            s2, a2, l2 = s2[keep], a2[keep], l2[keep]
            for s in np.unique(s2).tolist():
                sel = s2 == s
                self.hot_items.add(s, a2[sel], l2[sel].astype(np.float64))

    # -- end of launch ----------------------------------------------------------------
    def finish(self, site_keys: np.ndarray) -> Patterns:
        """The facts per site, for the replay's per-site keys (``site << 8 | space << 4 | op``)."""
        n = len(site_keys)
        out = {c: np.zeros(n, np.int64) for c in SITE_COLUMNS}
        sites = (site_keys >> 8).astype(np.int64)
        named = (("unaligned", "unaligned"), ("adjacent", "adjacent"), ("loop_adjacent", "loop_adjacent"),
                 ("pairs", "distinct_item_addresses"))
        for name, col in named:
            arr = self.site[name]
            out[col] = np.where(sites < len(arr), arr[np.minimum(sites, max(len(arr) - 1, 0))], 0) \
                if len(arr) else np.zeros(n, np.int64)
        for j, k in enumerate(site_keys.tolist()):
            r = self.req.get(k)
            if r is not None:
                out["ideal_transactions"][j], out["misaligned_requests"][j] = r[0], r[1]
                out["uniform_requests"][j], out["distinct_addresses"][j] = r[2], r[3]
                out["local_slices"][j] = r[4]
                out["cache_units"][j], out["ideal_cache_units"][j] = r[5], r[6]
                out["misaligned_cache_units"][j] = r[7]
            s = int(k >> 8)
            out["max_items_one_address"][j] = self.hot_items.maximum(s)
            out["max_accesses_one_address"][j] = self.hot_accesses.maximum(s)
            out["buffer"][j] = self.buffer.get(s, -1)
            st = self.strides.get(k)
            if st:
                out["lane_stride"][j] = max(sorted(st), key=lambda x: st[x])
        df = pd.DataFrame({"site": sites.astype(np.int32), **out})
        lp = self.launch
        lp.footprint_bytes = self.footprint.bytes()
        rows = []
        for b in sorted(self._stencil_rows):
            hist = self._stencil_rows[b]
            med = {}
            for name, hists in (("pitch", self._stencil_pitch), ("cols", self._stencil_cols)):
                h = hists.get(b)
                med[name] = h.median() if h is not None else float("nan")
            rows.append({"buffer": b, "rows": _hist_median(np.arange(len(hist)), hist), **med})
        lp.stencils = pd.DataFrame(rows, columns=["buffer", "rows", "pitch", "cols"])
        return Patterns(df, lp)


def _hist_median(values: np.ndarray, counts: np.ndarray) -> float:
    """The median of ``values`` repeated ``counts`` times (pandas' median: mean of the middle two)."""
    total = int(counts.sum())
    if not total:
        return float("nan")
    cum = np.cumsum(counts)
    lo = values[np.searchsorted(cum, (total - 1) // 2 + 1)]
    hi = values[np.searchsorted(cum, total // 2 + 1)]
    return float((lo + hi) / 2)


def merge_patterns(parts: list[Patterns]) -> Patterns | None:
    """The facts of one launch from the facts of disjoint sets of its work-groups.

    Counts add up exactly (every work-group is in one part).  Three facts can only be
    bounded from parts: the footprint is the sum of the parts' (data shared between
    parts is counted once per part, so it is an upper bound, which keeps the cache
    rule on the safe side), the most items or atomics on one address is the largest
    part's (a lower bound), and the stencil shape per buffer is the median over parts.
    """
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    sites = pd.concat([p.sites for p in parts], ignore_index=True)
    bounded = ("max_items_one_address", "max_accesses_one_address", "buffer", "lane_stride")
    sums = [c for c in SITE_COLUMNS if c not in bounded]
    agg = {c: (c, "sum") for c in sums}
    agg.update({"max_items_one_address": ("max_items_one_address", "max"),
                "max_accesses_one_address": ("max_accesses_one_address", "max"), "buffer": ("buffer", "max"),
                "lane_stride": ("lane_stride", "max")})
    merged = sites.groupby("site", sort=True).agg(**agg).reset_index()
    lp = LaunchPatterns()
    for name in ("footprint_bytes", "local_loads", "local_stores", "local_words_stored",
                 "local_storing_items", "local_groups_storing", "staged_local_stores"):
        setattr(lp, name, sum(getattr(p.launch, name) for p in parts))
    st = pd.concat([p.launch.stencils for p in parts if len(p.launch.stencils)], ignore_index=True) \
        if any(len(p.launch.stencils) for p in parts) else None
    if st is not None:
        lp.stencils = st.groupby("buffer", sort=True).agg(rows=("rows", "median"), pitch=("pitch", "median"),
                                                          cols=("cols", "median")).reset_index()
    return Patterns(merged[["site", *SITE_COLUMNS]], lp)
