"""Every count a trace states about a launch, checked against the others.

A launch's counts come from several places that must agree: the grid
(``global_size`` / ``local_size``), the ``sampling`` record of its metadata
(``total_groups``, ``groups_recorded``, ``n``, ``k``, ``scale``), the metadata's
``num_groups``, and the work-groups and work-items its rows actually use.  An
analysis scales per-group counts by ``total_groups / groups_recorded``, so a
count that contradicts another changes results by orders of magnitude without a
word; sizes whose products do not fit a 64-bit integer wrap around in NumPy.

:class:`CountCheck` is the one implementation: ``tracekit validate`` feeds it
the batches it streams anyway and reports its problems next to the others, and
:func:`check_counts` runs it on its own (reading only the id columns) for every
analysis, so ``analyze``, ``report``, ``compare`` and the jobs refuse exactly
the counts that ``validate`` refuses.
"""

from __future__ import annotations

import math
import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from tracekit.errors import TraceFormatError
from tracekit.trace import metadata

#: Largest count of work-items or work-groups: the ``group`` column and NumPy's products are int64.
COUNT_MAX = 2**63 - 1
#: Largest work-group: the ``item`` column is int32.
ITEMS_MAX = 2**31 - 1
#: ``sampling.scale`` may differ from ``total_groups / groups_recorded`` by this much (rounding).
SCALE_TOLERANCE = 1e-6

#: add(check, message, *, table, row, column, count, warning): how problems are handed on.
AddProblem = Callable[..., None]


@dataclass
class _Launch:
    """One launch row's exact sizes (Python integers, so nothing wraps) and sampling counts."""

    launch: int
    kernel: str
    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    groups_per_dim: tuple[int, ...]
    items: int
    groups: int
    #: ``sampling.groups_recorded`` where it says fewer groups than the grid has: the distinct
    #: groups of the rows must not exceed it.
    recorded: int | None = None
    distinct: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    rows: int = 0


def _dims(d) -> str:
    return " x ".join(str(int(x)) for x in d)


def _sizes(row: dict) -> tuple[tuple[int, ...], tuple[int, ...]]:
    def three(v):
        vals = [int(x) for x in (v or [])][:3]
        return tuple(vals + [1] * (3 - len(vals)))
    return three(row.get("global_size")), three(row.get("local_size"))


def grid_problems(global_size, local_size) -> list[tuple[str, str, str]]:
    """(check, column, why) for each product of the sizes that does not fit the columns and
    integers that hold it (sizes of at least 1 per dimension)."""
    glob, local = tuple(int(g) for g in global_size), tuple(int(x) for x in local_size)
    groups = math.prod(-(-g // max(loc, 1)) for g, loc in zip(glob, local, strict=True))
    out = []
    for what, value, limit, col, column in (
            ("work-items in the grid", math.prod(glob), COUNT_MAX, "int64", "global_size"),
            ("work-groups in the grid", groups, COUNT_MAX, "the int64 'group' column", "global_size"),
            ("work-items in a work-group", math.prod(local), ITEMS_MAX, "the int32 'item' column",
             "local_size")):
        if value > limit:
            out.append((f"size-overflow:{what}", column, f"(global {_dims(glob)}, local {_dims(local)}) has "
                        f"{value:,} {what}, more than {col} holds (at most {limit:,})"))
    return out


def check_grid(global_size, local_size, *, path: str | None = None, what: str = "the launch") -> None:
    """Refuse sizes whose products do not fit (TraceFormatError naming ``what``)."""
    problems = grid_problems(global_size, local_size)
    if problems:
        raise TraceFormatError(f"{what} {problems[0][2]}", path=path, column=problems[0][1])


class CountCheck:
    """Launch sizes and sampling counts, then the rows' ids against them, batch by batch."""

    def __init__(self, launches: pa.Table, add: AddProblem, path: str | None = None):
        self.add = add
        self.path = path
        self.by_id: dict[int, _Launch] = {}
        self.total_rows = 0
        rows = launches.to_pylist()
        seen = Counter(int(r["launch"]) for r in rows)
        dup = sorted(i for i, n in seen.items() if n > 1)
        if dup:
            add("duplicate-launch", f"launch {dup[0]} appears more than once", table="launches",
                column="launch", count=len(dup))
        for r in rows:
            launch = self._launch(r)
            if launch.launch not in self.by_id:
                self.by_id[launch.launch] = launch
        self.ids = np.array(sorted(self.by_id), np.int64)
        order = [self.by_id[int(i)] for i in self.ids]
        # limits for the per-row lookups, capped so that a refused size cannot wrap around
        self.item_limit = np.array([min(x.items, COUNT_MAX) for x in order], np.int64)
        self.group_limit = np.array([min(x.groups, COUNT_MAX) for x in order], np.int64)
        self.local_dims = [x.local_size for x in order]

    # -- the launches table ----------------------------------------------------
    def _launch(self, row: dict) -> _Launch:
        lid = int(row["launch"])
        glob, local = _sizes(row)
        if min(glob) < 1 or min(local) < 1:
            self.add("launch-size", f"launch {lid} has a size below 1 (global {_dims(glob)}, "
                     f"local {_dims(local)})", table="launches", column="local_size")
            # kept (its kernel name is still checked), without limits on its rows
            return _Launch(lid, row.get("kernel") or "", glob, local, (0, 0, 0), COUNT_MAX, COUNT_MAX)
        per_dim = tuple(-(-g // loc) for g, loc in zip(glob, local, strict=True))
        launch = _Launch(lid, row.get("kernel") or "", glob, local, per_dim, math.prod(local),
                         math.prod(per_dim))
        self._check_ranges(launch)
        try:
            meta = metadata.parse(row.get("metadata"), path=self.path, launch=lid)
        except TraceFormatError as exc:
            self.add("metadata", exc.message, table="launches", column="metadata")
            return launch
        self._check_num_groups(launch, meta.get("num_groups"))
        sampling = meta.get("sampling")
        if isinstance(sampling, dict):
            self._check_sampling(launch, sampling, finished=meta.get("status") != "incomplete")
        return launch

    def _check_ranges(self, x: _Launch) -> None:
        for check, column, why in grid_problems(x.global_size, x.local_size):
            self.add(check, f"launch {x.launch} {why}", table="launches", column=column)

    def _check_num_groups(self, x: _Launch, stated) -> None:
        if not isinstance(stated, list) or not 1 <= len(stated) <= 3:
            return
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in stated):
            return
        padded = tuple(stated) + (1,) * (3 - len(stated))
        if padded != x.groups_per_dim:
            self.add("num-groups", f"launch {x.launch}: metadata 'num_groups' is {_dims(padded)} but the "
                     f"grid (global {_dims(x.global_size)}, local {_dims(x.local_size)}) has "
                     f"{_dims(x.groups_per_dim)} work-groups", table="launches", column="metadata")

    def _check_sampling(self, x: _Launch, s: dict, finished: bool = True) -> None:
        """The sampling record against the grid and against itself (a launch that did not finish
        recorded fewer work-groups than its mode asked for: only those it wrote count)."""
        def bad(check: str, why: str) -> None:
            self.add(f"sampling:{check}", f"launch {x.launch}: {why}", table="launches", column="metadata")

        total, rec = s.get("total_groups"), s.get("groups_recorded")
        mode, n, k = s.get("mode"), s.get("n"), s.get("k")
        if total is not None and total != x.groups:
            bad("total", f"sampling.total_groups is {total:,} but the grid (global {_dims(x.global_size)}, "
                f"local {_dims(x.local_size)}) has {x.groups:,} work-groups")
        if rec is None:
            if total is not None:
                bad("recorded", "sampling gives total_groups but not groups_recorded, so counts cannot be "
                    "scaled to the whole launch")
            return
        if rec > x.groups:
            bad("recorded", f"sampling.groups_recorded is {rec:,}, more than the grid's {x.groups:,} "
                "work-groups")
        if mode == "all" and finished and rec != x.groups:
            bad("recorded", f"sampling.mode is 'all' but groups_recorded is {rec:,} of the grid's "
                f"{x.groups:,} work-groups")
        if mode in ("first", "random") and n is not None and rec > n:
            bad("n", f"sampling.groups_recorded is {rec:,}, more than the n = {n:,} work-groups "
                f"mode '{mode}' records")
        if mode == "every" and k is not None:
            if k < 1:
                bad("k", f"sampling.k is {k}, expected a whole number >= 1")
            elif rec > -(-x.groups // k):
                bad("k", f"sampling.groups_recorded is {rec:,}, more than one in k = {k:,} of the grid's "
                    f"{x.groups:,} work-groups")
        self._check_scale(x, s.get("scale"), rec, bad)
        if rec < x.groups:
            x.recorded = rec

    @staticmethod
    def _check_scale(x: _Launch, scale, rec: int, bad) -> None:
        if scale is None:
            return
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) \
                or scale <= 0:
            bad("scale", f"sampling.scale is {scale!r}, expected a finite number > 0")
            return
        if rec > 0 and rec <= x.groups:
            want = x.groups / rec
            if abs(scale - want) > SCALE_TOLERANCE * want:
                bad("scale", f"sampling.scale is {scale:g} but total_groups / groups_recorded is "
                    f"{x.groups:,} / {rec:,} = {want:g}")

    # -- the rows ----------------------------------------------------------------
    def lookup(self, launch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row's launch is in the launches table, its position in the sorted ids)."""
        if not len(self.ids):
            return np.zeros(len(launch), bool), np.zeros(len(launch), np.int64)
        pos = np.minimum(np.searchsorted(self.ids, launch), len(self.ids) - 1)
        return self.ids[pos] == launch, pos

    def rows(self, table: str, row0: int, launch: np.ndarray, group: np.ndarray, item: np.ndarray,
             items: np.ndarray | None = None) -> None:
        """Check one batch of ``table``'s id columns (row ``row0 + 1`` is its first row).

        Rows come in runs of one launch (stored order), so limits are looked up per run and
        compared with the run's largest id; rows are looked at one by one only in a run that
        has a value out of range.
        """
        if table == "accesses":
            self.total_rows += len(launch)
        if not len(self.ids) or not len(launch):
            return
        starts = np.flatnonzero(np.r_[True, launch[1:] != launch[:-1]])
        lengths = np.diff(np.r_[starts, len(launch)])
        known, pos = self.lookup(launch[starts])
        if table == "accesses":
            counts = np.bincount(pos[known], weights=lengths[known], minlength=len(self.ids))
            for p in np.flatnonzero(counts):
                self.by_id[int(self.ids[p])].rows += int(counts[p])
        if items is not None:  # a run of work-items must end inside its work-group
            item = item.astype(np.int64) + items - 1
        for col, values, limit, what in (("item", item, self.item_limit, "local size"),
                                         ("group", group, self.group_limit, "number of work-groups")):
            bad_runs = known & (np.maximum.reduceat(values, starts) >= limit[pos])
            if bad_runs.any():
                self._out_of_range(table, row0, col, what, values, limit, np.repeat(pos, lengths),
                                   np.repeat(bad_runs, lengths))
        if table == "accesses":
            self._distinct_groups(launch, group)

    def _out_of_range(self, table, row0, col, what, values, limit, pos, suspect) -> None:
        over = suspect & (values >= limit[pos])
        i = int(np.flatnonzero(over)[0])
        p = pos[i]
        shape = (f"{_dims(self.local_dims[p])} = {limit[p]} items" if col == "item"
                 else f"{limit[p]} work-groups")
        self.add(f"{col}-range", f"{col} {values[i]} is outside launch {self.ids[p]}'s {what} ({shape}); "
                 f"expected 0 to {limit[p] - 1}", table=table, row=row0 + i + 1, column=col,
                 count=int(over.sum()))

    def _distinct_groups(self, launch: np.ndarray, group: np.ndarray) -> None:
        """Collect the work-groups of sampled launches, never more than one past what they recorded."""
        open_ids = [x.launch for x in self.by_id.values()
                    if x.recorded is not None and len(x.distinct) <= x.recorded]
        if not open_ids:
            return
        # one row per run of equal (launch, group): in stored order that is one per work-group
        first = np.r_[True, (launch[1:] != launch[:-1]) | (group[1:] != group[:-1])]
        ls, gs = launch[first], group[first]
        mine = np.isin(ls, open_ids)
        if not mine.any():
            return
        ls, gs = ls[mine], gs[mine]
        order = np.lexsort((gs, ls))
        ls, gs = ls[order], gs[order]
        starts = np.flatnonzero(np.r_[True, ls[1:] != ls[:-1]])
        for a, b in zip(starts, np.r_[starts[1:], len(ls)], strict=True):
            x = self.by_id[int(ls[a])]
            x.distinct = np.union1d(x.distinct, gs[a:b])[: x.recorded + 1]

    def finish(self) -> None:
        """Problems only the whole table can show: sampled groups, empty launches, an empty trace."""
        for x in self.by_id.values():
            if x.recorded is not None and len(x.distinct) > x.recorded:
                self.add("sampling:rows", f"launch {x.launch}: sampling.groups_recorded is {x.recorded:,} "
                         f"but the accesses hold at least {len(x.distinct):,} distinct work-groups",
                         table="launches", column="metadata")
        if self.total_rows == 0:
            self.add("empty", "the trace has no accesses: there is nothing to analyse", column=None)
            return
        empty = [x for x in self.by_id.values() if x.rows == 0]
        if empty:
            self.add("empty-launch", f"{len(empty)} launch(es) have no accesses, so there is nothing to "
                     f"analyse for them (first: launch {empty[0].launch}, kernel '{empty[0].kernel}')",
                     table="launches", column="launch", warning=True)


class _Errors:
    """Collects the errors of a :class:`CountCheck` in order (warnings are left to ``validate``)."""

    def __init__(self):
        self.messages: list[str] = []

    def __call__(self, check: str, message: str, *, table: str = "accesses", row=None, column=None,
                 count: int = 1, warning: bool = False) -> None:
        if warning:
            return
        where = ", ".join(w for w in (None if table == "accesses" else table,
                                      None if row is None else f"row {row}",
                                      None if column is None else f"column '{column}'") if w)
        self.messages.append((f"{where}: " if where else "") + message
                             + (f" ({count:,} rows)" if count > 1 else ""))


#: Traces already checked (a notebook may analyse one trace many times).
_CHECKED: weakref.WeakSet = weakref.WeakSet()


def check_counts(trace) -> None:
    """Refuse ``trace`` (TraceFormatError) when any of its counts contradicts another.

    Reads the launches table and the ``launch``, ``group`` and ``item`` columns only,
    batch by batch; the same checks ``tracekit validate`` reports.
    """
    try:
        if trace in _CHECKED:
            return
    except TypeError:
        pass  # not weak-referenceable: check every time
    errors = _Errors()
    check = CountCheck(trace.launches, errors, path=str(trace.path))
    for table, cols in (("accesses", ["launch", "group", "item"]),
                        ("instructions", ["launch", "group", "item", "items"])):
        row0 = 0
        kw = {"runs": True} if table == "instructions" else {}
        for b in trace.iter_batches(table, columns=cols, **kw):
            arrays = [b.column(c).to_numpy(zero_copy_only=False) for c in cols[:3]]
            items = None
            if table == "instructions":
                items = b.column("items").fill_null(1).to_numpy(zero_copy_only=False).astype(np.int64)
            check.rows(table, row0, *arrays, items=items)
            row0 += b.num_rows
    check.finish()
    if errors.messages:
        more = len(errors.messages) - 1
        raise TraceFormatError(errors.messages[0] + (f" (and {more} more problem(s))" if more else ""),
                               path=str(trace.path),
                               hint=f"`tracekit validate {trace.path}` lists every problem")
    try:
        _CHECKED.add(trace)
    except TypeError:
        pass


__all__ = ["COUNT_MAX", "ITEMS_MAX", "CountCheck", "check_counts", "check_grid", "grid_problems"]
