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
import pyarrow as pa

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


def sorted_keys(*cols: np.ndarray) -> bool:
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


def run_offsets(items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For runs of ``items`` work-items each: the run of every work-item and its place in the run
    (the row's ``item`` plus that place is the work-item's id)."""
    items = np.asarray(items, np.int64)
    idx = np.repeat(np.arange(len(items), dtype=np.int64), items)
    return idx, np.arange(len(idx), dtype=np.int64) - np.repeat(np.cumsum(items) - items, items)


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
    idx, offset = run_offsets(items)
    total = len(idx)
    out = t.take(from_numpy(idx))
    item = to_numpy(out.column("item")).astype(np.int64) + offset
    out = out.set_column(out.schema.get_field_index("item"), out.schema.field("item"),
                         from_numpy(item, pa.int32()))
    out = out.set_column(out.schema.get_field_index("items"), out.schema.field("items"),
                         pa.nulls(total, pa.int32()))
    keys = [to_numpy(out.column(c)) for c in ("launch", "group")] + [item, to_numpy(out.column("site"))]
    if not sorted_keys(*keys):
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

