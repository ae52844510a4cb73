"""What a scheduled job does to one trace: :func:`process_trace`.

Everything a job does to a trace goes through :mod:`tracekit.pipeline` (the same
sequence as ``tracekit analyze``), so the runner's ledger, locking and crash
handling do not depend on how the analysis works inside.  Reports are written
durably under a temporary name in the output folder and renamed into place
(:func:`tracekit.files.write_atomic`), so a reader or a killed run never leaves
half a file under the final name.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from tracekit import pipeline
from tracekit.errors import TracekitError
from tracekit.files import write_atomic
from tracekit.jobs.ledger import ResultRow


class ReportWriteError(TracekitError):
    """A report could not be written (a full disk, a folder that takes no files): not the trace's fault.

    It would fail every trace the same way, so a run stops on it instead of recording
    the trace as failed; the trace stays pending and the next run does it.
    """


@dataclass
class TraceOutcome:
    """What processing one trace produced: one row per (launch, target) and the report files."""

    path: Path
    rows: list[ResultRow]
    reports: list[Path]
    results: dict[str, object] = field(default_factory=dict, repr=False)  # target -> analysis result


def process_trace(path: str | os.PathLike, targets: list, formats: tuple[str, ...] | list[str],
                  out_dir: str | os.PathLike, *, stem: str | None = None) -> TraceOutcome:
    """Analyse one trace on every target and write its reports.

    The JSON report is the document ``tracekit analyze --format json`` writes; HTML
    and PDF are the report ``tracekit analyze --format html|pdf`` writes, with the
    rules' checklist.  A launch that cannot run on a target is an error row for
    that target only; a trace that cannot be read raises :class:`TracekitError`.
    """
    path, out_dir = Path(path), Path(out_dir)
    trace = pipeline.load_trace(path)
    if not trace.launches.num_rows and not trace.num_accesses:
        raise TracekitError("the trace is empty: no launches and no accesses", path=str(path))
    analysis = pipeline.analyze(trace, targets)
    rows = _with_ordinals([row for r in analysis.results for row in result_rows(r, r.target.name)])
    stem = stem or path.name.rsplit(".", 1)[0]
    reports = [_write_report(analysis, fmt, out_dir / f"{stem}.{fmt}") for fmt in formats]
    return TraceOutcome(path=path, rows=rows, reports=reports,
                        results={r.target.name: r for r in analysis.results})


def _write_report(analysis, fmt: str, dest: Path) -> Path:
    """Write one report of ``analysis`` durably; a failure to write is a :class:`ReportWriteError`."""
    try:
        if fmt == "json":
            return write_atomic(dest, analysis.to_json(), durable=True)
        from tracekit.report import render_report

        model = analysis.report_model()
        return write_atomic(dest, lambda tmp: render_report(model, fmt, tmp), durable=True)
    except ReportWriteError:
        raise
    except TracekitError as exc:
        raise ReportWriteError(f"cannot write the report: {exc}") from None


def _with_ordinals(rows: list[ResultRow]) -> list[ResultRow]:
    """Number each kernel's launches 0, 1, ... in launch order (the regression key)."""
    order: dict[str, list[int]] = {}
    for r in rows:
        order.setdefault(r.kernel, [])
        if r.launch not in order[r.kernel]:
            order[r.kernel].append(r.launch)
    return [ResultRow(r.kernel, r.launch, sorted(order[r.kernel]).index(r.launch), r.target, r.status,
                      r.error, r.bound, r.time_s, r.metrics) for r in rows]


def launch_metrics(r) -> dict[str, float]:
    """The ledger's metrics of one launch result, under their JSON names (docs/json-schema.md)."""
    out: dict[str, float] = {}
    if r.memory is not None:
        m, lm = r.memory.memory, r.memory.local_memory
        out.update({"memory.requests": m.requests, "memory.transactions": m.transactions,
                    "memory.transactions_per_request": m.transactions_per_request,
                    "memory.dram_bytes": m.dram_bytes, "local_memory.requests": lm.requests,
                    "local_memory.cycles": lm.cycles,
                    "local_memory.conflict_degree_mean": lm.conflict_degree_mean})
        if m.caches:
            out["memory.l1_hit_rate"] = m.caches[0].hit_rate
    if r.simd is not None:
        out["simd.utilization"] = r.simd.utilization
    return {k: float(v) for k, v in out.items() if v is not None and math.isfinite(float(v))}


def result_rows(result, target_name: str) -> list[ResultRow]:
    """Ledger rows of one target's analysis result, one per launch."""
    rows = []
    for r in sorted(result.launches, key=lambda x: x.launch):
        error = r.error
        total = r.time_estimates.get("total_s") if not error else None
        rows.append(ResultRow(
            kernel=str(r.kernel), launch=int(r.launch), ordinal=0, target=target_name,
            status="error" if error else "ok", error=error, bound=r.verdict,
            time_s=None if total is None else float(total), metrics=launch_metrics(r)))
    return rows
