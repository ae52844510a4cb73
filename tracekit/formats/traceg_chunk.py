"""Thread blocks of a ``.traceg`` file -> trace v1 rows, many blocks at a time.

Parsing leaves one small record per warp instruction (block, warp, mask, site,
and for memory instructions the kind and the per-lane addresses).  This module
turns a chunk of those records into table rows with array operations only:
masks are expanded into (instruction, lane) pairs with one ``nonzero`` over a
bit matrix, rows are put into (group, item) order with a stable ``lexsort``, and
``seq`` and the per-(item, site) counts come from run boundaries.  No Python loop
runs per lane or per row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from tracekit.errors import TraceFormatError

WARP = 32
_LANES = np.arange(WARP, dtype=np.uint64)


@dataclass
class Chunk:
    """Per-instruction records of some thread blocks, appended while parsing."""

    ins_group: list[int] = field(default_factory=list)
    ins_warp: list[int] = field(default_factory=list)
    ins_mask: list[int] = field(default_factory=list)
    ins_site: list[int] = field(default_factory=list)
    mem_group: list[int] = field(default_factory=list)
    mem_warp: list[int] = field(default_factory=list)
    mem_mask: list[int] = field(default_factory=list)
    mem_site: list[int] = field(default_factory=list)
    mem_width: list[int] = field(default_factory=list)
    mem_kind: list[int] = field(default_factory=list)
    addrs: list[int] = field(default_factory=list)

    @property
    def lanes(self) -> int:
        return len(self.addrs) + 32 * len(self.ins_mask)


def _expand(group, warp, mask):
    """(row index, group, item) of every active lane, instruction by instruction, lanes ascending."""
    m = np.asarray(mask, dtype=np.uint64)
    bits = ((m[:, None] >> _LANES) & np.uint64(1)).astype(bool)
    rows, lanes = np.nonzero(bits)
    g = np.asarray(group, dtype=np.int64)[rows]
    item = np.asarray(warp, dtype=np.int64)[rows] * WARP + lanes
    return rows, g, item


def _runs(*keys: np.ndarray) -> np.ndarray:
    """Start index of every run of equal key tuples (keys already sorted)."""
    n = len(keys[0])
    if not n:
        return np.empty(0, dtype=np.int64)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for k in keys:
        change[1:] |= k[1:] != k[:-1]
    return np.flatnonzero(change)


def _check_items(item: np.ndarray, group: np.ndarray, threads: int, path) -> None:
    bad = np.flatnonzero(item >= threads)
    if len(bad):
        i = bad[0]
        raise TraceFormatError(f"thread block {int(group[i])} (linear id): an active lane is work-item "
                               f"{int(item[i])}, beyond the block's {threads} threads", path=str(path))


def _dict_column(codes: np.ndarray, values: list[str]) -> pa.DictionaryArray:
    """Strings ``values[codes]`` as a dictionary array (``values`` may repeat)."""
    uniq = sorted(set(values))
    remap = np.array([uniq.index(v) for v in values] or [0], dtype=np.int32)
    return pa.DictionaryArray.from_arrays(pa.array(remap[codes]), pa.array(uniq, pa.string()))


def access_table(chunk: Chunk, *, kernel: str, launch: int, threads: int, kinds: list[tuple[str, str]],
                 bases: np.ndarray, path) -> pa.Table:
    """Accesses of the chunk in (group, item, seq) order."""
    rows, group, item = _expand(chunk.mem_group, chunk.mem_warp, chunk.mem_mask)
    _check_items(item, group, threads, path)
    addr = np.asarray(chunk.addrs, dtype=np.uint64)
    kind = np.asarray(chunk.mem_kind, dtype=np.int64)[rows]
    base = bases[kind]
    addr = np.where((base > 0) & (addr >= base), addr - base, addr)
    order = np.lexsort((item, group))  # stable: each item keeps its program order
    group, item, rows, kind, addr = group[order], item[order], rows[order], kind[order], addr[order]
    starts = _runs(group, item)
    seq = np.arange(len(item), dtype=np.int64) - np.repeat(starts, np.diff(np.r_[starts, len(item)]))
    n = len(item)
    return pa.table({
        "kernel": _dict_column(np.zeros(n, np.int32), [kernel]),
        "launch": np.full(n, launch, np.int32),
        "group": group,
        "item": item.astype(np.int32),
        "site": np.asarray(chunk.mem_site, dtype=np.int64)[rows].astype(np.int32),
        "seq": seq,
        "space": _dict_column(kind, [s for s, _ in kinds]),
        "op": _dict_column(kind, [o for _, o in kinds]),
        "address": addr,
        "size": np.asarray(chunk.mem_width, dtype=np.int64)[rows].astype(np.uint16),
    })


def instruction_table(chunk: Chunk, *, kernel: str, launch: int, threads: int, opclass_of: dict,
                      path) -> pa.Table:
    """Execution counts per (group, item, site) of the chunk."""
    rows, group, item = _expand(chunk.ins_group, chunk.ins_warp, chunk.ins_mask)
    _check_items(item, group, threads, path)
    site = np.asarray(chunk.ins_site, dtype=np.int64)[rows]
    order = np.lexsort((site, item, group))
    group, item, site = group[order], item[order], site[order]
    starts = _runs(group, item, site)
    counts = np.diff(np.r_[starts, len(site)])
    sites = site[starts]
    names = sorted(opclass_of)
    lookup = {s: i for i, s in enumerate(names)}
    classes = sorted(set(opclass_of.values()))
    cls_index = np.array([classes.index(opclass_of[s]) for s in names], dtype=np.int32)
    site_pos = np.fromiter((lookup[int(s)] for s in np.unique(sites)), dtype=np.int64)
    pos = site_pos[np.searchsorted(np.unique(sites), sites)]
    n = len(starts)
    return pa.table({
        "kernel": _dict_column(np.zeros(n, np.int32), [kernel]),
        "launch": np.full(n, launch, np.int32),
        "group": group[starts],
        "item": item[starts].astype(np.int32),
        "site": sites.astype(np.int32),
        "opclass": _dict_column(cls_index[pos], classes),
        "count": counts.astype(np.int64),
    })
