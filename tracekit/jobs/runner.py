"""``tracekit jobs run``: turn new or changed traces into reports and ledger rows.

Order of work for one trace, chosen so that a run killed at any instant can be
finished by simply running again:

1. hash the trace; skip it if the ledger already holds a record of the same
   content under the same job settings and its reports are all on disk;
2. analyse it and write each report under a temporary name, then ``os.replace``
   it into place (a reader never sees half a report);
3. commit the trace's ledger rows in one transaction.

A kill between 2 and 3 leaves finished reports and no rows: the next run redoes
the trace and replaces the reports with identical ones.  Temporaries left by a
kill during 2 are removed at the start of the next run (the lock guarantees
their writer is gone).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tracekit import __version__
from tracekit.errors import MESSAGE_LIMIT, TracekitError, printable
from tracekit.files import PART_MARK
from tracekit.jobs.config import Job, JobsFile, resolve_target
from tracekit.jobs.fingerprint import config_hash, trace_hash
from tracekit.jobs.ledger import Ledger, ResultRow
from tracekit.jobs.lock import RunLock
from tracekit.jobs.metrics import KEY_METRICS, as_float, regression
from tracekit.jobs.process import process_trace

EXIT_OK, EXIT_REGRESSION, EXIT_FAILED = 0, 3, 5
#: Crash-test hook: ``after-report:SECONDS`` or ``after-commit:SECONDS`` makes the
#: run sleep at that point of every trace, so a test can kill it there.
PAUSE_ENV = "TRACEKIT_JOBS_TEST_PAUSE"


@dataclass
class RunSummary:
    run_id: int
    processed: int = 0
    skipped: int = 0
    aborted_runs: list[int] = field(default_factory=list)
    failed: list = field(default_factory=list)        # ledger rows of failed traces
    regressions: list = field(default_factory=list)   # ledger rows of regressions

    @property
    def status(self) -> str:
        return "regressions" if self.regressions else "failures" if self.failed else "ok"

    @property
    def exit_code(self) -> int:
        return EXIT_REGRESSION if self.regressions else EXIT_FAILED if self.failed else EXIT_OK


def plain_log(message: str) -> None:
    """One timestamped line on stderr: what cron mails and CI logs keep.

    The message names traces, kernels and errors, so it is made printable (and kept to one
    line) first."""
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} tracekit jobs: {printable(message, limit=MESSAGE_LIMIT)}",
          file=sys.stderr, flush=True)


def _pause(stage: str) -> None:
    spec = os.environ.get(PAUSE_ENV, "")
    if spec.partition(":")[0] == stage:
        time.sleep(float(spec.partition(":")[2] or 60))


def report_stems(paths: list[Path]) -> dict[Path, str]:
    """Report base names: the trace's name, made unique with a path hash where names collide."""
    stems = {p: p.name.rsplit(".", 1)[0] for p in paths}
    counts: dict[str, int] = {}
    for s in stems.values():
        counts[s] = counts.get(s, 0) + 1
    return {p: s if counts[s] == 1 else f"{s}-{hashlib.sha256(str(p).encode()).hexdigest()[:8]}"
            for p, s in stems.items()}


def clean_partials(out_dir: Path) -> int:
    """Remove report temporaries a killed run left behind; returns how many."""
    n = 0
    if out_dir.is_dir():
        for p in out_dir.iterdir():
            if p.name.startswith(".") and PART_MARK in p.name and p.is_file():
                p.unlink(missing_ok=True)
                n += 1
    return n


def run_jobs(jobs: JobsFile, *, only: list[str] | None = None, force: bool = False,
             retry_failed: bool = False, log: Callable[[str], None] = plain_log) -> RunSummary:
    """Run every job (or those named in ``only``) once; see the module docstring."""
    selected = [jobs.job(n) for n in only] if only else list(jobs.jobs)
    with RunLock(jobs.ledger):
        ledger = Ledger(jobs.ledger)
        try:
            summary = RunSummary(run_id=0)
            summary.aborted_runs = ledger.abandon_stale_runs()
            for rid in summary.aborted_runs:
                log(f"run {rid} was interrupted; finishing its work now")
            summary.run_id = ledger.start_run(str(jobs.path), __version__)
            log(f"run {summary.run_id} started: {len(selected)} job(s), ledger {jobs.ledger}")
            try:
                for job in selected:
                    _run_job(job, ledger, summary, force=force, retry_failed=retry_failed, log=log)
            except BaseException:
                ledger.finish_run(summary.run_id, "aborted", {"processed": summary.processed,
                                  "skipped": summary.skipped, "failed": 0, "regressions": 0})
                raise
            summary.failed, summary.regressions = ledger.claim_unreported(summary.run_id)
            ledger.finish_run(summary.run_id, summary.status, {
                "processed": summary.processed, "skipped": summary.skipped,
                "failed": len(summary.failed), "regressions": len(summary.regressions)})
            log(f"run {summary.run_id} finished: {summary.processed} processed, {summary.skipped} unchanged, "
                f"{len(summary.failed)} failed, {len(summary.regressions)} regression(s)")
            return summary
        finally:
            ledger.close()


def _run_job(job: Job, ledger: Ledger, summary: RunSummary, *, force: bool, retry_failed: bool,
             log: Callable[[str], None]) -> None:
    job.output.mkdir(parents=True, exist_ok=True)
    if n := clean_partials(job.output):
        log(f"job {job.name}: removed {n} partial report(s) left by an interrupted run")
    targets = [resolve_target(t, job.base_dir) for t in job.targets]
    cfg = config_hash(targets, job.formats)
    paths = job.discover()
    stems = report_stems(paths)
    log(f"job {job.name}: {len(paths)} trace(s), targets {', '.join(t.name for t in targets)}, "
        f"formats {', '.join(job.formats)}")
    for path in paths:
        key = str(path)
        try:
            digest = trace_hash(path)
        except OSError as exc:
            digest = f"unreadable:{exc.strerror}"
        prev = ledger.done(job.name, key, digest, cfg)
        if prev is not None and not force and _still_good(prev, retry_failed):
            summary.skipped += 1
            continue
        start = time.perf_counter()
        try:
            if digest.startswith("unreadable:"):
                raise TracekitError(f"cannot read the trace ({digest.partition(':')[2]})", path=key)
            outcome = process_trace(path, targets, job.formats, job.output, stem=stems[path])
            status, error, reports, rows = "ok", None, [str(p) for p in outcome.reports], outcome.rows
        except TracekitError as exc:
            status, error, reports, rows = "failed", str(exc), [], []
        except Exception as exc:  # noqa: BLE001 - one bad trace must not stop a scheduled run
            status, error, reports, rows = "failed", f"internal error: {type(exc).__name__}: {exc}", [], []
            for line in traceback.format_exc().rstrip().splitlines():
                log(f"  {line}")
        _pause("after-report")
        seconds = time.perf_counter() - start
        ledger.record_trace(summary.run_id, job.name, key, digest, cfg, status=status, error=error,
                            reports=reports, seconds=seconds, results=rows,
                            regress=_regression_check(job))
        _pause("after-commit")
        summary.processed += 1
        if status == "ok":
            bad = sum(r.status != "ok" for r in rows)
            note = f" ({bad} not analysable)" if bad else ""
            log(f"job {job.name}: {path.name}: {len(rows)} result(s){note}, {len(reports)} report(s), "
                f"{seconds:.2f} s")
        else:
            log(f"job {job.name}: {path.name}: FAILED: {error.splitlines()[0]}")


def _still_good(prev, retry_failed: bool) -> bool:
    """A recorded trace needs no work unless it failed (and retry asked) or a report went missing."""
    if prev["status"] == "failed":
        return not retry_failed
    return all(Path(p).exists() for p in json.loads(prev["reports"]))


def _regression_check(job: Job):
    """The ``regress`` callback for :meth:`Ledger.record_trace`.

    Baseline: the most recent successful result recorded before this one for the
    same job, kernel, launch ordinal (n-th launch of that kernel in its trace)
    and target, from a trace that was itself processed successfully; with
    ``baseline = "trace"`` also from a trace of the same file name.
    """
    same_name = ("AND t.name = (SELECT name FROM traces WHERE id = "
                 "(SELECT trace_id FROM results WHERE id = ?)) " if job.baseline == "trace"
                 else "AND ? IS NOT NULL ")

    def check(con, result_id: int, row: ResultRow):
        base = con.execute(
            "SELECT r.id, r.time_s, r.metrics FROM results r JOIN traces t ON t.id = r.trace_id "
            "WHERE r.job = ? AND r.kernel = ? AND r.ordinal = ? AND r.target = ? AND r.status = 'ok' "
            "AND t.status = 'ok' AND r.id < ? " + same_name + "ORDER BY r.id DESC LIMIT 1",
            (job.name, row.kernel, row.ordinal, row.target, result_id, result_id)).fetchone()
        if base is None:
            return []
        base_metrics = json.loads(base["metrics"])
        base_metrics["time_s"] = base["time_s"]
        now_metrics = dict(row.metrics, time_s=row.time_s)
        out = []
        for name in job.metrics:
            b, v = as_float(base_metrics.get(name)), as_float(now_metrics.get(name))
            if b is None or v is None:
                continue
            change = regression(KEY_METRICS[name], b, v, job.regression_threshold)
            if change is not None:
                out.append((name, base["id"], b, v, change))
        return out

    return check
