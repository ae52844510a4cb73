"""What-if: work-groups launched in square tiles of the grid rather than row by row.

A 2-D launch hands out its work-groups in row order: the groups in flight at one
time span whole rows of the grid, and a kernel whose groups also read along the
other dimension (a matrix product's columns, a transpose's rows) has every group
in flight touch lines no neighbour will reuse before they are evicted.  Remapping
the group id in the kernel (the k-th group to start works on the k-th block of a
tile-by-tile walk) keeps the groups in flight on a small square of the grid, which
is how the guides' "smaller, squarer working set" is written in practice.  The
change relabels the trace's work-groups that way: inside the replayed head, the
k-th group in tile order takes the k-th smallest group id, and each group keeps
its own accesses and instructions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analyzers.whatif.changes import Change, Launch
from tracekit.errors import TracekitError


@dataclass(frozen=True)
class Swizzle(Change):
    """Work-groups started in ``tile`` x ``tile`` blocks of the grid, block by block."""

    tile: int = 4
    name = "swizzle"

    @property
    def spec(self) -> str:
        return f"swizzle={self.tile}"

    def describe(self) -> str:
        return (f"remap the work-group id so groups start in {self.tile} x {self.tile} tiles of the grid "
                "instead of row by row")

    def apply(self, launch: Launch, target) -> Launch:
        row = launch.row
        glob = [int(v) for v in (row.get("global_size") or [1, 1, 1])] + [1, 1]
        local = [max(int(v), 1) for v in (row.get("local_size") or [1, 1, 1])] + [1, 1]
        gx, gy = -(-glob[0] // local[0]), -(-glob[1] // local[1])
        if gy < 2 or gx < 2:
            raise TracekitError("swizzle: the grid has one row or column of work-groups; there is no "
                                "tile order to change")
        ins, acc = launch.instructions, launch.accesses
        old = np.unique(np.concatenate([ins["group"].to_numpy(np.int64), acc["group"].to_numpy(np.int64)]))
        if len(old) < 2:
            return launch
        x, y, z = old % gx, (old // gx) % gy, old // (gx * gy)
        t = max(int(self.tile), 1)
        order = np.lexsort((x % t, y % t, x // t, y // t, z))
        new = np.empty(len(old), dtype=np.int64)
        new[order] = old           # the k-th group in tile order takes the k-th smallest id
        if np.array_equal(new, old):
            return launch
        return launch.with_(instructions=ins.assign(group=_relabel(ins["group"], old, new)),
                            accesses=acc.assign(group=_relabel(acc["group"], old, new)) if len(acc) else acc)

    @classmethod
    def from_arg(cls, text: str, ints) -> Swizzle:
        v = ints(0, 1)
        tile = v[0] if v else 4
        if tile < 2:
            raise TracekitError(f"what-if '{text}': a tile is 2 work-groups or more on a side")
        return cls(tile)


def _relabel(groups: pd.Series, old: np.ndarray, new: np.ndarray) -> np.ndarray:
    at = np.searchsorted(old, groups.to_numpy(np.int64))
    return new[at].astype(groups.dtype)
