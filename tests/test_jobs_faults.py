"""Fault injection: ``tracekit jobs run`` killed at seeded random points, then run again.

Each kill (SIGKILL or SIGTERM, at a random moment of the run's work) must leave
every report either the previous one or the complete new one, a ledger that
passes SQLite's integrity check and whose every completed trace has its reports
on disk and whole, and work that the next plain run finishes: exactly the
traces not yet recorded under their current content, plus those a killed run
had promised (``--force``), and nothing else.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from test_jobs_traces import vector_add

from tracekit.jobs.fingerprint import trace_hash
from tracekit.jobs.process import process_trace
from tracekit.targets import load_target

SEED = 31
TARGET = "intel-hd530"
TRACES = [f"t{i}" for i in range(6)]
#: (signal, extra arguments) of each killed run, in order: plain and forced runs, both signals.
KILLS = [(signal.SIGKILL, []), (signal.SIGTERM, ["--force"]), (signal.SIGKILL, ["--force"]),
         (signal.SIGTERM, []), (signal.SIGKILL, ["--force"]), (signal.SIGTERM, ["--force"])]


def _jobs_file(tmp_path: Path) -> Path:
    for i, name in enumerate(TRACES):
        vector_add(tmp_path / f"traces/{name}.tkt", n=128, kernel=f"k{i}")
    path = tmp_path / "jobs.toml"
    path.write_text(f'ledger = "state/ledger.sqlite"\n[jobs.nightly]\ninputs = ["traces"]\n'
                    f'targets = ["{TARGET}"]\nformats = ["json"]\noutput = "reports"\n')
    return path


def _start(jobs: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tracekit.cli", "jobs", "run", str(jobs), *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _wait_started(proc: subprocess.Popen) -> float:
    """Block until the run logs that it started its work; returns that moment."""
    while True:
        line = proc.stderr.readline()
        assert line, f"the run ended before it started (exit {proc.wait()})"
        if " started: " in line:
            return time.monotonic()


def _timed_run(jobs: Path) -> float:
    """One whole run; returns how long its work took after start-up."""
    proc = _start(jobs)
    t0 = _wait_started(proc)
    rest = proc.stderr.read()
    assert proc.wait() == 0, rest
    return time.monotonic() - t0


def _kill_during_work(jobs: Path, args: list[str], delay: float, sig: signal.Signals) -> int:
    proc = _start(jobs, *args)
    _wait_started(proc)
    time.sleep(delay)
    proc.send_signal(sig)            # a no-op if the run has already finished
    proc.communicate(timeout=60)
    # 143: SIGTERM unwound the run; -15: it came after the run had finished, while it printed
    # its summary and exited (outside the run the signal keeps its default action).
    assert proc.returncode in (0, 3, -signal.SIGKILL, 128 + signal.SIGTERM, -signal.SIGTERM), proc.returncode
    return proc.returncode


def _ledger_rows(ledger: Path) -> tuple[list[tuple], set[str], list[tuple]]:
    con = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        traces = con.execute("SELECT path, content_hash, status, reports FROM traces").fetchall()
        pending = {p for (p,) in con.execute("SELECT path FROM pending")}
        runs = con.execute("SELECT id, status FROM runs").fetchall()
    finally:
        con.close()
    return traces, pending, runs


def _check_consistent(tmp_path: Path, old: dict[str, bytes], new: dict[str, bytes],
                      current: dict[str, str]) -> set[str]:
    """Assert what any kill must leave behind; returns the traces the next run has to process."""
    for p in (tmp_path / "reports").iterdir():
        if not p.name.startswith("."):
            assert p.read_bytes() in (old[p.name], new[p.name]), f"{p.name} is neither old nor new"
    traces, pending, _ = _ledger_rows(tmp_path / "state/ledger.sqlite")
    up_to_date = set()
    for path, digest, status, reports in traces:
        assert status == "ok"
        for report in map(Path, json.loads(reports)):
            assert report.is_absolute() and report.read_bytes() in (old[report.name], new[report.name])
            if digest == current[path]:
                assert report.read_bytes() == new[report.name], f"{report.name} recorded done but not new"
        if digest == current[path]:
            up_to_date.add(path)
    return (set(current) - up_to_date) | pending


def test_killed_job_runs_leave_old_or_new_reports_and_a_ledger_the_next_run_finishes(tmp_path):
    rng = random.Random(SEED)
    jobs = _jobs_file(tmp_path)
    work = _timed_run(jobs)
    reports = tmp_path / "reports"
    old = {p.name: p.read_bytes() for p in reports.iterdir()}
    assert sorted(old) == [f"{t}.json" for t in TRACES]

    # New content for every trace; the reports it must give, written apart by the same code.
    for i, name in enumerate(TRACES):
        vector_add(tmp_path / f"traces/{name}.tkt", n=128, kernel=f"k{i}", stride=8)
    target = load_target(TARGET)
    for name in TRACES:
        process_trace(tmp_path / f"traces/{name}.tkt", [target], ("json",), tmp_path / "expected", stem=name)
    new = {p.name: p.read_bytes() for p in (tmp_path / "expected").iterdir()}
    assert all(new[k] != old[k] for k in old)
    current = {str((tmp_path / f"traces/{n}.tkt").resolve()): trace_hash(tmp_path / f"traces/{n}.tkt")
               for n in TRACES}

    for sig, args in KILLS:
        _kill_during_work(jobs, args, rng.uniform(0, work), sig)
        remaining = _check_consistent(tmp_path, old, new, current)

    final = subprocess.run([sys.executable, "-m", "tracekit.cli", "jobs", "run", str(jobs)],
                           capture_output=True, text=True, timeout=120)
    assert final.returncode in (0, 3), final.stderr
    assert f": {len(remaining)} processed, {len(TRACES) - len(remaining)} unchanged" in final.stdout
    assert _check_consistent(tmp_path, old, new, current) == set()
    assert {p.name: p.read_bytes() for p in reports.iterdir()} == new     # no temporaries left either
    traces, pending, runs = _ledger_rows(tmp_path / "state/ledger.sqlite")
    assert {p for p, *_ in traces} == set(current) and pending == set()
    assert all(status != "running" for _, status in runs)
