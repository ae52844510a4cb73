"""``tracekit jobs run``: turn new or changed traces into reports and ledger rows.

Before anything is written, the run works out every report path it will write
and refuses (exit 2) if one of them is the ledger, its lock, the jobs file or a
trace, or if two jobs would write the same report (see :mod:`tracekit.jobs.paths`).
When several jobs of one jobs file share an output folder, each job's report
names start with the job's name, so they never overwrite each other.

Then, job by job:

1. hash every trace; a trace needs work unless the ledger holds a record of the
   same content under the same job settings whose reports are all on disk, at the
   paths this run would write them;
2. record the list of traces to process in the ledger (``pending``), together
   with any an interrupted run left unfinished;
3. for each: analyse it and write each report under a temporary name, then
   ``os.replace`` it into place (a reader never sees half a report); commit the
   trace's ledger rows, which also takes it off the pending list, in one transaction.

A kill between writing the reports and the commit leaves finished reports and no
rows: the next run redoes the trace (it is still pending) and replaces the
reports with identical ones.  Temporaries left by a kill are removed at the
start of the next run: only files named exactly like our temporaries whose
writing process is gone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tracekit import __version__
from tracekit.errors import MESSAGE_LIMIT, TracekitError, printable
from tracekit.jobs.config import FORMATS, Job, JobsFile, resolve_target
from tracekit.jobs.fingerprint import config_hash, trace_hash
from tracekit.jobs.ledger import Ledger, LedgerError, ResultRow
from tracekit.jobs.lock import RunLock
from tracekit.jobs.metrics import KEY_METRICS, as_float, regression
from tracekit.jobs.paths import Protected, check_outputs, ledger_files, stale_temporaries
from tracekit.jobs.process import ReportWriteError, process_trace

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


@dataclass(frozen=True)
class JobPlan:
    """One job's traces and the exact report paths this run would write for each."""

    job: Job
    out_dir: Path                 # resolved
    traces: list[Path]
    stems: dict[Path, str]

    def reports(self, trace: Path) -> list[Path]:
        return [self.out_dir / f"{self.stems[trace]}.{fmt}" for fmt in self.job.formats]


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


def report_stems(paths: list[Path], prefix: str = "") -> dict[Path, str]:
    """Report base names: the trace's name, made unique with a path hash where names collide."""
    stems = {p: p.name.rsplit(".", 1)[0] for p in paths}
    counts: dict[str, int] = {}
    for s in stems.values():
        counts[s] = counts.get(s, 0) + 1
    return {p: prefix + (s if counts[s] == 1 else f"{s}-{hashlib.sha256(str(p).encode()).hexdigest()[:8]}")
            for p, s in stems.items()}


def job_prefix(name: str) -> str:
    """The start of a job's report names in a folder it shares: its name, safe as a file name."""
    return re.sub(r"[^A-Za-z0-9_+=-]", "_", name) + "."


def shared_outputs(jobs: tuple[Job, ...]) -> set[str]:
    """Names of the jobs whose output folder another job of the same file also uses."""
    by_dir: dict[str, list[str]] = {}
    for job in jobs:
        by_dir.setdefault(os.path.realpath(job.output), []).append(job.name)
    return {name for names in by_dir.values() if len(names) > 1 for name in names}


def plan_jobs(jobs: JobsFile, selected: list[Job]) -> list[JobPlan]:
    """Each selected job's traces and report paths, refused if a report would replace a kept file."""
    shared = shared_outputs(jobs.jobs)
    plans = []
    for job in selected:
        if (job.output.exists() or job.output.is_symlink()) and not job.output.is_dir():
            raise TracekitError(f"the output folder of job '{job.name}' is a file (or a link to nothing); "
                                "name a folder for the reports", path=str(job.output))
        traces = job.discover()
        prefix = job_prefix(job.name) if job.name in shared else ""
        plans.append(JobPlan(job, job.output.resolve(), traces, report_stems(traces, prefix)))
    protected = Protected()
    for f in ledger_files(jobs.ledger):
        protected.add(f, f"the ledger's file {f}" if f != jobs.ledger else f"the ledger {f}")
    protected.add(jobs.path, f"the jobs file {jobs.path}")
    for plan in plans:
        for t in plan.traces:
            protected.add(t, f"the trace {t}")
    check_outputs({p.job.name: {t: p.reports(t) for t in p.traces} for p in plans}, protected)
    return plans


def clean_partials(out_dir: Path) -> int:
    """Remove report temporaries a killed run left behind; returns how many."""
    n = 0
    for p in stale_temporaries(out_dir, {f".{fmt}" for fmt in FORMATS}):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
            n += 1
    return n


def make_output(job: Job) -> None:
    """Create a job's output folder; a clear error when that is impossible."""
    try:
        job.output.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise TracekitError(f"cannot create the output folder of job '{job.name}': it, or a folder above it, "
                            "is a file", path=str(job.output)) from None
    except OSError as exc:
        raise TracekitError(f"cannot create the output folder of job '{job.name}' ({exc.strerror})",
                            path=str(job.output)) from None


def run_jobs(jobs: JobsFile, *, only: list[str] | None = None, force: bool = False,
             retry_failed: bool = False, log: Callable[[str], None] = plain_log) -> RunSummary:
    """Run every job (or those named in ``only``) once; see the module docstring."""
    selected = [jobs.job(n) for n in only] if only else list(jobs.jobs)
    plans = plan_jobs(jobs, selected)
    with RunLock(jobs.ledger):
        ledger = Ledger(jobs.ledger)
        try:
            summary = RunSummary(run_id=0)
            summary.aborted_runs = ledger.abandon_stale_runs()
            for rid in summary.aborted_runs:
                log(f"run {rid} was interrupted; its unfinished traces are processed again")
            summary.run_id = ledger.start_run(str(jobs.path.absolute()), __version__)
            log(f"run {summary.run_id} started: {len(selected)} job(s), ledger {jobs.ledger}")
            try:
                for plan in plans:
                    _run_job(plan, ledger, summary, config_dir=jobs.path.absolute().parent, force=force,
                             retry_failed=retry_failed, log=log)
            except BaseException:
                with contextlib.suppress(LedgerError):   # the original error says more
                    ledger.abort_run(summary.run_id)
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


def _digest(path: Path) -> str:
    try:
        return trace_hash(path)
    except OSError as exc:
        return f"unreadable:{exc.strerror}"


def _run_job(plan: JobPlan, ledger: Ledger, summary: RunSummary, *, config_dir: Path, force: bool,
             retry_failed: bool, log: Callable[[str], None]) -> None:
    job = plan.job
    make_output(job)
    if n := clean_partials(plan.out_dir):
        log(f"job {job.name}: removed {n} partial report(s) left by an interrupted run")
    targets = [resolve_target(t, job.base_dir) for t in job.targets]
    cfg = config_hash(targets, job.formats)
    log(f"job {job.name}: {len(plan.traces)} trace(s), targets {', '.join(t.name for t in targets)}, "
        f"formats {', '.join(job.formats)}")
    unfinished = ledger.pending(job.name)
    todo: list[tuple[Path, str]] = []
    for path in plan.traces:
        digest = _digest(path)
        prev = ledger.done(job.name, str(path), digest, cfg)
        if (force or str(path) in unfinished or prev is None
                or not _still_good(prev, plan.reports(path), config_dir, retry_failed)):
            todo.append((path, digest))
        else:
            summary.skipped += 1
    keys = {str(p) for p in plan.traces}
    if resumed := len(unfinished & keys):
        log(f"job {job.name}: {resumed} trace(s) left unfinished by an interrupted run are processed now")
    ledger.plan(summary.run_id, job.name, [str(p) for p, _ in todo], gone=unfinished - keys)
    for path, digest in todo:
        _process_one(plan, path, digest, targets, cfg, ledger, summary, log)


def _process_one(plan: JobPlan, path: Path, digest: str, targets: list, cfg: str, ledger: Ledger,
                 summary: RunSummary, log: Callable[[str], None]) -> None:
    """Analyse one trace, write its reports, then commit its record (see the module docstring)."""
    job, key = plan.job, str(path)
    start = time.perf_counter()
    try:
        if digest.startswith("unreadable:"):
            raise TracekitError(f"cannot read the trace ({digest.partition(':')[2]})", path=key)
        outcome = process_trace(path, targets, job.formats, plan.out_dir, stem=plan.stems[path])
        status, error, reports, rows = "ok", None, [str(p) for p in outcome.reports], outcome.rows
    except ReportWriteError:
        raise   # every trace would fail alike: stop, and leave this one pending for the next run
    except TracekitError as exc:
        status, error, reports, rows = "failed", str(exc), [], []
    except Exception as exc:  # noqa: BLE001 - one bad trace must not stop a scheduled run
        status, error, reports, rows = "failed", f"internal error: {type(exc).__name__}: {exc}", [], []
        for line in traceback.format_exc().rstrip().splitlines():
            log(f"  {line}")
    _pause("after-report")
    seconds = time.perf_counter() - start
    ledger.record_trace(summary.run_id, job.name, key, digest, cfg, status=status, error=error,
                        reports=reports, seconds=seconds, results=rows, regress=_regression_check(job))
    _pause("after-commit")
    summary.processed += 1
    if status == "ok":
        bad = sum(r.status != "ok" for r in rows)
        note = f" ({bad} not analysable)" if bad else ""
        log(f"job {job.name}: {path.name}: {len(rows)} result(s){note}, {len(reports)} report(s), "
            f"{seconds:.2f} s")
    else:
        log(f"job {job.name}: {path.name}: FAILED: {error.splitlines()[0]}")


def _still_good(prev, expected: list[Path], config_dir: Path, retry_failed: bool) -> bool:
    """A recorded trace needs no work unless it failed (and retry asked) or its reports are not
    all on disk at the paths this run would write them (a report deleted, or renamed by a
    change of settings).
    """
    if prev["status"] == "failed":
        return not retry_failed
    recorded = {stored_path(p, config_dir) for p in json.loads(prev["reports"])}
    return recorded == {os.path.realpath(p) for p in expected} and all(p.is_file() for p in expected)


def stored_path(text: str, config_dir: Path) -> str:
    """A report path from the ledger, resolved.

    Rows are written with absolute paths; older ledgers held paths relative to the
    folder the run was started from, which for a scheduled job is the jobs file's
    folder, so that is where a relative row is resolved.
    """
    return os.path.realpath(config_dir / text)    # an absolute ``text`` ignores ``config_dir``


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
