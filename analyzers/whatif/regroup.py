"""What-if: work handed out in another order (items of one path share a wave; a gather sorted).

Divergence costs a wave every path any of its lanes takes.  One fix a programmer
can make without changing what each item computes is to hand the work out
differently: sort or bin it so the items that take the same branches sit side by
side (a work list per path, a compaction pass, an index permutation inside the
work-group).  The change does that to the trace: inside each work-group the items
are ordered by how often they ran each of the ``sites`` (the divergent sites; all
sites when none are named), and the k-th item in that order takes the k-th
smallest local id.  Every item keeps its own instructions and addresses, so the
replay also shows what the new order costs the memory side (an odd/even split
turns a contiguous wave read into two strided ones).

:class:`SortWork` (``sort-work=SITE``) is the same idea for a gather: the
addresses ``SITE`` reads are handed to the items in increasing order, as they are
once the index array is sorted (or the elements renumbered by locality) before the
launch, so neighbouring lanes read neighbouring data as far as the data allows: a
sparse gather stays sparse.  The items' other accesses stay where they were, which
assumes the results are wanted in the sorted order (or reduced); a scatter back to
the original order would cost more.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analyzers.whatif.changes import Change, Launch
from tracekit.errors import TracekitError


@dataclass(frozen=True)
class Regroup(Change):
    """Items of each work-group reordered by their executions of ``sites`` (all sites when empty)."""

    sites: tuple[int, ...] = ()
    name = "regroup"
    refers_to = {"sites": "instruction site"}

    @property
    def spec(self) -> str:
        return "regroup" + ("=" + ",".join(str(s) for s in self.sites) if self.sites else "")

    def describe(self) -> str:
        return "hand out the work so that items taking the same path share a wave (sort or bin it by path)"

    def apply(self, launch: Launch, target) -> Launch:
        if launch.instructions.empty:
            raise TracekitError("regroup: the launch has no instruction counts to tell the paths apart")
        ins = launch.per_item().instructions   # items get new ids one by one
        path = ins if not self.sites else ins[ins["site"].isin(list(self.sites))]
        acc = launch.accesses
        order = _path_order(pd.concat([ins[["group", "item"]], acc[["group", "item"]]], ignore_index=True),
                            path)
        if order is None:
            return launch
        out_acc = acc.assign(item=_remap(acc, order)) if len(acc) else acc
        out_ins = ins.assign(item=_remap(ins, order))
        return launch.with_(accesses=out_acc, instructions=out_ins)

    @classmethod
    def from_arg(cls, text: str, ints) -> Regroup:
        return cls(tuple(ints(0, 1 << 16)))


@dataclass(frozen=True)
class SortWork(Change):
    """The addresses ``site`` gathers handed to the items in increasing order (the index array
    sorted, or the data renumbered by locality); everything else each item does stays in place."""

    site: int
    name = "sort-work"
    refers_to = {"site": "site"}

    @property
    def spec(self) -> str:
        return f"sort-work={self.site}"

    def describe(self) -> str:
        return (f"sort the work by the element site {self.site} gathers (or renumber the data by locality), "
                "so neighbouring items gather neighbouring elements")

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        mine = np.flatnonzero((acc["site"] == self.site).to_numpy())
        if not len(mine):
            raise TracekitError(f"sort-work: the launch has no accesses at site {self.site}")
        addr = acc["address"].to_numpy()
        ordered = np.sort(addr[mine], kind="stable")
        if np.array_equal(ordered, addr[mine]):
            return launch
        out = acc.copy()
        col = out.columns.get_loc("address")
        out.iloc[mine, col] = ordered      # rows are in canonical (group, item, seq) order
        return launch.with_(accesses=out)

    @classmethod
    def from_arg(cls, text: str, ints) -> SortWork:
        return cls(ints(1, 1)[0])


def _path_order(items: pd.DataFrame, path: pd.DataFrame) -> tuple[np.ndarray, np.ndarray] | None:
    """The launch's (group, item) pairs as one sorted key each, and each pair's new local id: inside
    each group, items sorted by their path counts (stable, so items of one path keep their order)
    take the group's own ids in increasing order.  None when the order does not change."""
    every = items.drop_duplicates().sort_values(["group", "item"], kind="stable")
    if path.empty:
        return None
    counts = path.pivot_table(index=["group", "item"], columns="site", values="count", aggfunc="sum",
                              fill_value=0)
    counts = counts.reindex(pd.MultiIndex.from_frame(every), fill_value=0)
    group, item = every["group"].to_numpy(np.int64), every["item"].to_numpy(np.int64)
    # by group first, then by the path counts, site by site
    order = np.lexsort([counts[c].to_numpy() for c in reversed(counts.columns)] + [group])
    new = np.empty(len(every), dtype=np.int64)
    new[order] = item          # the p-th item in path order takes the p-th smallest id of its group
    if np.array_equal(new, item):
        return None
    return _key(group, item), new


def _key(group: np.ndarray, item: np.ndarray) -> np.ndarray:
    return (group.astype(np.int64) << 32) | item.astype(np.int64)


def _remap(df: pd.DataFrame, order: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``df``'s item column with each (group, item) given its new id."""
    keys, new = order
    k = _key(df["group"].to_numpy(np.int64), df["item"].to_numpy(np.int64))
    at = np.clip(np.searchsorted(keys, k), 0, len(keys) - 1)
    found = keys[at] == k
    return np.where(found, new[at], df["item"].to_numpy(np.int64)).astype(df["item"].dtype)
