"""Views of a trace: some of its launches, or some work-groups of one launch.

A :class:`LaunchView` is a :class:`~tracekit.trace.reader.Trace` that yields only
the rows of the launches (and optionally the work-groups) it keeps, so the
ordinary analysis runs unchanged on one shard of a trace: a Dask worker's launch,
a compute unit's work-groups, or a sample of work-groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tracekit.trace import schema
from tracekit.trace.reader import Trace


class LaunchView(Trace):
    """The rows of some launches of a trace; everything else is the trace's own.

    ``groups`` (optional) further keeps only those work-group ids of the accesses
    and instructions (compute-unit shards).
    """

    def iter_batches(self, table: str = "accesses", *, columns=None, launches=None, **kwargs):
        keep = self._keep if launches is None else sorted(set(self._keep) & {int(x) for x in launches})
        if table not in ("accesses", "instructions"):
            yield from Trace.iter_batches(self, table, columns=columns, **kwargs)
            return
        groups = self._groups
        cols = columns
        if groups is not None and columns is not None and "group" not in columns:
            cols = [*columns, "group"]
        for b in Trace.iter_batches(self._base, table, columns=cols, launches=keep, **kwargs):
            if groups is not None:
                b = b.filter(pc.is_in(b.column("group"), groups))
                if cols is not columns:
                    b = b.select(columns)
            if b.num_rows:
                yield b

    def launch_ids(self, table: str = "accesses") -> set[int]:
        """The kept launches that have rows here (group filters make statistics unusable)."""
        out: set[int] = set()
        for b in self.iter_batches(table, columns=["launch"], runs=True):
            out.update(pc.unique(b.column(0)).to_pylist())
        return out

    @property
    def launches(self) -> pa.Table:
        t = self._base.launches
        return t.filter(pc.is_in(t["launch"], pa.array(self._keep, pa.int32())))

    @cached_property
    def instructions(self) -> pa.Table:
        batches = list(self.iter_batches("instructions"))
        return pa.Table.from_batches(batches) if batches else schema.empty("instructions")

    @property
    def accesses(self) -> pa.Table:
        batches = list(self.iter_batches("accesses"))
        return pa.Table.from_batches(batches) if batches else schema.empty("accesses")

    @property
    def num_accesses(self) -> int:
        return sum(b.num_rows for b in self.iter_batches("accesses", columns=["launch"]))


def launch_view(trace: Trace, launches: Iterable[int], groups: Sequence[int] | None = None) -> LaunchView:
    """``trace`` seen through :class:`LaunchView` (same path, so results name the same trace)."""
    view = LaunchView.__new__(LaunchView)
    view.__dict__.update({k: v for k, v in trace.__dict__.items() if k != "instructions"})
    view._base = trace
    view._keep = sorted({int(x) for x in launches})
    view._groups = None if groups is None else pa.array(np.asarray(groups, np.int64))
    return view


def launch_groups(trace: Trace, launch: int) -> np.ndarray:
    """The work-group ids of ``launch`` in stored (= execution rank) order."""
    out = []
    for b in trace.iter_batches("accesses", columns=["group"], launches=[launch]):
        g = b.column(0).to_numpy()
        out.append(g[np.concatenate([[True], g[1:] != g[:-1]])])
    if not out:
        return np.zeros(0, np.int64)
    g = np.concatenate(out)
    return g[np.concatenate([[True], g[1:] != g[:-1]])]
