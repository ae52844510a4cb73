"""Scheduled jobs never lose a file, never misread a setting, and end with a sentence, not a traceback.

Each test drives the real command line (``run_cli``) on small synthetic traces:
reports of jobs sharing a folder, report paths that coincide with kept files,
read-only commands on files that are not ledgers, temporaries that are not ours,
numbers that would switch a check off, resumption after a killed forced run,
ledgers read from another folder, and the SQLite failures a long-lived ledger meets.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_jobs_traces import vector_add

from tracekit.jobs import ledger as ledger_mod
from tracekit.jobs.runner import report_stems

TARGET = "intel-hd530"
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def write_jobs(folder: Path, jobs: dict[str, dict], *, ledger: str = "state/ledger.sqlite",
               name: str = "jobs.toml") -> Path:
    """A jobs file: ``jobs`` maps each job's name to its keys (TOML values as Python values)."""
    lines = [f"ledger = {json.dumps(ledger)}"]
    for job, keys in jobs.items():
        keys = {"inputs": ["traces"], "targets": [TARGET], "output": "reports", **keys}
        lines.append(f"[jobs.{json.dumps(job)}]")
        lines += [f"{k} = {v if isinstance(v, str) and k == 'regression_threshold' else json.dumps(v)}"
                  for k, v in keys.items()]
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def one_job(tmp_path: Path, n_traces: int = 1, **keys) -> Path:
    (tmp_path / "traces").mkdir(exist_ok=True)
    for i in range(n_traces):
        vector_add(tmp_path / f"traces/{'abcdefgh'[i]}.tkt", n=128, kernel=f"k{i}")
    return write_jobs(tmp_path, {"nightly": keys})


def refused(result, *words: str) -> str:
    """Exit 2 with one message holding every word, and no traceback."""
    err = " ".join(result.err.split())
    assert result.code == 2, (result.code, result.out, result.err)
    assert "Traceback" not in result.err
    for w in words:
        assert w in err, (w, err)
    return err


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def query(db: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# -- jobs sharing an output folder ---------------------------------------------------------------

def test_jobs_sharing_an_output_folder_keep_each_others_reports(tmp_path, run_cli):
    for folder, kernel in (("nightly", "k_night"), ("ci", "k_ci")):
        vector_add(tmp_path / f"in/{folder}/a.tkt", n=128, kernel=kernel)
    jobs = write_jobs(tmp_path, {"nightly": {"inputs": ["in/nightly"]}, "ci/linux": {"inputs": ["in/ci"]},
                                 "alone": {"inputs": ["in/ci"], "output": "own"}})
    assert run_cli("jobs", "run", jobs).code == 0
    reports = tmp_path / "reports"
    assert sorted(p.name for p in reports.iterdir()) == ["ci_linux.a.json", "nightly.a.json"]
    assert "k_night" in (reports / "nightly.a.json").read_text()
    assert "k_ci" in (reports / "ci_linux.a.json").read_text()
    assert [p.name for p in (tmp_path / "own").iterdir()] == ["a.json"]   # a folder of its own: plain names
    assert "0 processed, 3 unchanged" in run_cli("jobs", "run", jobs).out


def test_two_jobs_that_would_write_one_report_are_refused_naming_both(tmp_path, run_cli):
    vector_add(tmp_path / "traces/a.tkt", n=128)
    jobs = write_jobs(tmp_path, {"ci/linux": {}, "ci_linux": {}})    # both file names start "ci_linux."
    refused(run_cli("jobs", "run", jobs), "'ci/linux'", "'ci_linux'", "ci_linux.a.json")
    assert not (tmp_path / "reports").exists() and not (tmp_path / "state").exists()


def test_two_traces_of_one_job_that_would_write_one_report_are_refused(tmp_path, run_cli):
    vector_add(tmp_path / "traces/a.tkt", n=128)
    vector_add(tmp_path / "more/a.tkt", n=128)            # its report is a-<hash of its path>.json ...
    stem = report_stems([(tmp_path / "traces/a.tkt").resolve(), (tmp_path / "more/a.tkt").resolve()])
    clash = stem[(tmp_path / "more/a.tkt").resolve()]
    vector_add(tmp_path / f"traces/{clash}.tkt", n=128)   # ... and so is this trace's
    jobs = write_jobs(tmp_path, {"nightly": {"inputs": ["traces", "more"]}})
    refused(run_cli("jobs", "run", jobs), "job 'nightly'", f"{clash}.json", "for both", "rename one")
    assert not (tmp_path / "reports").exists()


# -- reports that would replace a file the run keeps ---------------------------------------------

def _ledger_is_a_report(tmp_path):
    ledger_mod.Ledger(tmp_path / "reports/a.json").close()          # a ledger from earlier runs
    return {"ledger": "reports/a.json"}, tmp_path / "reports/a.json", "the ledger"


def _ledger_links_to_a_report(tmp_path):
    (tmp_path / "state").mkdir()
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports/a.json").write_text("{}")
    (tmp_path / "state/ledger.sqlite").symlink_to(tmp_path / "reports/a.json")
    return {}, tmp_path / "reports/a.json", "the ledger"


def _report_is_hard_link_of_ledger(tmp_path):
    ledger = tmp_path / "state/ledger.sqlite"
    ledger.parent.mkdir()
    sqlite3.connect(ledger).close()
    (tmp_path / "reports").mkdir()
    os.link(ledger, tmp_path / "reports/a.json")
    return {}, ledger, "the ledger"


def _report_links_to_the_lock(tmp_path):
    lock = tmp_path / "state/ledger.sqlite.lock"
    lock.parent.mkdir()
    lock.write_text("")
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports/a.json").symlink_to(lock)
    return {}, lock, "ledger.sqlite.lock"


def _report_is_the_jobs_file(tmp_path):
    return ({"name": "reports/a.json", "inputs": ["../traces"], "output": ".", "ledger": "../state/l.sqlite"},
            tmp_path / "reports/a.json", "the jobs file")


def _report_links_to_a_trace(tmp_path):
    (tmp_path / "reports").mkdir()
    vector_add(tmp_path / "other/a.parquet", n=128)
    (tmp_path / "reports/a.json").symlink_to(tmp_path / "other/a.parquet")
    return {"inputs": ["other"]}, tmp_path / "other/a.parquet", "the trace"


def _reports_inside_a_trace(tmp_path):
    return {"output": "traces/a.tkt"}, tmp_path / "traces/a.tkt/accesses.parquet", "the trace"


KEPT_FILE_CASES = [_ledger_is_a_report, _ledger_links_to_a_report, _report_is_hard_link_of_ledger,
                   _report_links_to_the_lock, _report_is_the_jobs_file, _report_links_to_a_trace,
                   _reports_inside_a_trace]


@pytest.mark.parametrize("case", KEPT_FILE_CASES, ids=lambda f: f.__name__.strip("_"))
def test_a_report_may_not_replace_the_ledger_jobs_file_or_a_trace(tmp_path, run_cli, case):
    vector_add(tmp_path / "traces/a.tkt", n=128)
    keys, kept, what = case(tmp_path)
    ledger, name = keys.pop("ledger", "state/ledger.sqlite"), keys.pop("name", "jobs.toml")
    jobs = write_jobs(tmp_path, {"nightly": keys}, ledger=ledger, name=name)
    before = snapshot(tmp_path)
    refused(run_cli("jobs", "run", jobs), "job 'nightly'", "a.json", what)
    assert snapshot(tmp_path) == before                      # nothing written, nothing replaced
    assert kept.exists()


# -- read-only commands ----------------------------------------------------------------------------

def test_status_and_history_refuse_a_database_that_is_not_a_ledger_and_leave_it_alone(tmp_path, run_cli):
    other = tmp_path / "app.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (body TEXT)")
    con.execute("INSERT INTO notes VALUES ('keep me')")
    con.commit()
    con.close()
    before = snapshot(tmp_path)
    for command in ("status", "history"):
        refused(run_cli("jobs", command, other), str(other), "not a tracekit ledger", "notes")
    assert snapshot(tmp_path) == before
    jobs = write_jobs(tmp_path, {"nightly": {}}, ledger="app.sqlite")
    (tmp_path / "traces").mkdir()
    refused(run_cli("jobs", "run", jobs), "not a tracekit ledger", "notes")    # a run does not adopt it
    after = snapshot(tmp_path)
    assert after.pop("app.sqlite") == before["app.sqlite"]            # not a byte of it changed


@pytest.mark.parametrize("content, words", [
    (b"PAR1\x00\x00", "a Parquet file"), (b"# notes\n", "a text file"),
    (b"\x00\x9f\x12garbage", "binary data"), (b"", "empty")])
def test_status_says_what_a_file_that_is_not_a_ledger_is(tmp_path, run_cli, content, words):
    path = tmp_path / "ledger.sqlite"
    path.write_bytes(content)
    refused(run_cli("jobs", "status", path), str(path), "not a tracekit ledger", words)
    assert path.read_bytes() == content and os.listdir(tmp_path) == ["ledger.sqlite"]


def test_status_of_a_missing_ledger_creates_nothing(tmp_path, run_cli):
    jobs = write_jobs(tmp_path, {"nightly": {}}, ledger="state/ledger.sqlite")
    for command in ("status", "history"):
        refused(run_cli("jobs", command, jobs), "no ledger here yet")
        refused(run_cli("jobs", command, tmp_path / "nowhere/ledger.sqlite"), "no ledger here yet")
    assert sorted(os.listdir(tmp_path)) == ["jobs.toml"]


def test_status_reads_an_older_ledger_without_upgrading_it(tmp_path, run_cli):
    jobs = one_job(tmp_path)
    assert run_cli("jobs", "run", jobs).code == 0
    ledger = tmp_path / "state/ledger.sqlite"
    _make_version_1(ledger)
    before = snapshot(tmp_path)
    result = run_cli("jobs", "status", jobs)
    assert result.code == 0 and "nightly" in result.out
    assert run_cli("jobs", "history", jobs).code == 0
    assert snapshot(tmp_path) == before                  # not a byte written, no side file created
    assert query(ledger, "PRAGMA user_version") == [(1,)]


def test_status_reads_the_ledger_while_a_run_writes_it(tmp_path, run_cli):
    jobs = one_job(tmp_path, n_traces=2)
    env = dict(os.environ, TRACEKIT_JOBS_TEST_PAUSE="after-commit:60")
    proc = subprocess.Popen([sys.executable, "-m", "tracekit.cli", "jobs", "run", str(jobs)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 90
        while True:      # until the paused run has committed its first trace
            result = run_cli("jobs", "status", jobs)
            if result.code == 0 and re.search(r"nightly\s+1\s+1\s", result.out):
                break
            assert proc.poll() is None and time.time() < deadline, result
            time.sleep(0.1)
        assert "a run is in progress" in result.out
    finally:
        proc.kill()
        proc.wait()


# -- clean-up of temporaries ---------------------------------------------------------------------

def test_start_of_run_removes_only_our_own_temporaries_whose_writer_is_gone(tmp_path, run_cli):
    jobs = one_job(tmp_path)
    reports = tmp_path / "reports"
    reports.mkdir()
    dead = dead_pid()
    ours_dead = reports / f".a.json.part-{dead}.x7_k2m9q.json"
    kept = [reports / f".a.json.part-{os.getpid()}.x7_k2m9q.json",    # its writer is still running
            reports / ".notes.txt.part-1",                             # somebody else's naming
            reports / f".notes.txt.part-{dead}.x7_k2m9q.txt",          # not a report
            reports / f".a.json.part-{dead}.json",                     # not the writer's exact shape
            reports / f".a.json.part-{dead}.x7_k2m9q.html"]            # suffix does not match the name
    for p in [ours_dead, *kept]:
        p.write_text("partial")
    result = run_cli("jobs", "run", jobs)
    assert result.code == 0 and "removed 1 partial report" in result.err
    assert not ours_dead.exists()
    assert all(p.read_text() == "partial" for p in kept)


# -- numbers in the jobs file --------------------------------------------------------------------

@pytest.mark.parametrize("value, got", [
    ("nan", "nan"), ("inf", "inf"), ("-inf", "-inf"), ("-0.5", "-0.5"), ("100.5", "100.5"), ("1e400", "inf"),
    ("true", "true"), ('"0.1"', '"0.1"'), ("1_000_000_000_000", "1000000000000"),
    ("123456789012345678901234567890", "123456789012345678901234567890")])
def test_regression_threshold_must_be_a_finite_number_in_range(tmp_path, run_cli, value, got):
    jobs = one_job(tmp_path, regression_threshold=value)
    refused(run_cli("jobs", "run", jobs), f"{jobs}:", "'regression_threshold' in job 'nightly'",
            "a finite number from 0 to 100", f"got {got}")
    assert not (tmp_path / "state").exists()


def test_nan_threshold_no_longer_hides_a_regression(tmp_path, run_cli):
    """The case that showed it: with 0.1 a slower kernel is exit 3; nan is refused instead of exit 0."""
    jobs = one_job(tmp_path, regression_threshold="0.1")
    assert run_cli("jobs", "run", jobs).code == 0
    vector_add(tmp_path / "traces/a.tkt", n=128, kernel="k0", stride=32)
    jobs.write_text(jobs.read_text().replace("regression_threshold = 0.1", "regression_threshold = nan"))
    refused(run_cli("jobs", "run", jobs), "regression_threshold")
    jobs.write_text(jobs.read_text().replace("regression_threshold = nan", "regression_threshold = 0.1"))
    assert run_cli("jobs", "run", jobs).code == 3


@pytest.mark.parametrize("limit", ["0", "-5"])
def test_history_limit_must_be_positive(tmp_path, run_cli, limit):
    jobs = one_job(tmp_path)
    assert run_cli("jobs", "run", jobs).code == 0
    result = run_cli("jobs", "history", jobs, "--limit", limit)
    assert result.code == 2 and "limit" in result.err


# -- resumption after a killed run -----------------------------------------------------------------

def _run_and_kill_after_first_commit(jobs: Path, ledger: Path, sig: signal.Signals, *args: str) -> None:
    env = dict(os.environ, TRACEKIT_JOBS_TEST_PAUSE="after-commit:60")
    proc = subprocess.Popen([sys.executable, "-m", "tracekit.cli", "jobs", "run", str(jobs), *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 90
    try:
        while True:
            assert proc.poll() is None, proc.stderr.read()
            assert time.time() < deadline, "the run never reached its first commit"
            try:
                running = query(ledger, "SELECT id FROM runs WHERE status = 'running'")
                if running and query(ledger, f"SELECT COUNT(*) FROM traces WHERE run_id = {running[0][0]}") \
                        == [(1,)]:
                    break
            except sqlite3.OperationalError:
                pass
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, sig)
        proc.wait()


@pytest.mark.parametrize("flag, sig", [("--force", signal.SIGKILL), ("--retry-failed", signal.SIGKILL),
                                       ("--force", signal.SIGTERM)])
def test_the_run_after_a_killed_forced_run_finishes_its_work(tmp_path, run_cli, flag, sig):
    jobs = one_job(tmp_path, n_traces=3)
    if flag == "--retry-failed":
        for name in "abc":
            (tmp_path / f"traces/{name}.tkt/accesses.parquet").write_bytes(b"damaged")
    ledger = tmp_path / "state/ledger.sqlite"
    assert run_cli("jobs", "run", jobs).code in (0, 5)
    _run_and_kill_after_first_commit(jobs, ledger, sig, flag)
    # The ledger says what the killed run completed; a SIGTERM lets the run mark itself aborted.
    assert query(ledger, "SELECT status, processed FROM runs ORDER BY id DESC LIMIT 1") == [
        ("aborted" if sig == signal.SIGTERM else "running", 1)]
    status = run_cli("jobs", "status", jobs).out
    assert "no run in progress" in status
    assert ("aborted" if sig == signal.SIGTERM else "interrupted") in status
    result = run_cli("jobs", "run", jobs)
    assert "3 trace(s)" in result.err and "2 trace(s) left unfinished" in result.err
    assert ": 2 processed, 1 unchanged" in result.out
    assert query(ledger, "SELECT COUNT(*) FROM traces") == [(3,)]
    assert query(ledger, "SELECT COUNT(*) FROM pending") == [(0,)]
    assert ": 0 processed, 3 unchanged" in run_cli("jobs", "run", jobs).out


# -- paths in the ledger ---------------------------------------------------------------------------

def test_a_run_from_another_folder_finds_the_reports(tmp_path, run_cli, monkeypatch):
    jobs = one_job(tmp_path, n_traces=2)
    monkeypatch.chdir(tmp_path)
    assert run_cli("jobs", "run", "jobs.toml").code == 0
    stored = [json.loads(r)[0] for (r,) in query(tmp_path / "state/ledger.sqlite",
                                                 "SELECT reports FROM traces")]
    assert all(Path(p).is_absolute() for p in stored)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert ": 0 processed, 2 unchanged" in run_cli("jobs", "run", "../jobs.toml").out
    assert jobs.exists()


def _make_version_1(ledger: Path) -> None:
    """Turn a ledger into what the first schema version wrote: no pending table, relative report paths."""
    con = sqlite3.connect(ledger)
    for tid, reports in con.execute("SELECT id, reports FROM traces").fetchall():
        rel = [os.path.relpath(p, ledger.parent.parent) for p in json.loads(reports)]
        con.execute("UPDATE traces SET reports = ? WHERE id = ?", (json.dumps(rel), tid))
    con.execute("DROP TABLE pending")
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()


def test_an_older_ledger_with_relative_report_paths_is_read_and_upgraded(tmp_path, run_cli, monkeypatch):
    jobs = one_job(tmp_path, n_traces=2)
    assert run_cli("jobs", "run", jobs).code == 0
    ledger = tmp_path / "state/ledger.sqlite"
    _make_version_1(ledger)
    monkeypatch.chdir(tmp_path / "traces")                 # not the folder the relative paths start from
    assert ": 0 processed, 2 unchanged" in run_cli("jobs", "run", jobs).out
    assert query(ledger, "PRAGMA user_version") == [(ledger_mod.SCHEMA_VERSION,)]


# -- an output that is a file ----------------------------------------------------------------------

@pytest.mark.parametrize("output", ["reports", "reports/sub"])
def test_an_output_that_is_a_file_is_refused(tmp_path, run_cli, output):
    (tmp_path / "reports").write_text("my notes")
    jobs = one_job(tmp_path, output=output)
    refused(run_cli("jobs", "run", jobs), "nightly", "is a file")
    assert (tmp_path / "reports").read_text() == "my notes"


def test_reports_that_cannot_be_written_stop_the_run_and_are_not_recorded_as_failed_traces(tmp_path, run_cli):
    """A folder that takes no new files would fail every trace alike: exit 2, and the work stays to do."""
    jobs = one_job(tmp_path, n_traces=2, output="/proc")
    refused(run_cli("jobs", "run", jobs), "/proc/a.json", "cannot write the report")
    ledger = tmp_path / "state/ledger.sqlite"
    assert query(ledger, "SELECT COUNT(*) FROM traces") == [(0,)]
    assert query(ledger, "SELECT status, processed FROM runs") == [("aborted", 0)]
    jobs.write_text(jobs.read_text().replace('"/proc"', '"reports"'))
    assert ": 2 processed, 0 unchanged, 0 failed" in run_cli("jobs", "run", jobs).out


# -- SQLite failures -------------------------------------------------------------------------------

def test_a_ledger_held_by_another_writer_is_a_clear_error(tmp_path, run_cli, monkeypatch):
    jobs = one_job(tmp_path)
    assert run_cli("jobs", "run", jobs).code == 0
    vector_add(tmp_path / "traces/b.tkt", n=128)
    monkeypatch.setattr(ledger_mod, "BUSY_TIMEOUT_S", 0.2)
    other = sqlite3.connect(tmp_path / "state/ledger.sqlite", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        refused(run_cli("jobs", "run", jobs), "ledger.sqlite", "another process has held the ledger",
                "more than 0.2 s")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert run_cli("jobs", "run", jobs).code == 0


def _damage_pages(ledger: Path) -> None:
    data = bytearray(ledger.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    data[page:] = b"\xa5" * (len(data) - page)            # every page but the first
    ledger.write_bytes(bytes(data))


def _damage_header(ledger: Path) -> None:
    data = bytearray(ledger.read_bytes())
    data[:16] = b"\x00" * 16
    ledger.write_bytes(bytes(data))


def _drop_a_table(ledger: Path) -> None:
    con = sqlite3.connect(ledger)
    con.execute("DROP TABLE regressions")
    con.commit()
    con.close()


@pytest.mark.parametrize("damage, words", [(_damage_pages, "damaged"),
                                           (_damage_header, "not a tracekit ledger"),
                                           (_drop_a_table, "regressions")],
                         ids=["pages", "header", "missing-table"])
def test_a_damaged_ledger_is_a_clear_error(tmp_path, run_cli, damage, words):
    jobs = one_job(tmp_path)
    assert run_cli("jobs", "run", jobs).code == 0
    ledger = tmp_path / "state/ledger.sqlite"
    damage(ledger)
    vector_add(tmp_path / "traces/b.tkt", n=128)
    for command in ("run", "status", "history"):
        refused(run_cli("jobs", command, jobs), str(ledger), words)


def test_a_lock_path_that_is_a_folder_is_a_clear_error(tmp_path, run_cli):
    jobs = one_job(tmp_path)
    assert run_cli("jobs", "run", jobs).code == 0
    lock = tmp_path / "state/ledger.sqlite.lock"
    lock.unlink()
    lock.mkdir()
    for command in ("run", "status"):
        refused(run_cli("jobs", command, jobs), "ledger.sqlite.lock", "is a folder")


@pytest.mark.parametrize("ledger, words", [("/proc/ledger.sqlite", "cannot create the run lock"),
                                           ("notes/ledger.sqlite", "is a file, not a folder")])
def test_a_ledger_where_no_file_can_be_created_is_a_clear_error(tmp_path, run_cli, ledger, words):
    jobs = one_job(tmp_path)
    (tmp_path / "notes").write_text("my notes")
    jobs.write_text(jobs.read_text().replace('"state/ledger.sqlite"', json.dumps(ledger)))
    refused(run_cli("jobs", "run", jobs), "ledger.sqlite", words)
    assert (tmp_path / "notes").read_text() == "my notes"


@pytest.mark.skipif(AS_ROOT, reason="root writes into read-only folders; the /proc case covers it")
def test_a_ledger_in_a_read_only_folder_is_a_clear_error(tmp_path, run_cli):
    jobs = one_job(tmp_path)
    assert run_cli("jobs", "run", jobs).code == 0
    state = tmp_path / "state"
    state.chmod(0o555)
    try:
        vector_add(tmp_path / "traces/b.tkt", n=128)
        refused(run_cli("jobs", "run", jobs), "ledger.sqlite")
    finally:
        state.chmod(0o755)
