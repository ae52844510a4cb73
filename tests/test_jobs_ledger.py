"""The ledger (real SQLite) and the run lock (real flock, held by a real other process)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tracekit.jobs.ledger import SCHEMA_VERSION, Ledger, LedgerError, ResultRow
from tracekit.jobs.lock import LedgerBusyError, RunLock
from tracekit.jobs.metrics import KEY_METRICS, regression


def _row(kernel="k", launch=0, target="t", time_s=1.0, **metrics):
    return ResultRow(kernel, launch, 0, target, "ok", None, "memory", time_s, metrics)


def _record(ledger, run, path="a.tkt", digest="h1", rows=(), regress=lambda *a: [], status="ok"):
    return ledger.record_trace(run, "job", path, digest, "cfg", status=status, error=None, reports=[],
                               seconds=0.1, results=list(rows), regress=regress)


def test_schema_wal_and_version(tmp_path):
    led = Ledger(tmp_path / "l.sqlite")
    assert led.con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert led.con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    tables = {r[0] for r in led.con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"runs", "traces", "results", "regressions"} <= tables
    led.con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    led.close()
    with pytest.raises(LedgerError, match="newer"):
        Ledger(tmp_path / "l.sqlite")


def test_missing_ledger_is_a_clear_error(tmp_path):
    with pytest.raises(LedgerError, match="first `tracekit jobs run`"):
        Ledger(tmp_path / "none.sqlite", create=False)


def test_a_trace_record_is_replaced_never_duplicated(tmp_path):
    led = Ledger(tmp_path / "l.sqlite")
    run = led.start_run("jobs.toml", "0")
    _record(led, run, rows=[_row(), _row(target="u")])
    _record(led, run, rows=[_row(), _row(target="u")])   # a forced re-run of the same content
    assert led.con.execute("SELECT COUNT(*) FROM traces").fetchone()[0] == 1
    assert led.con.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 2
    with pytest.raises(sqlite3.IntegrityError):           # the constraint itself forbids duplicates
        led.con.execute("INSERT INTO results (trace_id, job, kernel, launch, ordinal, target, status) "
                        "SELECT trace_id, job, kernel, launch, ordinal, target, status FROM results LIMIT 1")


def test_a_failing_record_leaves_nothing(tmp_path):
    led = Ledger(tmp_path / "l.sqlite")
    run = led.start_run("jobs.toml", "0")

    def boom(*_):
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        _record(led, run, rows=[_row(), _row(target="u")], regress=boom)
    assert led.con.execute("SELECT COUNT(*) FROM traces").fetchone()[0] == 0
    assert led.con.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 0


def test_unreported_findings_carry_over_to_the_next_finished_run(tmp_path):
    led = Ledger(tmp_path / "l.sqlite")
    killed = led.start_run("jobs.toml", "0")
    _record(led, killed, rows=[_row(time_s=1.0)])
    _record(led, killed, path="b.tkt", rows=[_row(time_s=2.0)],
            regress=lambda con, rid, row: [("time_s", 1, 1.0, 2.0, 1.0)])
    assert led.abandon_stale_runs() == [killed]
    nxt = led.start_run("jobs.toml", "0")
    failed, regs = led.claim_unreported(nxt)
    assert [r["metric"] for r in regs] == ["time_s"] and failed == []
    assert led.claim_unreported(nxt + 1) == ([], [])      # reported once, never again


def test_regression_direction_and_threshold():
    t, u = KEY_METRICS["time_s"], KEY_METRICS["simd.utilization"]
    assert regression(t, 1.0, 1.2, 0.1) == pytest.approx(0.2)
    assert regression(t, 1.0, 1.05, 0.1) is None           # within threshold
    assert regression(t, 1.0, 0.5, 0.1) is None            # better
    assert regression(u, 1.0, 0.5, 0.1) == pytest.approx(0.5)  # utilisation falling is worse
    assert regression(u, 0.5, 1.0, 0.1) is None
    assert regression(KEY_METRICS["memory.dram_bytes"], 0.0, 64.0, 0.1) == float("inf")


HOLDER = """
import sys, time
from tracekit.jobs.lock import RunLock
RunLock(sys.argv[1]).acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_lock_refuses_a_second_run_and_dies_with_its_holder(tmp_path):
    ledger = tmp_path / "l.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(ledger)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        assert f"pid {proc.pid}" in (RunLock(ledger).held_by() or "")
        with pytest.raises(LedgerBusyError, match=f"pid {proc.pid}") as err:
            RunLock(ledger).acquire()
        assert err.value.exit_code == 4
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.time() + 5
    while RunLock(ledger).held_by() and time.time() < deadline:
        time.sleep(0.05)
    with RunLock(ledger):                                 # the kernel released it: no stale lock
        assert (RunLock(ledger).held_by() or "").startswith(f"pid {os.getpid()},")


def test_tables_are_rich_on_a_terminal_and_plain_otherwise():
    import io

    from tracekit.jobs.tables import fmt_change, show_table
    from tracekit.report.fmt import fmt_time

    rows = [["nightly", "vector_add", fmt_time(5.12e-6, plain=True)],
            ["ci", "transpose_naive", fmt_time(None, plain=True)]]
    plain, rich = io.StringIO(), io.StringIO()
    show_table("results", ["job", "kernel", "time"], rows, file=plain, terminal=False)
    show_table("results", ["job", "kernel", "time"], rows, file=rich, terminal=True)
    lines = plain.getvalue().splitlines()
    assert lines[0] == "results"
    assert lines[1].split() == ["job", "kernel", "time"]
    assert lines[2].split() == ["nightly", "vector_add", "5.12", "us"]
    assert lines[1].index("kernel") == lines[2].index("vector_add")      # aligned columns
    assert not any(ch in plain.getvalue() for ch in "│┃━")
    assert "┃" in rich.getvalue() or "│" in rich.getvalue()
    assert fmt_change(0.25) == "+25.0%" and fmt_change(float("inf")) == "new"
