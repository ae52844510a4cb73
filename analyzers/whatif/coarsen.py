"""What-if: each work-item does the work of ``n`` neighbours along x.

The usual first change to an image kernel that handles one 8-bit pixel (or one float) per
work-item: the global size along x shrinks ``n`` times and each item handles ``n``
neighbouring elements, reading and writing them with vector loads and stores
(``uchar4``, ``float4``).  The rewrite is literal:

* **items**: work-items ``n*x .. n*x + n-1`` of a row become item ``x``.  Where the grid's
  work-groups along x divide by ``n``, ``n`` neighbouring work-groups become one of the old
  size (the global size along x divides by ``n``, the work-group size stays); otherwise
  each work-group keeps its place with ``n`` times fewer items along x, so that no
  work-group of the new grid is partly empty;
* **accesses**: the new item runs its old items' instructions one after the other for
  each step of the program (pixel 0's k-th access, then pixel 1's, ...); accesses at one
  site that lie within ``max_bytes`` (the widest access the guides recommend per
  work-item) of the first merge into one vector access over that span (a gap, such as
  the alpha bytes of RGBA pixels whose colour alone is read, is read along), and loads
  of the same address at the same site (a coefficient every pixel reads) are made once;
* **instructions**: address arithmetic and loop control (the sites table's ``role``) run
  once for the ``n`` elements, as a programmer writes ``vload4(x, row)``; the kernel's own
  arithmetic runs ``n`` times (once per lane of the vector); loads and stores count the
  merged accesses.

Everything else is the replay's: transactions, caches, the latency and ALU models then
say what the wider accesses and the fewer items are worth on each target.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit

from analyzers.whatif.changes import _MASK, Change, Launch, scale_counts
from tracekit.errors import TracekitError
from tracekit.trace.run_frames import split_runs

#: Roles whose instructions a coarsened item runs once for all its elements.
SHARED_ROLES = frozenset({"address", "loop"})
#: Memory classes whose counts follow the merged accesses.
MEMORY_CLASSES = ("load", "store", "atomic")


@dataclass(frozen=True)
class Coarsen(Change):
    """Each work-item handles ``n`` neighbouring elements along x, with vector accesses."""

    n: int = 4
    max_bytes: int = 16
    name = "coarsen"
    speculative = True     # more work per item also means fewer waves to hide latency

    @property
    def spec(self) -> str:
        return f"coarsen={self.n}"

    def describe(self) -> str:
        return (f"give each work-item {self.n} neighbouring elements along x, read and written with "
                f"vector loads and stores (global size x / {self.n})")

    @classmethod
    def from_arg(cls, text: str, ints) -> Coarsen:
        v = ints(0, 1)
        n = v[0] if v else 4
        if n not in (2, 4, 8, 16):
            raise TracekitError(f"what-if '{text}': elements per work-item must be 2, 4, 8 or 16")
        return cls(n)

    def apply(self, launch: Launch, target) -> Launch:
        row = dict(launch.row)
        gsize = [max(int(x), 1) for x in row["global_size"]]
        local = [max(int(x), 1) for x in row["local_size"]]
        n = self.n
        groups = [-(-g // loc) for g, loc in zip(gsize, local, strict=True)]
        if local[0] % n:
            raise TracekitError(f"what-if {self.spec}: the work-group's {local[0]} items along x do not "
                                f"split into items of {n} elements")
        per = local[0] // n              # new items along x one old work-group's row becomes
        # n neighbouring work-groups become one of the old size where the grid's groups along x
        # divide by n and the head holds all n of some (not so for groups sampled at random)
        merge = groups[0] % n == 0 and _has_whole_runs(launch, groups[0], n)
        new_local = list(local) if merge else [per, local[1], local[2]]
        meta = dict(row.get("metadata") or {})

        def remap(df: pd.DataFrame):
            return remap_ids(df["group"].to_numpy().astype(np.int64), df["item"].to_numpy().astype(np.int64))

        def remap_ids(g: np.ndarray, item: np.ndarray):
            lx, rest = item % local[0], item // local[0]
            if not merge:   # each work-group keeps its place with n times fewer items along x
                return g, lx // n + new_local[0] * rest, lx % n
            bx, brest = g % groups[0], g // groups[0]
            return bx // n + (groups[0] // n) * brest, (bx % n) * per + lx // n + local[0] * rest, lx % n

        acc = launch.accesses
        group, item, lane = remap(acc)
        acc = acc.assign(group=group, item=item, _lane=lane, _old_seq=acc["seq"].to_numpy())
        acc = acc.sort_values(["group", "item", "_old_seq", "_lane"], kind="stable").reset_index(drop=True)
        acc, per_site = _merge(acc, self.max_bytes)

        ins = launch.instructions
        if len(ins):
            shared = (ins["site"].map(launch.roles).isin(SHARED_ROLES).to_numpy()
                      | (ins["opclass"] == "barrier").to_numpy())   # the group waits once per barrier
            if "items" in ins.columns:
                ins = _coarsen_runs(ins, shared, n, local[0], remap_ids)
            else:
                group, item, _ = remap(ins)
                ins = _merge_items(ins.assign(group=group, item=item), shared)
            ins = _memory_counts(ins, per_site)
            ins = ins.sort_values(["group", "item", "site"], kind="stable").reset_index(drop=True)
            ins = ins[launch.instructions.columns]
        if merge:   # keep the new work-groups the head of the launch holds whole
            size = np.bincount(_runs(launch, groups[0], n))
            full = np.flatnonzero(size == n)
            acc = acc[acc["group"].isin(full)].reset_index(drop=True)
            ins = ins[ins["group"].isin(full)].reset_index(drop=True)
            total = int(np.prod([groups[0] // n, groups[1], groups[2]]))
            meta.pop("sampling", None)
            if len(full) < total:
                meta["sampling"] = {"mode": "first", "total_groups": total, "groups_recorded": int(len(full))}
        row["metadata"] = meta
        row["global_size"] = [-(-gsize[0] // n), gsize[1], gsize[2]]
        row["local_size"] = new_local
        return launch.with_(accesses=acc, instructions=ins, row=row)


def _merge_items(ins: pd.DataFrame, shared: np.ndarray) -> pd.DataFrame:
    """Rows of one new item, site and class made one: address arithmetic, loop control and barriers
    (``shared``) run once for the item's elements (the most any of them ran), the rest once each."""
    keys = ["group", "item", "site", "opclass"]
    rest = [c for c in ins.columns if c not in (*keys, "count")]
    once = ins[shared].groupby(keys, sort=False, observed=True).agg(
        {"count": "max", **{c: "first" for c in rest}})
    every = ins[~shared].groupby(keys, sort=False, observed=True).agg(
        {"count": "sum", **{c: "first" for c in rest}})
    return pd.concat([once, every]).reset_index()


def _coarsen_runs(ins: pd.DataFrame, shared: np.ndarray, n: int, row_items: int, remap_ids) -> pd.DataFrame:
    """:func:`_merge_items` on instruction runs, keeping them runs.

    Items ``n*j .. n*j + n-1`` of one row become one new item, and consecutive blocks of a
    row consecutive new items.  The part of a run that covers whole blocks therefore stays a
    run (``items`` / n new items, each with ``n`` times the count, or the count itself where
    the elements share the work); only its ragged ends, parts of a block, are merged with the
    other runs' parts of the same block, as per-item rows are."""
    run, start, length = split_runs(ins["item"].to_numpy(np.int64), ins["items"].to_numpy(np.int64),
                                    row_items)
    end = start + length
    lo, hi = -(-start // n) * n, end // n * n          # whole blocks: [lo, hi)
    whole = lo < hi
    head_end = np.where(whole, lo, end)                # a piece inside one block is all head
    has_head = start < head_end
    has_tail = whole & (hi < end)
    count = ins["count"].to_numpy(np.int64)
    g = ins["group"].to_numpy(np.int64)
    is_shared = shared[run]

    def rows(sel, first, items, per_item):
        r = run[sel]
        ng, ni, _ = remap_ids(g[r], first[sel])
        return ins.take(r).assign(group=ng, item=ni, items=items, count=per_item)

    full = rows(whole, lo, (hi - lo)[whole] // n, np.where(is_shared, 1, n)[whole] * count[run][whole])
    # ragged ends: each item of the part stands for itself; merged per new item like per-item rows
    part_first = np.concatenate([start[has_head], hi[has_tail]])
    part_len = np.concatenate([(head_end - start)[has_head], (end - hi)[has_tail]])
    part_run = np.concatenate([run[has_head], run[has_tail]])
    if len(part_run):
        ng, ni, _ = remap_ids(g[part_run], part_first)
        sh = shared[part_run]
        part = ins.take(part_run).assign(group=ng, item=ni, items=1,
                                         count=count[part_run] * np.where(sh, 1, part_len))
        merged = _merge_items(part.drop(columns="items"), sh).assign(items=1)
        full = pd.concat([full, merged], ignore_index=True)
    return full


def _runs(launch: Launch, groups_x: int, n: int) -> np.ndarray:
    """The new work-group of each old one the head holds: runs of ``n`` neighbours along x."""
    g = np.unique(np.concatenate([launch.accesses["group"].to_numpy(),
                                  launch.instructions["group"].to_numpy()])).astype(np.int64)
    return g // groups_x * (groups_x // n) + g % groups_x // n


def _has_whole_runs(launch: Launch, groups_x: int, n: int) -> bool:
    """Whether the head holds all ``n`` work-groups of some run of neighbours along x."""
    runs = _runs(launch, groups_x, n)
    return bool(len(runs)) and bool((np.bincount(runs) == n).any())


@njit(cache=True)
def _windows(same, addr, size, max_bytes):
    """Start of each merged access (True) and its bytes: a row that continues the previous one's
    site and step joins its window while it lies ahead of it and within ``max_bytes`` of the
    window's start (a gap between elements, an RGBA pixel's unused alpha, is read along)."""
    n = same.shape[0]
    first = np.ones(n, np.bool_)
    nbytes = size.copy()
    w = 0
    for r in range(1, n):
        if same[r] and addr[r] >= addr[r - 1] and addr[r] + size[r] - addr[w] <= max_bytes:
            first[r] = False
            end = addr[r] + size[r] - addr[w]
            if end > nbytes[w]:
                nbytes[w] = end
        else:
            w = r
    return first, nbytes


def _merge(acc: pd.DataFrame, max_bytes: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows of one new item at one site and step that repeat an address (loads) or lie within one
    vector's reach of each other merged; returns the accesses (``seq`` renumbered) and per site
    the rows before and after."""
    before = acc.groupby(["site", "op"], sort=False).size().rename("before")
    if len(acc) == 0:
        return acc.drop(columns=["_lane", "_old_seq"]), before.to_frame().assign(after=0)
    g, it = acc["group"].to_numpy(), acc["item"].to_numpy()
    site, op = acc["site"].to_numpy(), acc["op"].to_numpy()
    space = acc["space"].to_numpy()
    addr = (acc["address"].to_numpy().astype(np.uint64) & _MASK).astype(np.int64)
    size = acc["size"].to_numpy().astype(np.int64)
    old_seq = acc["_old_seq"].to_numpy()
    same = np.zeros(len(acc), bool)
    same[1:] = (g[1:] == g[:-1]) & (it[1:] == it[:-1]) & (site[1:] == site[:-1]) & (op[1:] == op[:-1]) \
        & (old_seq[1:] == old_seq[:-1]) & (space[1:] != "image") & (space[1:] != "private") \
        & ((op[1:] == "load") | (addr[1:] != addr[:-1]))     # two stores to one address stay two
    first, nbytes = _windows(same, addr, size, max_bytes)
    out = acc.iloc[np.flatnonzero(first)].copy()
    out["size"] = nbytes[first]
    out = out.drop(columns=["_lane", "_old_seq"])
    out["seq"] = out.groupby(["group", "item"], sort=False).cumcount().to_numpy()
    after = out.groupby(["site", "op"], sort=False).size().rename("after")
    per_site = pd.concat([before, after], axis=1).fillna(0)
    return out.reset_index(drop=True), per_site


def _memory_counts(ins: pd.DataFrame, per_site: pd.DataFrame) -> pd.DataFrame:
    """Load, store and atomic counts of each site cut by the share of its accesses merged away."""
    for cls in MEMORY_CLASSES:
        rows = per_site.xs(cls, level="op") if cls in per_site.index.get_level_values("op") else None
        if rows is not None:
            ins = scale_counts(ins, rows["before"] - rows["after"], rows["before"], cls)
    return ins
