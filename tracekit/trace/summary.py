"""What a trace holds, as DataFrames: launches, accesses per space and op, work-group shapes.

:func:`summarize` streams the accesses once (three small columns at a time are
enough), so it works on traces larger than memory.  The CLI's ``tracekit info``,
the notebook HTML view of a trace and the demo all print from this one summary.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

if TYPE_CHECKING:  # the reader imports this module; only the type is needed here
    from tracekit.trace.reader import Trace



@dataclass
class TraceSummary:
    path: str
    layout: str
    #: One row per launch: kernel, launch, global_size, local_size ("X x Y x Z"), accesses, bytes,
    #: groups_recorded, groups_total, sampled.
    launches: pd.DataFrame
    #: One row per (space, op): accesses, bytes.
    spaces: pd.DataFrame
    #: One row per distinct work-group shape: local_size, items_per_group, launches.
    group_shapes: pd.DataFrame
    total_accesses: int
    total_bytes: int
    kernels: list[str]
    instructions: int
    sites: int

    def _repr_html_(self) -> str:
        return summary_html(self)


def _dims(v) -> str:
    return " x ".join(str(int(x)) for x in v) if v is not None else "?"


def summarize(trace: Trace, *, batch_size: int = 1 << 20) -> TraceSummary:
    """Stream the accesses once and tabulate them per launch and per (space, op)."""
    per_launch: list[pd.DataFrame] = []
    per_space: list[pd.DataFrame] = []
    groups: dict[int, np.ndarray] = {}
    for batch in trace.iter_batches(columns=["kernel", "launch", "group", "space", "op", "size"],
                                    batch_size=batch_size):
        t = pa.Table.from_batches([batch])
        size64 = t["size"].cast(pa.int64())
        t = t.set_column(t.schema.get_field_index("size"), "size", size64)
        per_launch.append(t.group_by(["launch", "kernel"]).aggregate([("size", "count"), ("size", "sum")])
                          .to_pandas())
        per_space.append(t.group_by(["space", "op"]).aggregate([("size", "count"), ("size", "sum")])
                         .to_pandas())
        lg = pd.DataFrame({"launch": t["launch"].to_numpy(), "group": t["group"].to_numpy()})
        for launch, g in lg.groupby("launch")["group"]:
            groups[int(launch)] = np.union1d(groups.get(int(launch), np.empty(0, np.int64)), g.to_numpy())
    counts = _combine(per_launch, ["launch", "kernel"])
    spaces = _combine(per_space, ["space", "op"])

    facts = trace.launches.to_pandas()
    rows = []
    keys = sorted(set(zip(counts["launch"], counts["kernel"], strict=True)) |
                  set(zip(facts["launch"].astype(int), facts["kernel"], strict=True)))
    for launch, kernel in keys:
        c = counts[(counts["launch"] == launch) & (counts["kernel"] == kernel)]
        f = facts[facts["launch"] == launch]
        gs = f["global_size"].iloc[0] if len(f) else None
        ls = f["local_size"].iloc[0] if len(f) else None
        sized = len(f) and all(int(x) > 0 for x in ls)  # a zero size (invalid) leaves it unknown
        total_groups = int(np.prod(-(-np.asarray(gs) // np.asarray(ls)))) if sized else None
        meta = trace.launch_metadata(int(launch)) if len(f) else {}
        rows.append({
            "kernel": kernel, "launch": int(launch), "global_size": _dims(gs), "local_size": _dims(ls),
            "accesses": int(c["accesses"].sum()), "bytes": int(c["bytes"].sum()),
            "groups_recorded": len(groups.get(int(launch), ())), "groups_total": total_groups,
            "sampled": bool((meta.get("sampling") or {}).get("mode") not in (None, "all")),
        })
    launches = pd.DataFrame(rows, columns=["kernel", "launch", "global_size", "local_size", "accesses",
                                           "bytes", "groups_recorded", "groups_total", "sampled"])
    shapes = (launches.assign(items_per_group=[_items(s) for s in launches["local_size"]])
              .groupby(["local_size", "items_per_group"], as_index=False)
              .agg(launches=("launch", "count")))
    return TraceSummary(
        path=str(trace.path), layout=trace.layout, launches=launches, spaces=spaces, group_shapes=shapes,
        total_accesses=int(counts["accesses"].sum()), total_bytes=int(counts["bytes"].sum()),
        kernels=sorted(set(launches["kernel"])), instructions=_instruction_rows(trace),
        sites=trace.sites.num_rows)


def _combine(parts: list[pd.DataFrame], keys: list[str]) -> pd.DataFrame:
    if not parts:
        return pd.DataFrame(columns=[*keys, "accesses", "bytes"])
    df = pd.concat(parts, ignore_index=True)
    for k in keys:
        if isinstance(df[k].dtype, pd.CategoricalDtype):
            df[k] = df[k].astype(str)
    df = df.rename(columns={"size_count": "accesses", "size_sum": "bytes"})
    return df.groupby(keys, as_index=False)[["accesses", "bytes"]].sum().sort_values(keys,
                                                                                     ignore_index=True)


def _items(shape: str) -> int | None:
    if "?" in shape:
        return None
    return int(np.prod([int(x) for x in shape.split(" x ")]))


def _instruction_rows(trace: Trace) -> int:
    try:
        return trace.instructions.num_rows
    except Exception:  # noqa: BLE001 - a summary should not fail on the optional table
        return 0


def to_json(summary: TraceSummary) -> str:
    """The summary as JSON (for scripts): launches and spaces as lists of records."""
    return json.dumps({
        "path": summary.path, "total_accesses": summary.total_accesses, "total_bytes": summary.total_bytes,
        "kernels": summary.kernels, "launches": summary.launches.to_dict("records"),
        "spaces": summary.spaces.to_dict("records"), "group_shapes": summary.group_shapes.to_dict("records"),
    }, indent=1, default=lambda o: o.item() if hasattr(o, "item") else str(o))


def summary_html(s: TraceSummary) -> str:
    """A trace's summary as a small HTML table (the notebook view of a :class:`TraceSummary`)."""
    rows = "".join(
        f"<tr><td>{html.escape(str(r.kernel))}</td><td>{r.launch}</td>"
        f"<td>{html.escape(r.global_size)}</td><td>{html.escape(r.local_size)}</td>"
        f"<td>{r.accesses:,}</td><td>{r.bytes:,}</td></tr>"
        for r in s.launches.itertuples())
    return (f"<div><b>tracekit trace</b> <code>{html.escape(str(s.path))}</code>: "
            f"{s.total_accesses:,} accesses<table><tr><th>kernel</th><th>launch</th>"
            f"<th>global</th><th>local</th><th>accesses</th><th>bytes</th></tr>{rows}</table></div>")

