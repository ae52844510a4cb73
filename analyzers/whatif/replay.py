"""Replaying a launch before and after a change, on the same work-groups, through the same model."""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analyzers.analyze import (
    EMPTY_LAUNCH,
    LaunchResult,
    analyze,
    analyze_launch,
    recorded_launches,
    resolve_target,
    resolve_trace,
)
from analyzers.geometry import launch_geometries
from analyzers.parallel import is_worker, jobs
from analyzers.roles import site_roles
from analyzers.whatif.changes import Change, Launch, parse_change
from tracekit.errors import TracekitError
from tracekit.trace import metadata as launch_metadata
from tracekit.trace import store
from tracekit.trace.reader import Trace
from tracekit.trace.vocabulary import OPS, SPACES

#: Accesses a what-if replays at most per launch (both sides): a head of whole work-groups.
MAX_ACCESSES = 1 << 21


@dataclass
class WhatIf:
    """One launch before and after a change (estimates for the whole launch)."""

    change: Change
    kernel: str
    launch: int
    before: LaunchResult
    after: LaunchResult
    groups_replayed: int
    groups_total: int

    @property
    def time_before_s(self) -> float:
        return float(self.before.time_estimates.get("total_s", 0.0))

    @property
    def time_after_s(self) -> float:
        return float(self.after.time_estimates.get("total_s", 0.0))

    @property
    def gain_fraction(self) -> float:
        """The share of the launch's time the change saves (negative: it costs time)."""
        b = self.time_before_s
        return (b - self.time_after_s) / b if b else 0.0

    @property
    def verdict_before(self) -> str | None:
        return self.before.verdict

    @property
    def verdict_after(self) -> str | None:
        return self.after.verdict

    def to_dict(self) -> dict:
        tb, ta = self.before.time_estimates, self.after.time_estimates
        return {"change": self.change.spec, "description": self.change.describe(), "kernel": self.kernel,
                "launch": self.launch, "verdict_before": self.verdict_before,
                "verdict_after": self.verdict_after,
                "time_before_s": self.time_before_s, "time_after_s": self.time_after_s,
                "gain_fraction": self.gain_fraction,
                "terms_before_s": {k: tb.get(k) for k in ("alu_s", "memory_s", "latency_s")},
                "terms_after_s": {k: ta.get(k) for k in ("alu_s", "memory_s", "latency_s")},
                "groups_replayed": self.groups_replayed, "groups_total": self.groups_total,
                "error_after": self.after.error}


def what_if(trace, target, change, *, launch: int | None = None,
            max_accesses: int = MAX_ACCESSES) -> list[WhatIf]:
    """Each launch of ``trace`` (or only ``launch``) on ``target`` before and after ``change``.

    ``change`` is a :class:`Change` or its text form (:func:`parse_change`).  Both sides
    replay the same head of the launch's work-groups (all of them when the launch has
    at most ``max_accesses`` accesses), scaled to the whole launch.
    """
    trace, target, change = resolve_trace(trace), resolve_target(target), parse_change(change)
    replays = Replays(trace, max_accesses)
    recorded = recorded_launches(trace)
    if launch is not None and int(launch) in replays.geos and int(launch) not in recorded:
        raise TracekitError(f"launch {launch}: {EMPTY_LAUNCH}")
    # a launch without rows has nothing to replay: callers list it apart (tracekit.pipeline)
    launches = [int(launch)] if launch is not None else sorted(set(replays.geos) & recorded)
    return [replays.run(target, change, n) for n in launches]


class Replays:
    """What-if replays of one trace that share what a change does not touch.

    A launch's head of work-groups is read once for every target and change (the last
    launch asked for is kept, so callers go launch by launch), its unchanged replay is
    run once per target for every change, and a change that leaves the accesses alone
    (``needs_replay`` False: relaxed or native math, single precision) reuses that replay's
    memory counts and re-runs only the execution models.
    """

    def __init__(self, trace, max_accesses: int = MAX_ACCESSES):
        self.trace = resolve_trace(trace)
        self.max_accesses = max_accesses
        self.geos = {g.launch: g for g in launch_geometries(self.trace)[0]}
        self._head: tuple[int, Launch] | None = None
        self._before: dict[tuple[str, int], LaunchResult] = {}
        #: per (target, launch, machine): the head's issues per wave, shared by the unchanged replay
        #: and every change that leaves the instruction rows alone (analyze_launch's issues_memo)
        self._issues: dict[tuple[str, int, bool], dict] = {}
        self._sites = self.trace.sites.to_pandas() if self.trace.sites.num_rows else None

    def head(self, launch: int) -> Launch:
        if self._head is None or self._head[0] != launch:
            self._head = None          # let the previous head go before the next is read
            self._head = (launch, head_of_launch(self.trace, self._geo(launch), self.max_accesses))
        return self._head[1]

    def _geo(self, launch: int):
        if launch not in self.geos:
            raise TracekitError(f"the trace has no launch {launch}")
        return self.geos[launch]

    def before(self, target, launch: int, machine: bool = False) -> LaunchResult:
        """The unchanged head on ``target``: priced by the IR model, or (``machine``) from the trace's
        machine code, as the changes that rewrite it are."""
        key = (target.name, launch, machine)
        if key not in self._before:
            self._before[key] = _analyze_one(self._base(launch, machine), target, self.trace,
                                             self._issues.setdefault(key, {}))
        return self._before[key]

    def prefetch_before(self, launch: int, wanted, target_of, mapper=None) -> None:
        """Make the unchanged replays of ``launch`` for each (target name, machine) in ``wanted`` at
        once, with ``mapper`` (``map``, or :func:`analyzers.parallel.map_cores` to use every core).

        The head is read here first, so that workers forked by ``mapper`` inherit it and every
        change's replay afterwards finds its unchanged replay made.  One that cannot be made is
        left for :meth:`run` to report."""
        try:
            self.head(launch)
        except TracekitError:
            return
        todo = [(target_of(t), m) for t, m in wanted]
        todo = [(t, m) for t, m in todo if (t.name, launch, m) not in self._before]
        if mapper is not None and len(todo) > 1 and jobs() > 1 and not is_worker():
            for t, m in todo:
                self._warm(t, launch, m)

        def make(task):
            target, machine = task
            try:
                return self.before(target, launch, machine), self._issues.get((target.name, launch, machine))
            except TracekitError:
                return None, None

        for (t, m), (res, memo) in zip(todo, list((mapper or map)(make, todo)), strict=True):
            if res is not None:
                self._before[(t.name, launch, m)] = res
                self._issues[(t.name, launch, m)] = memo or {}

    def _warm(self, target, launch: int, machine: bool) -> None:
        """Replay the head's first work-group here once, so that the compiled kernels the replay of
        ``target`` calls are loaded in this process before workers fork: each worker would
        otherwise load them again from the disk cache (a second or more of a worker's time)."""
        base = self._base(launch, machine)
        acc, ins = base.accesses, base.instructions
        first = acc["group"].iloc[0] if len(acc) else (ins["group"].iloc[0] if len(ins) else None)
        if first is None:
            return
        one = base.with_(accesses=acc[acc["group"] == first].reset_index(drop=True),
                         instructions=ins[ins["group"] == first].reset_index(drop=True))
        try:
            _analyze_one(one, target, self.trace)
        except Exception:  # noqa: BLE001 - only a warm-up: the real replay runs next and reports
            pass

    def _base(self, launch: int, machine: bool) -> Launch:
        base = self.head(launch)
        return base.with_(machine_code=self.trace.machine_code) if machine else base

    def run(self, target, change, launch: int) -> WhatIf:
        """``launch`` on ``target`` before and after ``change``."""
        target, change = resolve_target(target), parse_change(change)
        geo = self._geo(launch)
        base = self._base(launch, change.machine)
        before = self.before(target, launch, change.machine)
        changed = change.apply(base, target)
        if change.needs_replay or before.memory is None:
            # the memo is keyed by wave layout, so a change of grid or build finds nothing stale in it
            memo = (self._issues.get((target.name, launch, change.machine))
                    if changed.instructions is base.instructions else None)
            after = _analyze_one(changed, target, self.trace, memo)
        else:
            after = _reprice(changed, target, self.trace, before.memory, self._sites)
        kept = int(base.accesses["group"].nunique()) if len(base.accesses) else 0
        return WhatIf(change, geo.kernel, geo.launch, before, after, kept, geo.total_groups or geo.num_groups)


def head_of_launch(trace: Trace, geo, max_accesses: int = MAX_ACCESSES) -> Launch:
    """The launch's first work-groups (whole ones, at most ``max_accesses`` accesses, at least one)
    as frames, with the launch row saying how many of the launch's work-groups they are."""
    parts, rows = [], 0
    last_group = None
    group_from = 0  # rows before the work-group being read
    for b in trace.iter_batches("accesses", launches=[geo.launch]):
        t = pa.Table.from_batches([b])
        g = t.column("group").to_numpy()
        if rows >= max_accesses:
            cut = np.flatnonzero(g != last_group)
            if cut.size:
                t = t.slice(0, int(cut[0]))
                if t.num_rows:
                    parts.append(t)
                break
            # a work-group larger than the head: whole work-groups before it, or else its head
            parts, rows = _head_of_group(parts, rows, group_from, max_accesses)
            break
        starts = np.flatnonzero(g[1:] != g[:-1]) + 1
        if starts.size or (last_group is not None and g[0] != last_group):
            group_from = rows + (int(starts[-1]) if starts.size else 0)
        parts.append(t)
        rows += t.num_rows
        last_group = t.column("group")[-1].as_py()
    table = pa.concat_tables(parts) if parts else store.conform(pa.table({}), "accesses")
    parts = None
    if table.num_rows > max_accesses and table.column("group")[max_accesses] == table.column("group")[0]:
        table = _head_of_group([table], table.num_rows, 0, max_accesses)[0][0]  # one huge first group
    acc = _text_as_categories(table.to_pandas(), {"kernel": None, "space": SPACES, "op": OPS})
    del table
    acc["address"] = acc["address"].astype(np.uint64)
    groups = np.unique(acc["group"].to_numpy()) if len(acc) else np.zeros(0, np.int64)
    ins_parts = []
    keep = pa.array(groups, pa.int64())
    last = int(groups[-1]) if len(groups) else None
    for b in trace.iter_batches("instructions", launches=[geo.launch], runs=True):
        t = pa.Table.from_batches([b])
        if last is not None:
            if pc.min(t.column("group")).as_py() > last:
                break          # rows come in work-group order: the head's rows are all read
            t = t.filter(pc.is_in(t.column("group"), keep))
        if t.num_rows:
            ins_parts.append(t)   # runs stay runs: a change that needs one row an item expands them
    ins = (pa.concat_tables(ins_parts).to_pandas() if ins_parts else
           pd.DataFrame(columns=["kernel", "launch", "group", "item", "site", "opclass", "count"]))
    ins = _text_as_categories(ins, {"kernel": None, "opclass": None})
    if "items" in ins:
        items = ins["items"].fillna(1).to_numpy(np.int64)
        ins = ins.drop(columns="items") if (items == 1).all() else ins.assign(items=items)
    row = _launch_row(trace, geo)
    total = geo.total_groups or geo.num_groups
    meta = dict(row.get("metadata") or {})
    if len(groups) and len(groups) < total:
        meta["sampling"] = {"mode": "first", "total_groups": int(total), "groups_recorded": int(len(groups))}
    row["metadata"] = meta
    sites = trace.sites.to_pandas() if trace.sites.num_rows else None
    return Launch(acc, ins, row, roles=site_roles(sites, geo.kernel))


def _text_as_categories(df: pd.DataFrame, words: dict) -> pd.DataFrame:
    """``df`` with its text columns as categories of plain strings: sorting or cutting a head then
    moves a small code a row, not a string.  ``words[c]``: the whole vocabulary of column ``c``
    (changes may write any of its words), or None for the values present; a change that writes
    other text converts the column to strings first."""
    for c, vocab in words.items():
        if c not in df:
            continue
        col = df[c] if isinstance(df[c].dtype, pd.CategoricalDtype) else df[c].astype("category")
        names = [str(x) for x in col.cat.categories]
        col = col.cat.rename_categories(names)
        df[c] = col.cat.set_categories(list(vocab) if vocab else names)
    return df


def _head_of_group(parts: list[pa.Table], rows: int, group_from: int, max_accesses: int):
    """(parts, rows) of a head cut short inside a work-group of more than ``max_accesses`` rows.

    With whole work-groups before that one, the head is those; when it is the first, its
    whole work-items up to ``max_accesses`` rows, or the first ``max_accesses`` accesses of
    its first work-item: what-if replays compare the same head before and after a change,
    and one work-item of millions of accesses would otherwise be copied whole."""
    table = pa.concat_tables(parts)
    if group_from:
        keep = group_from
    else:
        item = table.column("item").to_numpy()[:max_accesses + 1]
        starts = np.flatnonzero(item[1:] != item[:-1]) + 1
        fits = starts[starts <= max_accesses]
        keep = int(fits[-1]) if fits.size else min(max_accesses, table.num_rows)
    return [table.slice(0, keep)], keep


def _launch_row(trace: Trace, geo) -> dict:
    t = trace.launches
    if t.num_rows:
        match = t.filter(pc.equal(t["launch"], geo.launch))
        if match.num_rows:
            row = match.to_pylist()[0]
            row["metadata"] = launch_metadata.parse(row.get("metadata"), path=str(trace.path),
                                                    launch=geo.launch)
            return row
    return {"kernel": geo.kernel, "launch": geo.launch, "global_size": list(geo.global_size),
            "local_size": list(geo.local_size), "local_mem_bytes": geo.local_mem_bytes,
            "build_options": geo.build_options, "device": None, "source": None,
            "registers_per_item": geo.registers_per_item, "metadata": dict(geo.metadata)}


def launch_trace(launch: Launch, sites: pa.Table, path: str = "<what-if>") -> Trace:
    """An in-memory trace of one (changed) launch."""
    acc = launch.accesses
    if not _canonical(acc):
        acc = acc.sort_values(["group", "item", "seq"], kind="stable")
    # text columns as categories: Arrow takes them as dictionaries, not one string per row
    acc = acc.astype({c: "category" for c in ("kernel", "space", "op") if c in acc})
    row = dict(launch.row)
    meta = row.get("metadata") or {}
    row["metadata"] = json.dumps(meta, sort_keys=True) if meta else None
    tables = {
        "accesses": store.conform(pa.Table.from_pandas(acc, preserve_index=False), "accesses"),
        "instructions": _instructions_table(launch.instructions),
        "launches": store.conform(pa.Table.from_pylist([row]), "launches"),
        "sites": sites,
    }
    if launch.machine_code is not None:
        tables["machine_code"] = launch.machine_code
    return Trace(path, _tables=tables)


#: The last instruction frame converted and its table: most changes rewrite accesses only, and
#: every replay of a launch's head then hands over the same frame (one conversion, not one a change).
_converted: tuple[weakref.ref, pa.Table] | None = None


def _instructions_table(ins: pd.DataFrame) -> pa.Table:
    global _converted
    if _converted is not None and _converted[0]() is ins:
        return _converted[1]
    coded = ins.astype({c: "category" for c in ("kernel", "opclass") if c in ins})
    table = store.conform(pa.Table.from_pandas(coded, preserve_index=False), "instructions")
    _converted = (weakref.ref(ins), table)
    weakref.finalize(ins, _forget, table)   # the table goes with the frame it was made from
    return table


def _forget(table: pa.Table) -> None:
    global _converted
    if _converted is not None and _converted[1] is table:
        _converted = None


def _canonical(acc: pd.DataFrame) -> bool:
    """Rows already in (group, item, seq) order (most changes rewrite addresses only)."""
    if len(acc) < 2:
        return True
    g, i, s = (acc[c].to_numpy() for c in ("group", "item", "seq"))
    dg, di, ds = np.diff(g), np.diff(i), np.diff(s)
    return bool(np.all((dg > 0) | ((dg == 0) & ((di > 0) | ((di == 0) & (ds > 0))))))


def _analyze_one(launch: Launch, target, trace: Trace, issues_memo: dict | None = None) -> LaunchResult:
    res = analyze(launch_trace(launch, trace.sites, str(trace.path)), target, issues_memo=issues_memo)
    return res.launches[0]


def _reprice(launch: Launch, target, trace: Trace, memory, sites) -> LaunchResult:
    """The execution models and verdict of a changed launch whose accesses did not change: the
    unchanged replay's memory counts with the changed instructions and launch row."""
    lt = launch_trace(launch.with_(accesses=launch.accesses.iloc[0:0]), trace.sites, str(trace.path))
    (geo,), _ = launch_geometries(lt)
    # the rows as stored: runs of work-items stay runs, as the analysis of a trace reads them
    return analyze_launch(geo, target, lt.iter_batches("instructions", launches=[geo.launch], runs=True),
                          memory, sites)
