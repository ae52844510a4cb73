"""What a trace holds: launches, accesses per space and op, work-group shapes.

:func:`summarize` streams the accesses once (three small columns at a time are
enough), so it works on traces larger than memory.  The CLI's ``tracekit info``,
the notebook HTML view of a trace and the demo all print from this one summary.
It is computed with Arrow alone and kept as rows, so ``tracekit info`` starts
without pandas; the :class:`TraceSummary` properties hand the same tables over as
DataFrames for notebooks.
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from tracekit.trace.arrow_numpy import to_numpy
from tracekit.trace.grouping import count_and_sum
from tracekit.trace.runs import run_lengths

if TYPE_CHECKING:  # the reader imports this module; only the types are needed here
    import pandas as pd

    from tracekit.trace.reader import Trace

LAUNCH_COLUMNS = ["kernel", "launch", "global_size", "local_size", "accesses", "bytes", "groups_recorded",
                  "groups_total", "sampled"]
SPACE_COLUMNS = ["space", "op", "accesses", "bytes"]
SHAPE_COLUMNS = ["local_size", "items_per_group", "launches"]


@dataclass
class TraceSummary:
    path: str
    layout: str
    #: One dict per launch: kernel, launch, global_size, local_size ("X x Y x Z"), accesses, bytes,
    #: groups_recorded, groups_total (None when unknown), sampled.
    launch_rows: list[dict]
    #: One dict per (space, op): accesses, bytes.
    space_rows: list[dict]
    #: One dict per distinct work-group shape: local_size, items_per_group, launches.
    shape_rows: list[dict]
    total_accesses: int
    total_bytes: int
    kernels: list[str]
    instructions: int
    sites: int

    @property
    def launches(self) -> pd.DataFrame:
        return _frame(self.launch_rows, LAUNCH_COLUMNS)

    @property
    def spaces(self) -> pd.DataFrame:
        return _frame(self.space_rows, SPACE_COLUMNS)

    @property
    def group_shapes(self) -> pd.DataFrame:
        return _frame(self.shape_rows, SHAPE_COLUMNS)

    def _repr_html_(self) -> str:
        return summary_html(self)


def _frame(rows: list[dict], columns: list[str]) -> pd.DataFrame:
    import pandas as pd
    return pd.DataFrame(rows, columns=columns)


def _dims(v) -> str:
    return " x ".join(str(int(x)) for x in v) if v is not None else "?"


def _add(totals: dict[tuple, list[int]], table: pa.Table, keys: list[str]) -> None:
    """Add one batch's access count and byte sum per ``keys`` to ``totals``."""
    for key, (n, b) in count_and_sum([table[k] for k in keys], table["size"]).items():
        t = totals.setdefault(key, [0, 0])
        t[0] += n
        t[1] += b


def _distinct_pairs(launch: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (launch, group) pairs of two columns, sorted."""
    order = np.lexsort((group, launch))
    launch, group = launch[order], group[order]
    keep = np.ones(len(launch), bool)
    keep[1:] = (launch[1:] != launch[:-1]) | (group[1:] != group[:-1])
    return launch[keep], group[keep]


class _GroupPairs:
    """The distinct (launch, group) pairs of a stream of batches, in a few array operations per
    batch whatever the number of launches; parts are merged once they outgrow what is merged."""

    def __init__(self):
        self._parts: list[tuple[np.ndarray, np.ndarray]] = []
        self._pending = 0
        self._merged = 0

    def add(self, launch: np.ndarray, group: np.ndarray) -> None:
        part = _distinct_pairs(launch, group)
        self._parts.append(part)
        self._pending += len(part[0])
        if self._pending > max(self._merged, 1 << 16):
            self._merge()

    def _merge(self) -> None:
        if len(self._parts) > 1:
            self._parts = [_distinct_pairs(np.concatenate([p[0] for p in self._parts]),
                                           np.concatenate([p[1] for p in self._parts]))]
        self._merged = len(self._parts[0][0]) if self._parts else 0
        self._pending = 0

    def per_launch(self) -> dict[int, int]:
        """Launch id -> distinct work-groups seen."""
        self._merge()
        if not self._parts:
            return {}
        ids, counts = np.unique(self._parts[0][0], return_counts=True)
        return dict(zip(ids.tolist(), counts.tolist(), strict=True))


def summarize(trace: Trace, *, batch_size: int = 1 << 20) -> TraceSummary:
    """Stream the accesses once and tabulate them per launch and per (space, op)."""
    from tracekit.arguments import ArgumentTypeError, check_trace

    if isinstance(check_trace("trace", trace), (str, os.PathLike)):
        raise ArgumentTypeError(f"trace must be a Trace, got the path {os.fspath(trace)!r}: open it first "
                                "with tracekit.open_trace")
    per_launch: dict[tuple, list[int]] = {}
    per_space: dict[tuple, list[int]] = {}
    pairs = _GroupPairs()
    for batch in trace.iter_batches(columns=["kernel", "launch", "group", "space", "op", "size"],
                                    batch_size=batch_size):
        t = pa.Table.from_batches([batch])  # sizes are added up as float64 by count_and_sum
        _add(per_launch, t, ["launch", "kernel"])
        _add(per_space, t, ["space", "op"])
        pairs.add(to_numpy(t["launch"]).astype(np.int64), to_numpy(t["group"]).astype(np.int64))
    groups = pairs.per_launch()

    facts = {int(r["launch"]): r for r in trace.launches.to_pylist()}
    keys = sorted(set(per_launch) | {(launch, r["kernel"]) for launch, r in facts.items()})
    launch_rows = []
    for launch, kernel in keys:
        n, b = per_launch.get((launch, kernel), (0, 0))
        f = facts.get(launch)
        gs, ls = (f["global_size"], f["local_size"]) if f else (None, None)
        sized = f is not None and all(int(x) > 0 for x in ls)  # a zero size (invalid) leaves it unknown
        total_groups = int(np.prod(-(-np.asarray(gs) // np.asarray(ls)))) if sized else None
        meta = trace.launch_metadata(int(launch)) if f else {}
        launch_rows.append({
            "kernel": kernel, "launch": int(launch), "global_size": _dims(gs), "local_size": _dims(ls),
            "accesses": int(n), "bytes": int(b), "groups_recorded": groups.get(int(launch), 0),
            "groups_total": total_groups,
            "sampled": bool((meta.get("sampling") or {}).get("mode") not in (None, "all")),
        })
    shapes: dict[tuple, int] = {}
    for r in launch_rows:
        key = (r["local_size"], _items(r["local_size"]))
        shapes[key] = shapes.get(key, 0) + 1
    shape_rows = [{"local_size": k[0], "items_per_group": k[1], "launches": v}
                  for k, v in sorted(shapes.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0))]
    space_rows = [{"space": sp, "op": op, "accesses": n, "bytes": b}
                  for (sp, op), (n, b) in sorted(per_space.items())]
    return TraceSummary(
        path=str(trace.path), layout=trace.layout, launch_rows=launch_rows, space_rows=space_rows,
        shape_rows=shape_rows, total_accesses=sum(v[0] for v in per_launch.values()),
        total_bytes=sum(v[1] for v in per_launch.values()),
        kernels=sorted({r["kernel"] for r in launch_rows}), instructions=_instruction_rows(trace),
        sites=trace.sites.num_rows)


def _items(shape: str) -> int | None:
    if "?" in shape:
        return None
    return int(np.prod([int(x) for x in shape.split(" x ")]))


def _instruction_rows(trace: Trace) -> int:
    """Rows of the instructions table, one per work-item: the stored runs' lengths added up
    (the same count as ``trace.instructions.num_rows``, without expanding the runs)."""
    try:
        return sum(int(run_lengths(b).sum())
                   for b in trace.iter_batches("instructions", columns=["items"], runs=True))
    except Exception:  # noqa: BLE001 - a summary should not fail on the optional table
        return 0


def to_json(summary: TraceSummary) -> str:
    """The summary as JSON (for scripts): launches and spaces as lists of records."""
    return json.dumps({
        "path": summary.path, "total_accesses": summary.total_accesses, "total_bytes": summary.total_bytes,
        "kernels": summary.kernels, "launches": summary.launch_rows, "spaces": summary.space_rows,
        "group_shapes": summary.shape_rows,
    }, indent=1, default=lambda o: o.item() if hasattr(o, "item") else str(o))


def summary_html(s: TraceSummary) -> str:
    """A trace's summary as a small HTML table (the notebook view of a :class:`TraceSummary`)."""
    rows = "".join(
        f"<tr><td>{html.escape(str(r['kernel']))}</td><td>{r['launch']}</td>"
        f"<td>{html.escape(r['global_size'])}</td><td>{html.escape(r['local_size'])}</td>"
        f"<td>{r['accesses']:,}</td><td>{r['bytes']:,}</td></tr>"
        for r in s.launch_rows)
    return (f"<div><b>tracekit trace</b> <code>{html.escape(str(s.path))}</code>: "
            f"{s.total_accesses:,} accesses<table><tr><th>kernel</th><th>launch</th>"
            f"<th>global</th><th>local</th><th>accesses</th><th>bytes</th></tr>{rows}</table></div>")

