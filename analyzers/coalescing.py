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
def _sort_small(buf, n):
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
def distinct_segments(order, req_ptr, address, size, seg_bytes, emit_mask, unit_bytes):
    """Per request: distinct segments of ``seg_bytes``; for requests with ``emit_mask``
    set, also the distinct units of ``unit_bytes`` (ascending) as a CSR list.

    Returns (transactions, bytes_requested, units, unit_ptr).
    """
    nreq = req_ptr.shape[0] - 1
    tx = np.zeros(nreq, np.int64)
    breq = np.zeros(nreq, np.int64)
    unit_ptr = np.zeros(nreq + 1, np.int64)
    cap = 16
    for r in range(nreq):
        cap = max(cap, 2 * (req_ptr[r + 1] - req_ptr[r]))
    buf = np.empty(cap, np.int64)
    units = np.empty(max(16, order.shape[0] * 2), np.int64)
    nu = 0
    for r in range(nreq):
        for pass_ in range(2):
            if pass_ == 1 and not emit_mask[r]:
                break
            gran = seg_bytes if pass_ == 0 else unit_bytes
            n = 0
            for t in range(req_ptr[r], req_ptr[r + 1]):
                i = order[t]
                a = address[i]
                sz = max(np.int64(size[i]), np.int64(1))
                if pass_ == 0:
                    breq[r] += sz
                s0 = a // gran
                s1 = (a + sz - 1) // gran
                for s in range(s0, s1 + 1):
                    if n == buf.shape[0]:
                        nb = np.empty(2 * n, np.int64)
                        nb[:n] = buf
                        buf = nb
                    buf[n] = s
                    n += 1
            _sort_small(buf, n)
            cnt = 0
            for k in range(n):
                if k == 0 or buf[k] != buf[k - 1]:
                    cnt += 1
                    if pass_ == 1:
                        if nu == units.shape[0]:
                            nb = np.empty(2 * nu, np.int64)
                            nb[:nu] = units
                            units = nb
                        units[nu] = buf[k] * gran
                        nu += 1
            if pass_ == 0:
                tx[r] = cnt
        unit_ptr[r + 1] = nu
    return tx, breq, units[:nu], unit_ptr
