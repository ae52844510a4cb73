"""``tracekit jobs run|history|status``: scheduled reports and their ledger.

A thin layer: each command is a :mod:`tracekit.jobs` call plus printing.  Logs
go to stderr as plain timestamped lines (no progress bars: these commands run
under cron and CI); summaries and tables go to stdout.  ``history`` and
``status`` only read: they open the ledger read-only and never create it.
"""

from __future__ import annotations

import signal
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import tomllib
import typer

from tracekit.errors import MESSAGE_LIMIT, printable

#: Most rows `jobs history` shows at once.
LIMIT_MAX = 1_000_000

jobs_app = typer.Typer(help="Scheduled report jobs: run a jobs file, show the ledger.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(jobs_app, name="jobs")


def _ledger_path(source: str) -> Path:
    """A ledger named directly, or through the jobs file that names it."""
    from tracekit.jobs.config import DEFAULT_LEDGER, JobsFileError

    p = Path(source)
    if p.suffix != ".toml":
        return p
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise JobsFileError(f"cannot read the jobs file ({exc})", path=str(p)) from None
    ledger = data.get("ledger", DEFAULT_LEDGER)
    if not isinstance(ledger, str) or not ledger:
        raise JobsFileError(f"'ledger' must be the path of the ledger file (a string); got {ledger!r}",
                            path=str(p))
    return p.parent / ledger


@contextmanager
def _sigterm_unwinds():
    """Let SIGTERM (a CI timeout, ``kill``) unwind the run like an exception.

    The run then marks itself aborted in the ledger and removes the temporary it was
    writing, instead of vanishing mid-step; the exit status is the usual 128 + 15.
    """
    def stop(signum, frame):
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:          # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _first_line(error: str | None) -> str:
    """The first line of a stored error message, made printable."""
    lines = (error or "").splitlines()
    return printable(lines[0] if lines else "", limit=MESSAGE_LIMIT)


@jobs_app.command("run")
def run_cmd(
    jobs_file: Annotated[str, typer.Argument(help="The jobs file (TOML, see docs/jobs.md).")],
    job: Annotated[list[str] | None, typer.Option("--job", "-j", help="Only this job (repeatable).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Process every trace again.")] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed",
                                               help="Try again traces that failed before.")] = False,
) -> None:
    """Process new or changed traces; exit 3 on a regression, 5 if a trace failed, 4 if busy."""
    from tracekit.jobs import load_jobs, run_jobs
    from tracekit.jobs.tables import fmt_change

    jobs = load_jobs(jobs_file)
    with _sigterm_unwinds():
        summary = run_jobs(jobs, only=job or None, force=force, retry_failed=retry_failed)
    print(f"run {summary.run_id}: {summary.status}: {summary.processed} processed, "
          f"{summary.skipped} unchanged, {len(summary.failed)} failed, "
          f"{len(summary.regressions)} regression(s)")
    for row in summary.failed:
        print(f"FAILED {printable(row['job'])} {printable(row['path'], limit=None)}: "
              f"{_first_line(row['error'])}")
    for g in summary.regressions:
        print(f"REGRESSION {printable(g['job'])} {printable(g['kernel'])} launch {g['launch']} on "
              f"{printable(g['target'])}: {printable(g['metric'])} {g['baseline']:.6g} -> {g['value']:.6g} "
              f"({fmt_change(g['change'])} worse) in {printable(g['path'], limit=None)}")
    raise typer.Exit(summary.exit_code)


@jobs_app.command("history")
def history_cmd(
    source: Annotated[str, typer.Argument(help="A jobs file or a ledger (.sqlite).")],
    job: Annotated[str | None, typer.Option("--job", help="Only this job's results.")] = None,
    kernel: Annotated[str | None, typer.Option("--kernel", help="Only this kernel's results.")] = None,
    target: Annotated[str | None, typer.Option("--target", help="Only results on this target.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=LIMIT_MAX,
                                       help=f"How many rows to show (1 to {LIMIT_MAX:,}).")] = 20,
) -> None:
    """Past runs, then per-kernel results (newest first) with verdict and estimated time."""
    from tracekit.jobs.ledger import Ledger
    from tracekit.jobs.tables import show_table
    from tracekit.report.fmt import fmt_time

    ledger = Ledger(_ledger_path(source), readonly=True)
    try:
        runs = ledger.runs(limit)
        show_table("runs", ["run", "started", "finished", "status", "processed", "unchanged", "failed",
                            "regressions"],
                   [[r["id"], r["started_at"], r["finished_at"] or "-", r["status"], r["processed"],
                     r["skipped"], r["failed"], r["regressions"]] for r in runs])
        results = ledger.results_history(job=job, kernel=kernel, target=target, limit=limit)
        print()
        show_table("results", ["run", "job", "trace", "kernel", "launch", "target", "verdict", "time",
                               "regressions"],
                   [[r["run_id"], r["job"], Path(r["path"]).name, r["kernel"], r["launch"], r["target"],
                     r["bound"] if r["status"] == "ok" else f"error: {_first_line(r['error'])}",
                     fmt_time(r["time_s"], plain=True),
                     r["n_regressions"] or ""] for r in results])
    finally:
        ledger.close()


@jobs_app.command("status")
def status_cmd(source: Annotated[str, typer.Argument(help="A jobs file or a ledger (.sqlite).")]) -> None:
    """Whether a run is going on, the last run, each job's traces and the latest failures."""
    from tracekit.jobs.ledger import Ledger
    from tracekit.jobs.lock import RunLock
    from tracekit.jobs.tables import fmt_change, show_table

    path = _ledger_path(source)
    ledger = Ledger(path, readonly=True)
    holder = RunLock(path).held_by()
    try:
        print(f"ledger {printable(path, limit=None)}: "
              + (f"a run is in progress ({printable(holder)})" if holder else "no run in progress"))
        last = ledger.runs(1)
        if last:
            r = last[0]
            # 'running' with nobody holding the lock: the run was killed before it could say so.
            state = r["status"]
            if state == "running" and not holder:
                state = "interrupted (the next run finishes its work)"
            print(f"last run {r['id']}: {printable(state)}, started {printable(r['started_at'])}, "
                  f"{r['processed']} processed, {r['failed']} failed, {r['regressions']} regression(s)")
        print()
        show_table("jobs", ["job", "traces", "ok", "failed", "last processed", "last run"],
                   [[j["job"], j["traces"], j["ok"], j["failed"], j["last_processed"], j["last_run"]]
                    for j in ledger.job_status()])
        fails = ledger.latest_failures()
        if fails:
            print()
            show_table("failed traces", ["job", "trace", "error"],
                       [[f["job"], f["path"], _first_line(f["error"])] for f in fails])
        done = [r for r in ledger.runs(50) if r["status"] != "running"]
        regs = ledger.regressions_of_run(done[0]["id"]) if done else []
        if regs:
            print()
            show_table(f"regressions reported by run {done[0]['id']}",
                       ["job", "kernel", "launch", "target", "metric", "baseline", "now", "worse by"],
                       [[g["job"], g["kernel"], g["launch"], g["target"], g["metric"], f"{g['baseline']:.6g}",
                         f"{g['value']:.6g}", fmt_change(g["change"])] for g in regs])
    finally:
        ledger.close()

