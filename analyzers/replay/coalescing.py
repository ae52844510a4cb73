"""Coalescing: how many memory transactions each SIMD request costs.

A request's accesses are merged into the distinct aligned segments of the
target's granularity (``Target.transaction_bytes``) that they touch; an access
that straddles a boundary counts on both segments.  ``bytes_moved`` is the
segments times the granularity, ``bytes_requested`` the sum of access sizes, so
their ratio is the wasted bandwidth the guides warn about.

:func:`transactions_per_request` and :func:`summarize` are vectorised pandas
(sort/unique on (request, segment)) for notebooks and tests;
:func:`distinct_segments` is the compiled per-request kernel the streaming replay
uses, which can also emit the distinct units for the cache replay.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from analyzers.replay.intdiv import ADDR_MASK, div, shift_of


def segments(address: np.ndarray, size: np.ndarray, granularity: int):
    """Expand accesses into (access index, segment) pairs, straddling ones on every segment."""
    address = np.asarray(address, dtype=np.uint64)
    size = np.maximum(np.asarray(size, dtype=np.uint64), 1)
    g = np.uint64(granularity)
    first = address // g
    last = (address + size - np.uint64(1)) // g
    count = (last - first + np.uint64(1)).astype(np.int64)
    idx = np.repeat(np.arange(address.shape[0]), count)
    offset = np.arange(idx.shape[0]) - np.repeat(np.cumsum(count) - count, count)
    return idx, first[idx] + offset.astype(np.uint64)


def transactions_per_request(request: np.ndarray, address: np.ndarray, size: np.ndarray,
                             granularity: int) -> pd.DataFrame:
    """One row per request: transactions, bytes_requested, bytes_moved, lanes (accesses)."""
    request = np.asarray(request, dtype=np.int64)
    idx, seg = segments(address, size, granularity)
    pairs = pd.DataFrame({"request": request[idx], "segment": seg}).drop_duplicates()
    tx = pairs.groupby("request").size()
    base = pd.DataFrame({"request": request, "bytes": np.asarray(size, dtype=np.int64)})
    agg = base.groupby("request").agg(lanes=("bytes", "size"), bytes_requested=("bytes", "sum"))
    agg["transactions"] = tx.reindex(agg.index).to_numpy()
    agg["bytes_moved"] = agg["transactions"] * granularity
    return agg.reset_index()[["request", "lanes", "transactions", "bytes_requested", "bytes_moved"]]


def summarize(per_request: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Sum requests, transactions and bytes by ``by`` columns (e.g. site, launch)."""
    g = per_request.groupby(by, sort=True, observed=True)
    out = g.agg(requests=("transactions", "size"), transactions=("transactions", "sum"),
                bytes_requested=("bytes_requested", "sum"), bytes_moved=("bytes_moved", "sum"))
    out["transactions_per_request"] = out["transactions"] / out["requests"]
    return out.reset_index()


@njit(cache=True, inline="always")
def sort_small(buf, n):
    """Sort ``buf[:n]`` in place: nothing when already ascending (lanes walk memory upwards),
    insertion for a few values, numpy beyond."""
    ascending = True
    for a in range(1, n):
        if buf[a] < buf[a - 1]:
            ascending = False
            break
    if ascending:  # the usual case: lanes walk memory upwards
        return
    if n <= 64:
        for a in range(1, n):  # insertion sort: linear on the usual ascending lanes
            v = buf[a]
            b = a - 1
            while b >= 0 and buf[b] > v:
                buf[b + 1] = buf[b]
                b -= 1
            buf[b + 1] = v
    else:
        buf[:n] = np.sort(buf[:n])


@njit(cache=True)
def distinct_segments(order, req_ptr, address, size, seg_bytes, emit_mask, unit_bytes, units_out=None):
    """Per request: distinct segments of ``seg_bytes``; for requests with ``emit_mask``
    set, also the distinct units of ``unit_bytes`` (ascending) as a CSR list.

    ``address`` may hold the raw 64-bit pattern (bit 63 is cleared here, as
    everywhere in the replay).  Returns (transactions, bytes_requested, units, unit_ptr).

    Lanes usually walk memory upwards, so a request is first counted in one pass
    without a buffer: with ascending addresses every new segment lies above the
    highest one seen so far.  The first descending address sends the request to the
    buffer-and-sort path.  When the units are the segments (``unit_bytes ==
    seg_bytes``, a cache line as large as a transaction) one pass gives both.
    The units are written to ``units_out`` when given (a buffer reused from chunk to
    chunk) if it holds as many as the rows can touch, else to a new array.
    """
    nreq = req_ptr.shape[0] - 1
    tx = np.zeros(nreq, np.int64)
    breq = np.zeros(nreq, np.int64)
    unit_ptr = np.zeros(nreq + 1, np.int64)
    same = seg_bytes == unit_bytes
    seg_shift = shift_of(seg_bytes)
    unit_shift = shift_of(unit_bytes)
    # Both buffers are sized here, before the loop: a buffer the loop might replace makes every
    # access to it dearer (about three times a kernel's time).  No request has more units than
    # its rows touch one by one, nor more segments than its longest row's count times its rows.
    fine = min(seg_bytes, unit_bytes)
    fine_shift = shift_of(fine)
    need = np.int64(0)
    widest = np.int64(1)
    for i in range(address.shape[0]):
        a = address[i] & ADDR_MASK
        end = a + max(np.int64(size[i]), np.int64(1)) - 1
        need += div(end, unit_bytes, unit_shift) - div(a, unit_bytes, unit_shift) + 1
        widest = max(widest, div(end, fine, fine_shift) - div(a, fine, fine_shift) + 1)
    longest = 1
    for r in range(nreq):
        longest = max(longest, req_ptr[r + 1] - req_ptr[r])
    buf = np.empty(max(16, longest * widest), np.int64)
    if units_out is not None and units_out.shape[0] >= need:
        units = units_out
    else:
        units = np.empty(max(16, need), np.int64)
    nu = 0
    for r in range(nreq):
        lo = req_ptr[r]
        hi = req_ptr[r + 1]
        for pass_ in range(2):
            if pass_ == 0:
                gran = seg_bytes
                sh = seg_shift
                out = emit_mask[r] and same
            else:
                if same or not emit_mask[r]:
                    break
                gran = unit_bytes
                sh = unit_shift
                out = True
            # one pass while the addresses ascend (pass 0 sums the bytes on the way)
            b = np.int64(0)
            cnt = 0
            top = np.int64(-1)  # highest segment counted so far
            prev = np.int64(0)
            nu0 = nu
            ascending = True
            for t in range(lo, hi):
                i = order[t]
                a = address[i] & ADDR_MASK
                if a < prev:
                    ascending = False
                    break
                prev = a
                sz = max(np.int64(size[i]), np.int64(1))
                b += sz
                s1 = div(a + sz - 1, gran, sh)
                s = max(div(a, gran, sh), top + 1)
                while s <= s1:
                    if out:
                        units[nu] = s * gran
                        nu += 1
                    cnt += 1
                    s += 1
                top = max(top, s1)
            if not ascending:  # some lane went down: collect, sort, count runs
                nu = nu0
                n = 0
                b = 0
                for t in range(lo, hi):
                    i = order[t]
                    a = address[i] & ADDR_MASK
                    sz = max(np.int64(size[i]), np.int64(1))
                    b += sz
                    s0 = div(a, gran, sh)
                    s1 = div(a + sz - 1, gran, sh)
                    for s in range(s0, s1 + 1):
                        buf[n] = s
                        n += 1
                sort_small(buf, n)
                cnt = 0
                for k in range(n):
                    if k == 0 or buf[k] != buf[k - 1]:
                        cnt += 1
                        if out:
                            units[nu] = buf[k] * gran
                            nu += 1
            if pass_ == 0:
                tx[r] = cnt
                breq[r] = b
        unit_ptr[r + 1] = nu
    return tx, breq, units[:nu], unit_ptr



@njit(cache=True)
def lane_units(order, req_ptr, address, size, unit_bytes, per_lane, units, unit_ptr):
    """The cache units of each request, with the lanes of ``per_lane`` requests looked up one by one.

    PowerVR Rogue resolves a task's memory accesses thread by thread, in row order:
    each thread's access is its own cache-line request, so sixteen threads reading
    one line are one miss and fifteen hits, not one lookup (the PowerVR guide,
    §System Memory Access).  A request with ``per_lane`` set therefore contributes
    every lane's units in lane order, a unit shared by several lanes once per lane;
    the others keep the distinct units :func:`distinct_segments` gave them
    (``units`` / ``unit_ptr``).  Returns the new (units, unit_ptr).
    """
    nreq = req_ptr.shape[0] - 1
    sh = shift_of(unit_bytes)
    total = 0
    for r in range(nreq):
        if per_lane[r]:
            for t in range(req_ptr[r], req_ptr[r + 1]):
                i = order[t]
                a = address[i] & ADDR_MASK
                sz = max(np.int64(size[i]), np.int64(1))
                total += div(a + sz - 1, unit_bytes, sh) - div(a, unit_bytes, sh) + 1
        else:
            total += unit_ptr[r + 1] - unit_ptr[r]
    out = np.empty(total, np.int64)
    ptr = np.zeros(nreq + 1, np.int64)
    k = 0
    for r in range(nreq):
        if per_lane[r]:
            for t in range(req_ptr[r], req_ptr[r + 1]):
                i = order[t]
                a = address[i] & ADDR_MASK
                sz = max(np.int64(size[i]), np.int64(1))
                for s in range(div(a, unit_bytes, sh), div(a + sz - 1, unit_bytes, sh) + 1):
                    out[k] = s * unit_bytes
                    k += 1
        else:
            for u in range(unit_ptr[r], unit_ptr[r + 1]):
                out[k] = units[u]
                k += 1
        ptr[r + 1] = k
    return out, ptr
