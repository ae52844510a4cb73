"""A smaller trace from a bigger one: some of its launches, each with its first recorded work-groups.

Why: a trace recorded for calibration may hold dozens of launches of millions of
accesses each, while a check of one kernel needs that kernel alone, and often
fewer work-groups than were recorded.  :func:`cut_trace` writes such a subset as
an ordinary trace, so every reader and analysis runs on it unchanged.

Keeping fewer work-groups is sampling: the launch row keeps the full grid and
its ``sampling`` metadata is rewritten so that ``total_groups / groups_recorded``
still carries per-group counts to the whole launch (docs/recording.md,
"Sampling big launches").  The work-groups kept are the first ones in stored
order, so a launch recorded with ``first:N`` and cut to ``n`` groups is exactly
what ``--sample first:n`` would have recorded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tracekit.errors import TraceFormatError
from tracekit.trace.reader import Trace
from tracekit.trace.store import TraceWriter


def _first_groups(trace: Trace, launch: int, n: int | None) -> np.ndarray:
    """The first ``n`` distinct work-group ids of ``launch`` in stored order (all of them for None)."""
    out: dict[int, None] = {}
    for b in trace.iter_batches("accesses", columns=["group"], launches=[launch]):
        g = b.column(0).to_numpy()
        for x in g[np.concatenate([[True], g[1:] != g[:-1]])]:
            out.setdefault(int(x))
            if n is not None and len(out) == n:
                return np.fromiter(out, np.int64)
    return np.fromiter(out, np.int64)


def _sampling(meta: dict, kept: int, recorded: int, total: int) -> dict:
    """``meta`` with its sampling record saying ``kept`` of ``total`` work-groups are in the trace."""
    if kept >= recorded:
        return meta
    old = dict(meta.get("sampling") or {})
    mode = old.get("mode") if old.get("mode") not in (None, "all") else "first"
    new = {**old, "mode": mode, "groups_recorded": int(kept), "total_groups": int(total),
           "scale": total / kept}
    if mode == "first":
        new["n"] = int(kept)
    return {**meta, "sampling": new}


def cut_trace(trace: Trace, dest: str | os.PathLike, launches: Mapping[int, int | None]) -> Path:
    """Write the launches named in ``launches`` (launch id -> work-groups to keep, ``None`` for
    all recorded) of ``trace`` to ``dest``, with launch ids, sites and machine code unchanged."""
    have = {int(x) for x in trace.launches.column("launch").to_pylist()}
    missing = sorted(set(launches) - have)
    if missing:
        raise TraceFormatError(f"launch(es) {missing} are not in the trace (it has {sorted(have)})",
                               path=str(trace.path))
    keep_groups: dict[int, np.ndarray | None] = {}
    rows = []
    for row in trace.launches.to_pylist():
        launch = int(row["launch"])
        if launch not in launches:
            continue
        meta = json.loads(row["metadata"]) if row.get("metadata") else {}
        n = launches[launch]
        groups = None
        if n is not None:
            if n < 1:
                raise TraceFormatError(f"launch {launch}: keep at least one work-group, got {n}",
                                       path=str(trace.path))
            recorded = int((meta.get("sampling") or {}).get("groups_recorded") or 0)
            groups = _first_groups(trace, launch, n)
            recorded = recorded or len(_first_groups(trace, launch, None))
            total = int((meta.get("sampling") or {}).get("total_groups") or 0)
            if not total:
                gs, ls = row["global_size"], row["local_size"]
                total = int(np.prod([-(-int(g) // max(int(x), 1)) for g, x in zip(gs, ls, strict=False)]))
            meta = _sampling(meta, len(groups), recorded, total)
            row["metadata"] = json.dumps(meta, sort_keys=True)
        keep_groups[launch] = groups
        rows.append(row)
    order = sorted(keep_groups)
    with TraceWriter(dest) as w:
        for table in ("accesses", "instructions"):
            write = w.write_accesses if table == "accesses" else w.write_instructions
            for launch in order:
                groups = keep_groups[launch]
                kw = {"runs": True} if table == "instructions" else {}
                for b in trace.iter_batches(table, launches=[launch], **kw):
                    if groups is not None:
                        b = b.filter(pc.is_in(b.column("group"), pa.array(groups)))
                    if b.num_rows:
                        write(b)
        w.set_launches(pa.Table.from_pylist(rows, schema=trace.launches.schema))
        w.set_sites(trace.sites)
        if trace.machine_code.num_rows:
            w.set_machine_code(trace.machine_code)
    return Path(dest)


__all__ = ["cut_trace"]
