"""Instruction runs held in DataFrames: what a what-if change needs to move items.

:mod:`tracekit.trace.runs` reads and expands runs as Arrow tables without pandas (so that
``tracekit validate`` and ``info`` start fast); a what-if head keeps the runs in a DataFrame
(``analyzers.whatif.changes.Launch``), and a change that maps items to new ids cuts them
(:func:`split_runs`) or expands them (:func:`expand_frame`) here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from tracekit.trace.runs import sorted_keys


def expand_frame(df: pd.DataFrame) -> pd.DataFrame:
    """:func:`expand_runs` for a DataFrame in (group, item, site) order: per-item rows in that
    order (rows of one item and site keep their order), without the ``items`` column (a frame
    with no runs only loses that column).

    For code that needs one row per work-item (a change that moves items between work-groups
    or merges them); everything that only reads or scales counts works on the runs as they are.
    """
    if "items" not in df.columns:
        return df
    items = df["items"].fillna(1).to_numpy(np.int64)
    out = df.drop(columns="items")
    if not (items != 1).any():
        return out
    group, item, site = (df[c].to_numpy(np.int64) for c in ("group", "item", "site"))
    if not sorted_keys(group, item, site):
        raise ValueError("instruction runs must be in (group, item, site) order to be expanded")
    idx, new_item = _expansion(group, item, items, site)
    out = out.take(idx)
    out["item"] = new_item.astype(df["item"].dtype)
    return out.reset_index(drop=True)


@njit(cache=True)
def _expansion(group, item, items, site):
    """The run of each per-item row and the row's item, in (group, item, site, run) order.

    A sweep over each work-group's items: runs start in item order, so the runs covering
    item ``i`` are kept as an active list ordered by (site, run); each item emits that list,
    then the runs ending there leave it.  Work and memory follow the rows written, not the
    span of items times the runs of a group."""
    n = group.shape[0]
    total = 0
    for r in range(n):
        total += items[r]
    idx = np.empty(total, np.int64)
    out_item = np.empty(total, np.int64)
    active = np.empty(max(n, 1), np.int64)
    w = 0
    r0 = 0
    while r0 < n:
        r1 = r0
        while r1 < n and group[r1] == group[r0]:
            r1 += 1
        na = 0
        nxt = r0
        i = item[r0]
        while nxt < r1 or na > 0:
            if na == 0 and item[nxt] > i:
                i = item[nxt]
            while nxt < r1 and item[nxt] == i:   # runs starting here join, ordered by (site, run)
                j = na
                while j > 0 and site[active[j - 1]] > site[nxt]:
                    active[j] = active[j - 1]
                    j -= 1
                active[j] = nxt
                na += 1
                nxt += 1
            keep = 0
            for a in range(na):
                r = active[a]
                idx[w] = r
                out_item[w] = i
                w += 1
                if item[r] + items[r] - 1 > i:
                    active[keep] = r
                    keep += 1
            na = keep
            i += 1
        r0 = r1
    return idx, out_item


def split_runs(start: np.ndarray, length: np.ndarray,
               period: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Runs ``[start, start + length)`` cut wherever they cross a multiple of ``period``: the run
    each piece comes from, its start and its length (pieces in run order, then start order).

    A change that maps items to new ids keeps a run a run where the mapping is a shift (items
    of one row of a work-group, or of one n-item block): cut at those boundaries first."""
    start = np.asarray(start, np.int64)
    length = np.asarray(length, np.int64)
    first = start // period
    pieces = (start + length - 1) // period - first + 1
    run = np.repeat(np.arange(len(start), dtype=np.int64), pieces)
    k = np.arange(len(run), dtype=np.int64) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    lo = np.maximum(start[run], (first[run] + k) * period)
    hi = np.minimum(start[run] + length[run], (first[run] + k + 1) * period)
    return run, lo, hi - lo
