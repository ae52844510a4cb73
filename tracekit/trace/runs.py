"""Instruction-count runs: one row standing for several consecutive work-items.

Most work-items of a launch execute every site the same number of times, so a
recorder that writes one ``instructions`` row per (work-item, site) spends most
of its time and bytes on repeats.  Trace v1 lets a row carry ``items``: the row
stands for the work-items ``item, item + 1, ..., item + items - 1`` of its
work-group, each of which executed ``count`` instructions of the class at that
site.  A null (or a missing column) means one work-item, so per-item tables are
valid as they are.

Analyzers that reduce counts by wave read runs directly (they weight by
``items``); everything else gets per-item rows from :func:`expand_runs` through
:meth:`tracekit.trace.reader.Trace.iter_batches`, in canonical (launch, group, item,
site) order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import pandas as pd
import pyarrow as pa
from numba import njit

from tracekit.trace.arrow_numpy import filled, from_numpy, to_numpy


def run_lengths(table: pa.Table | pa.RecordBatch) -> np.ndarray:
    """``items`` of every row as int64, 1 where it is null or the column is absent."""
    n = table.num_rows
    if "items" not in table.column_names:
        return np.ones(n, np.int64)
    col = table.column("items")
    if col.null_count == n:
        return np.ones(n, np.int64)
    return np.asarray(filled(col, 1), dtype=np.int64)


def has_runs(table: pa.Table | pa.RecordBatch) -> bool:
    """True when some row stands for more than one work-item."""
    return bool((run_lengths(table) != 1).any())


def _sorted_keys(*cols: np.ndarray) -> bool:
    """True when rows are in non-decreasing lexicographic order of ``cols``."""
    n = len(cols[0])
    if n < 2:
        return True
    ok_so_far = np.zeros(n - 1, np.bool_)   # strictly ordered by an earlier column
    for c in cols:
        d = np.diff(c.astype(np.int64, copy=False))
        if ((d < 0) & ~ok_so_far).any():
            return False
        ok_so_far |= d > 0
    return True


def expand_runs(table: pa.Table | pa.RecordBatch) -> pa.Table | pa.RecordBatch:
    """Per-item rows for a table whose rows may be runs; ``items`` comes back null.

    Rows of different runs of one work-group interleave once expanded, so the
    result is re-sorted into (launch, group, item, site) order when it needs it.
    """
    items = run_lengths(table)
    if not (items != 1).any():
        return table
    is_batch = isinstance(table, pa.RecordBatch)
    t = pa.Table.from_batches([table]) if is_batch else table
    total = int(items.sum())
    idx = np.repeat(np.arange(t.num_rows, dtype=np.int64), items)
    offset = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(items) - items, items)
    out = t.take(from_numpy(idx))
    item = to_numpy(out.column("item")).astype(np.int64) + offset
    out = out.set_column(out.schema.get_field_index("item"), out.schema.field("item"),
                         from_numpy(item, pa.int32()))
    out = out.set_column(out.schema.get_field_index("items"), out.schema.field("items"),
                         pa.nulls(total, pa.int32()))
    keys = [to_numpy(out.column(c)) for c in ("launch", "group")] + [item, to_numpy(out.column("site"))]
    if not _sorted_keys(*keys):
        out = out.take(from_numpy(np.lexsort(keys[::-1])))
    out = out.combine_chunks()  # one chunk: a run stands for at least one row
    return out.to_batches()[0] if is_batch else out


def expand_batches(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """:func:`expand_runs` over a stream whose rows are in (launch, group) order.

    The rows of the last work-group of each batch wait for the next batch, so
    every work-group is expanded (and ordered) whole and the stream stays in
    canonical order across batch boundaries.
    """
    carry: pa.Table | None = None
    for b in batches:
        t = pa.Table.from_batches([b]) if isinstance(b, pa.RecordBatch) else b
        if carry is not None:
            t = pa.concat_tables([carry, t])
            carry = None
        if not t.num_rows:
            continue
        launch = to_numpy(t.column("launch"))
        group = to_numpy(t.column("group"))
        same = (launch == launch[-1]) & (group == group[-1])
        # first row of the trailing block that shares the last row's (launch, group)
        cut = len(same) - int(np.argmin(same[::-1])) if not same.all() else 0
        head, carry = t.slice(0, cut), t.slice(cut)
        if head.num_rows:
            yield from expand_runs(head.combine_chunks()).to_batches()
    if carry is not None and carry.num_rows:
        yield from expand_runs(carry.combine_chunks()).to_batches()


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
    if not _sorted_keys(group, item, site):
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
