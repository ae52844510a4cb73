"""``tracekit jobs run`` end to end on small synthetic traces, with the real analysis and reports."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_jobs_traces import vector_add

from tracekit.cli import main
from tracekit.jobs.metrics import KEY_METRICS
from tracekit.targets import list_targets

TARGETS = [t for t in ("powervr-g6400", "intel-hd530") if t in list_targets()]
if len(TARGETS) < 2:
    TARGETS = sorted(list_targets())[:2]


def cli(*argv) -> int:
    try:
        main(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def make_jobs(tmp_path: Path, formats=("json", "html"), extra: str = "") -> Path:
    (tmp_path / "traces").mkdir(exist_ok=True)
    p = tmp_path / "jobs.toml"
    p.write_text(textwrap.dedent(f"""\
        ledger = "state/ledger.sqlite"
        [jobs.nightly]
        inputs = ["traces"]
        targets = {json.dumps(TARGETS)}
        formats = {json.dumps(list(formats))}
        output = "reports"
        {extra}
        """))
    return p


def rows(tmp_path: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(tmp_path / "state/ledger.sqlite")
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_first_run_records_everything_and_a_bad_trace_does_not_stop_it(tmp_path, capsys):
    jobs = make_jobs(tmp_path, formats=("json", "html", "pdf"))
    vector_add(tmp_path / "traces/a.tkt")
    vector_add(tmp_path / "traces/b.parquet", n=512, local=32)
    (tmp_path / "traces/broken.parquet").write_bytes(b"this is not parquet")

    assert cli("jobs", "run", str(jobs)) == 5              # a trace failed, nothing regressed
    out = capsys.readouterr()
    assert "FAILED nightly" in out.out and "broken.parquet" in out.out
    assert "tracekit jobs:" in out.err and "\r" not in out.err   # plain log lines, no progress bars

    traces = rows(tmp_path, "SELECT path, status, error FROM traces ORDER BY path")
    assert [(Path(p).name, s) for p, s, _ in traces] == [("a.tkt", "ok"), ("b.parquet", "ok"),
                                                         ("broken.parquet", "failed")]
    assert "Parquet" in traces[2][2]
    results = rows(tmp_path, "SELECT kernel, target, status, bound, time_s FROM results")
    assert len(results) == 2 * len(TARGETS)
    assert {r[1] for r in results} == set(TARGETS)
    assert all(r[2] == "ok" and r[3] in ("alu", "memory", "latency") and r[4] > 0 for r in results)
    for stem in ("a", "b"):
        doc = json.loads((tmp_path / f"reports/{stem}.json").read_text())
        assert set(doc["targets"]) == set(TARGETS)
        assert "<html" in (tmp_path / f"reports/{stem}.html").read_text().lower()
        assert (tmp_path / f"reports/{stem}.pdf").read_bytes().startswith(b"%PDF")
    assert not [p for p in (tmp_path / "reports").iterdir() if p.name.startswith(".")]

    # Nothing changed: nothing is processed again, and the failure was already reported.
    assert cli("jobs", "run", str(jobs)) == 0
    assert "0 processed, 3 unchanged, 0 failed" in capsys.readouterr().out
    assert rows(tmp_path, "SELECT COUNT(*) FROM traces") == [(3,)]


def test_a_slower_kernel_is_a_regression_with_exit_code_3(tmp_path, capsys):
    jobs = make_jobs(tmp_path)
    vector_add(tmp_path / "traces/a.tkt", stride=1)
    assert cli("jobs", "run", str(jobs)) == 0
    vector_add(tmp_path / "traces/a.tkt", stride=32)      # same kernel, uncoalesced now
    capsys.readouterr()
    assert cli("jobs", "run", str(jobs)) == 3
    out = capsys.readouterr().out
    assert "1 processed" in out and "REGRESSION nightly vector_add launch 0" in out
    regs = rows(tmp_path, "SELECT g.metric, g.baseline, g.value, r.target FROM regressions g "
                          "JOIN results r ON r.id = g.result_id")
    metrics = {m for m, *_ in regs}
    assert "memory.transactions_per_request" in metrics
    # every flagged metric moved the bad way: up for times and counts, down for utilisation and hit
    # rates (PowerVR looks each lane up, so the strided copy also drops its L1 hit rate)
    assert all((v > b) == KEY_METRICS[m].higher_is_worse for m, b, v, _ in regs)
    # The run that found it says so in the ledger; the next run has nothing new to say.
    assert rows(tmp_path, "SELECT status FROM runs ORDER BY id") == [("ok",), ("regressions",)]
    assert cli("jobs", "run", str(jobs)) == 0


@pytest.mark.parametrize("baseline, first_exit", [("kernel", 3), ("trace", 0)])
def test_baseline_by_kernel_or_by_trace_name(tmp_path, capsys, baseline, first_exit):
    """Two variants of one kernel in one folder: compared with each other only when asked."""
    jobs = make_jobs(tmp_path, formats=("json",), extra=f'baseline = "{baseline}"')
    vector_add(tmp_path / "traces/a_fast.tkt", stride=1)
    vector_add(tmp_path / "traces/b_slow.tkt", stride=2)
    assert cli("jobs", "run", str(jobs)) == first_exit
    vector_add(tmp_path / "traces/b_slow.tkt", stride=32)   # the slow variant gets slower still
    capsys.readouterr()
    assert cli("jobs", "run", str(jobs)) == 3
    assert "b_slow.tkt" in capsys.readouterr().out


def test_history_and_status_print_plain_tables_off_a_terminal(tmp_path, capsys):
    jobs = make_jobs(tmp_path)
    vector_add(tmp_path / "traces/a.tkt")
    assert cli("jobs", "run", str(jobs)) == 0
    capsys.readouterr()
    assert cli("jobs", "history", str(jobs), "--kernel", "vector_add") == 0
    out = capsys.readouterr().out
    assert "verdict" in out and "vector_add" in out and TARGETS[0] in out
    assert "│" not in out and "\x1b[" not in out
    assert cli("jobs", "status", str(tmp_path / "state/ledger.sqlite")) == 0
    out = capsys.readouterr().out
    assert "no run in progress" in out and "nightly" in out


def test_bad_jobs_file_exits_2_naming_the_line(tmp_path, capsys):
    jobs = make_jobs(tmp_path, extra='colour = "red"')
    assert cli("jobs", "run", str(jobs)) == 2
    err = capsys.readouterr().err
    assert f"{jobs}:7:" in err.replace("\n", "") and "colour" in err
    assert not (tmp_path / "state").exists()              # nothing touched


def test_a_second_run_is_refused_while_one_holds_the_lock(tmp_path, capsys):
    jobs = make_jobs(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from tracekit.jobs.lock import RunLock; "
         "RunLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(60)",
         str(tmp_path / "state/ledger.sqlite")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert cli("jobs", "run", str(jobs)) == 4
        assert f"pid {holder.pid}" in capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait()


def kill_when(jobs: Path, tmp_path: Path, when: str) -> None:
    """Start a real run that pauses at ``when`` of every trace; SIGKILL it at the first trace's pause."""
    env = dict(os.environ, TRACEKIT_JOBS_TEST_PAUSE=f"{when}:60")
    proc = subprocess.Popen([sys.executable, "-m", "tracekit.cli", "jobs", "run", str(jobs)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ledger = tmp_path / "state/ledger.sqlite"

    def reached() -> bool:
        if when == "after-report":
            return (tmp_path / "reports/a.json").exists()
        try:
            return ledger.exists() and rows(tmp_path, "SELECT COUNT(*) FROM traces") == [(1,)]
        except sqlite3.OperationalError:   # the run has not created its tables yet
            return False

    deadline = time.time() + 90
    try:
        while not reached():
            assert proc.poll() is None, proc.stderr.read()
            assert time.time() < deadline, "the run never reached the kill point"
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    # What the kill left: a run still marked running, and one trace recorded or none.
    assert rows(tmp_path, "SELECT status FROM runs") == [("running",)]
    assert rows(tmp_path, "SELECT COUNT(*) FROM traces") == [(0 if when == "after-report" else 1,)]
    assert not (tmp_path / "reports/b.json").exists()


@pytest.mark.parametrize("when", ["after-report", "after-commit"])
def test_sigkill_mid_run_then_rerun_finishes_with_nothing_lost_or_duplicated(tmp_path, when):
    jobs = make_jobs(tmp_path, formats=("json",))
    for name, stride in (("a", 1), ("b", 2), ("c", 4)):
        vector_add(tmp_path / f"traces/{name}.tkt", n=256, stride=stride, kernel=f"add_{name}")
    kill_when(jobs, tmp_path, when)

    rc = subprocess.run([sys.executable, "-m", "tracekit.cli", "jobs", "run", str(jobs)],
                        capture_output=True, text=True, timeout=120)
    assert rc.returncode == 0, rc.stderr
    assert "was interrupted" in rc.stderr
    processed = int(rc.stdout.split(":")[2].split("processed")[0])
    assert processed == (3 if when == "after-report" else 2)
    traces = rows(tmp_path, "SELECT job, path, COUNT(*) FROM traces GROUP BY job, path")
    assert len(traces) == 3 and all(n == 1 for *_, n in traces)
    res = rows(tmp_path, "SELECT trace_id, launch, target, COUNT(*) FROM results GROUP BY 1, 2, 3")
    assert len(res) == 3 * len(TARGETS) and all(n == 1 for *_, n in res)
    assert rows(tmp_path, "SELECT status FROM runs ORDER BY id") == [("aborted",), ("ok",)]
    for name in "abc":
        doc = json.loads((tmp_path / f"reports/{name}.json").read_text())
        assert set(doc["targets"]) == set(TARGETS)
    assert not [p for p in (tmp_path / "reports").iterdir() if p.name.startswith(".")]


def test_missing_reports_partials_and_force_never_duplicate_rows(tmp_path, capsys):
    jobs = make_jobs(tmp_path, formats=("json",))
    vector_add(tmp_path / "traces/a.tkt", n=256)
    vector_add(tmp_path / "traces/b.tkt", n=256, kernel="other")
    assert cli("jobs", "run", str(jobs)) == 0
    first = (tmp_path / "reports/a.json").read_text()
    (tmp_path / "reports/a.json").unlink()                      # someone deleted a report
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = tmp_path / f"reports/.b.json.part-{gone.pid}.k3x_9qz0.json"   # a killed writer's leftover
    stale.write_text("{")
    capsys.readouterr()
    assert cli("jobs", "run", str(jobs)) == 0
    captured = capsys.readouterr()
    assert "1 processed, 1 unchanged" in captured.out and "removed 1 partial report" in captured.err
    assert (tmp_path / "reports/a.json").read_text() == first    # deterministic: the same report again
    assert not stale.exists()
    assert cli("jobs", "run", str(jobs), "--force") == 0
    assert "2 processed, 0 unchanged" in capsys.readouterr().out
    assert rows(tmp_path, "SELECT COUNT(*) FROM traces") == [(2,)]
    assert rows(tmp_path, "SELECT COUNT(*) FROM results") == [(2 * len(TARGETS),)]


def test_a_launch_too_big_for_one_target_is_an_error_row_for_that_target_only(tmp_path, capsys):
    from tracekit.targets import load_target

    limits = {t: load_target(t).occupancy.max_work_group_size for t in TARGETS}
    small, big = min(limits, key=limits.get), max(limits, key=limits.get)
    if limits[small] == limits[big]:
        pytest.skip("the chosen targets share one work-group limit")
    jobs = make_jobs(tmp_path, formats=("json",))
    vector_add(tmp_path / "traces/wide.tkt", n=2 * limits[big], local=limits[big])
    assert cli("jobs", "run", str(jobs)) == 0
    got = dict((t, (s, e)) for t, s, e in rows(tmp_path, "SELECT target, status, error FROM results"))
    assert got[big][0] == "ok" and got[small][0] == "error" and got[small][1]
    assert "1 not analysable" in capsys.readouterr().err
