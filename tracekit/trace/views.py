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


class _FilteredTrace(Trace):
    """A trace whose ``iter_batches`` leaves rows out: the whole-table views follow it."""

    @property
    def accesses(self) -> pa.Table:
        batches = list(self.iter_batches("accesses"))
        return pa.Table.from_batches(batches) if batches else schema.empty("accesses")

    @property
    def num_accesses(self) -> int:
        return sum(b.num_rows for b in self.iter_batches("accesses", columns=["launch"]))


class LaunchView(_FilteredTrace):
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


class CompiledAccessView(_FilteredTrace):
    """The accesses an optimizing compile keeps: rows of sites it removes are left out.

    The sites table's ``compiled`` column (docs/trace-format.md) is 0 for a site whose
    class the optimized code no longer has on its line: a load from a constant table at
    an index that unrolling made constant, a private array promoted to registers, a
    store that a later one overwrites.  Such an instruction never reaches the memory
    system, so the replay must not see its accesses.  Everything else is the trace's own.
    """

    def iter_batches(self, table: str = "accesses", *, columns=None, **kwargs):
        if table != "accesses":
            yield from self._base.iter_batches(table, columns=columns, **kwargs)
            return
        cols = columns if columns is None else list(dict.fromkeys([*columns, "launch", "site"]))
        for b in self._base.iter_batches(table, columns=cols, **kwargs):
            drop = self._dropped(b)
            if drop is not None:
                b = b.filter(pc.invert(drop))
            if cols is not columns:
                b = b.select(columns)
            if b.num_rows:
                yield b

    def _dropped(self, b: pa.RecordBatch):
        """Mask of the rows of ``b`` at removed sites (None when there are none)."""
        launch = b.column(b.schema.get_field_index("launch"))
        site = b.column(b.schema.get_field_index("site"))
        mask = None
        for ln in pc.unique(launch).to_pylist():
            removed = self._removed.get(int(ln))
            if removed is None:
                continue
            hit = pc.and_(pc.equal(launch, ln), pc.is_in(site, removed))
            mask = hit if mask is None else pc.or_(mask, hit)
        return mask

    def launch_ids(self, table: str = "accesses") -> set[int]:
        return self._base.launch_ids(table)

    @property
    def launches(self) -> pa.Table:
        return self._base.launches

    @property
    def instructions(self) -> pa.Table:
        return self._base.instructions

    @property
    def kernels(self) -> list[str]:
        return self._base.kernels

    def launch_metadata(self, launch: int) -> dict:
        return self._base.launch_metadata(launch)



def removed_sites(trace: Trace) -> dict[int, pa.Array]:
    """launch -> sites of its kernel the optimizing compile removes (launches with any)."""
    sites = trace.sites
    if "compiled" not in sites.column_names or not sites.num_rows:
        return {}
    gone = sites.filter(pc.equal(sites["compiled"], 0))
    if not gone.num_rows:
        return {}
    by_kernel: dict[str, list[int]] = {}
    for k, s in zip(gone["kernel"].to_pylist(), gone["site"].to_pylist(), strict=True):
        by_kernel.setdefault(k, []).append(int(s))
    launches = trace.launches
    out = {}
    for ln, k in zip(launches["launch"].to_pylist(), launches["kernel"].to_pylist(), strict=True):
        if k in by_kernel:
            out[int(ln)] = pa.array(sorted(by_kernel[k]), pa.int32())
    return out


def compiled_view(trace: Trace) -> Trace:
    """``trace`` as the optimizing compile runs it (:class:`CompiledAccessView`); the trace itself
    when it has no compiled view or the compile removes no site of its launches."""
    if isinstance(trace, CompiledAccessView):
        return trace
    removed = removed_sites(trace)
    if not removed:
        return trace
    view = CompiledAccessView.__new__(CompiledAccessView)
    view.__dict__.update({k: v for k, v in trace.__dict__.items() if k != "instructions"})
    view._base = trace
    view._removed = removed
    return view
