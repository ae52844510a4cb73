"""The one seam between scheduled jobs and the analysis pipeline: :func:`process_trace`.

Everything a job does to a trace goes through here, by the pipeline's public
APIs only (open_trace, analyzers.analyze, the rules, the report renderer), so
the runner's ledger, locking and crash handling do not depend on how any of them
work inside.  Reports are written under a temporary name in the output folder
and renamed into place, so a reader (or a killed run) never leaves half a file
under the final name.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tracekit.errors import TracekitError
from tracekit.formats import open_trace
from tracekit.jobs.ledger import ResultRow
from tracekit.jobs.metrics import as_float, dig

#: Marks report temporaries: ``.NAME.part-PID.EXT`` in the output folder.
PART_MARK = ".part-"


@dataclass
class TraceOutcome:
    """What processing one trace produced: one row per (launch, target) and the report files."""

    path: Path
    rows: list[ResultRow]
    reports: list[Path]
    results: dict[str, object] = field(default_factory=dict, repr=False)  # target -> analysis result


def write_atomic(dest: Path, write: Callable[[Path], object]) -> Path:
    """Call ``write(tmp)`` on a temporary path beside ``dest``, make it durable, rename it over ``dest``."""
    tmp = dest.with_name(f".{dest.name}{PART_MARK}{os.getpid()}{dest.suffix}")
    try:
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    dfd = os.open(dest.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    return dest


def process_trace(path: str | os.PathLike, targets: list, formats: tuple[str, ...] | list[str],
                  out_dir: str | os.PathLike, *, stem: str | None = None) -> TraceOutcome:
    """Analyse one trace on every target and write its reports.

    The JSON report is the document ``tracekit analyze --format json`` writes; HTML
    and PDF are the report ``tracekit analyze --format html|pdf`` writes, with the
    rules' checklist.  A launch that cannot run on a target is an error row for
    that target only; a trace that cannot be read raises :class:`TracekitError`.
    """
    from analyzers import analyze
    from tracekit.targets import load_target

    path, out_dir = Path(path), Path(out_dir)
    targets = [load_target(t) if isinstance(t, (str, os.PathLike)) else t for t in targets]
    trace = open_trace(path)
    if not trace.launches.num_rows and not trace.num_accesses:
        raise TracekitError("the trace is empty: no launches and no accesses", path=str(path))
    results = [analyze(trace, t) for t in targets]
    rows = _with_ordinals([row for r in results for row in result_rows(r, r.target.name)])
    stem = stem or path.name.rsplit(".", 1)[0]
    out_dir.mkdir(parents=True, exist_ok=True)
    reports = []
    model = None
    for fmt in formats:
        dest = out_dir / f"{stem}.{fmt}"
        if fmt == "json":
            from analyzers.result_dict import dumps
            from tracekit.cli.analyze import analysis_document

            text = dumps(analysis_document(trace, results))
            reports.append(write_atomic(dest, lambda tmp, text=text: tmp.write_text(text, encoding="utf-8")))
            continue
        from tracekit.report import render_report

        model = model or report_model(trace, results)
        reports.append(write_atomic(dest, lambda tmp, fmt=fmt, model=model: render_report(model, fmt, tmp)))
    return TraceOutcome(path=path, rows=rows, reports=reports, results={r.target.name: r for r in results})


def report_model(trace, results):
    """The HTML/PDF report model: the analysis on every target plus the rules' findings."""
    from analyzers.rules import build_contexts, run_rules
    from tracekit.report import build_report_model, summarize_trace

    findings = []
    for r in results:
        findings += list(run_rules(build_contexts(trace, r.target, r)))
    return build_report_model(summarize_trace(trace), {r.target.name: r for r in results}, findings,
                              targets={r.target.name: r.target for r in results})


def _with_ordinals(rows: list[ResultRow]) -> list[ResultRow]:
    """Number each kernel's launches 0, 1, ... in launch order (the regression key)."""
    order: dict[str, list[int]] = {}
    for r in rows:
        order.setdefault(r.kernel, [])
        if r.launch not in order[r.kernel]:
            order[r.kernel].append(r.launch)
    return [ResultRow(r.kernel, r.launch, sorted(order[r.kernel]).index(r.launch), r.target, r.status,
                      r.error, r.bound, r.time_s, r.metrics) for r in rows]


#: Metrics copied from each launch's JSON result into the ledger (dotted names of docs/json-schema.md).
LEDGER_METRICS = (
    "memory.requests", "memory.transactions", "memory.transactions_per_request", "memory.dram_bytes",
    "local_memory.requests", "local_memory.cycles", "local_memory.conflict_degree_mean",
    "simd.utilization",
)


def result_rows(result, target_name: str) -> list[ResultRow]:
    """Ledger rows of one target's analysis result, one per launch."""
    doc = result.to_dict()
    rows = []
    for ln in doc.get("launches", []):
        metrics = {k: as_float(dig(ln, k)) for k in LEDGER_METRICS}
        caches = dig(ln, "memory.caches") or []
        if caches:
            metrics["memory.l1_hit_rate"] = as_float(caches[0].get("hit_rate"))
        metrics = {k: v for k, v in metrics.items() if v is not None}
        error = ln.get("error")
        rows.append(ResultRow(
            kernel=str(ln.get("kernel")), launch=int(ln.get("launch", 0)), ordinal=0, target=target_name,
            status="error" if error else "ok", error=error, bound=ln.get("bound"),
            time_s=None if error else launch_time(ln), metrics=metrics))
    return rows


def launch_time(ln: dict) -> float | None:
    """The launch's estimated time in seconds from its ``time_estimates``."""
    te = ln.get("time_estimates") or {}
    for key in ("total_s", "estimated_s", "total"):
        if as_float(te.get(key)) is not None:
            return as_float(te[key])
    return None
