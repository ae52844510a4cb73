"""Building trace v1 tables from per-lane arrays (shared by the foreign readers).

Readers collect one small array per warp instruction; these helpers concatenate
them, put the rows into canonical order (item, then the item's own order) and
derive ``seq`` with a vectorised per-item counter, so no reader loops over rows.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import schema


def _cat(parts, dtype) -> np.ndarray:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype)


def per_item_seq(items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stable order by item and each row's rank within its item (``seq``)."""
    order = np.argsort(items, kind="stable")
    sorted_items = items[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_items)) + 1] if len(items) else np.empty(0, np.int64)
    first = np.repeat(starts, np.diff(np.r_[starts, len(items)]))
    return order, np.arange(len(items), dtype=np.int64) - first


def accesses_table(kernel: str, launch: int, group: int, items, sites, addrs, sizes, spaces, ops) -> pa.Table:
    """One work-group's accesses in (item, seq) order; ``seq`` counts each item's accesses."""
    item = _cat(items, np.int64)
    order, seq = per_item_seq(item)
    n = len(item)
    space = np.array([s for part in spaces for s in part], dtype=object)
    op = np.array([s for part in ops for s in part], dtype=object)
    return pa.table({
        "kernel": pa.array([kernel] * n, pa.string()),
        "launch": np.full(n, launch, np.int32),
        "group": np.full(n, group, np.int64),
        "item": item[order].astype(np.int32),
        "site": _cat(sites, np.int64)[order].astype(np.int32),
        "seq": seq,
        "space": pa.array(space[order] if n else [], pa.string()),
        "op": pa.array(op[order] if n else [], pa.string()),
        "address": _cat(addrs, np.uint64)[order],
        "size": _cat(sizes, np.int64)[order].astype(np.uint16),
    })


def instructions_table(kernel: str, launch: int, group: int, items, sites, opclass_of: dict) -> pa.Table:
    """Execution counts per (item, site) of one work-group."""
    item = _cat(items, np.int64)
    site = _cat(sites, np.int64)
    if not len(item):
        return schema.empty("instructions")
    keys = np.stack([item, site], axis=1)
    uniq, counts = np.unique(keys, axis=0, return_counts=True)
    n = len(uniq)
    return pa.table({
        "kernel": pa.array([kernel] * n, pa.string()),
        "launch": np.full(n, launch, np.int32),
        "group": np.full(n, group, np.int64),
        "item": uniq[:, 0].astype(np.int32),
        "site": uniq[:, 1].astype(np.int32),
        "opclass": pa.array([opclass_of[int(s)] for s in uniq[:, 1]], pa.string()),
        "count": counts.astype(np.int64),
    })
