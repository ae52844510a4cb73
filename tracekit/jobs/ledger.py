"""The SQLite ledger: what each run did, per trace and per (kernel launch, target).

Why SQLite: one file beside the jobs file, transactions that survive a killed
process, and WAL mode so ``tracekit jobs status`` can read while a run writes.

Crash safety rests on one rule: everything a trace produces in the ledger (its
``traces`` row, its ``results`` rows, its ``regressions`` rows) is written in a
single transaction *after* its reports are on disk.  A run killed before that
commit leaves no row, so the next run processes the trace again and replaces the
reports (same names); a run killed after it leaves a complete record, so the
next run skips the trace.  Unique constraints make a duplicate impossible rather
than merely unlikely.

The schema version is SQLite's ``user_version``; :data:`MIGRATIONS` upgrades
older ledgers in place.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tracekit.errors import TracekitError

SCHEMA_VERSION = 1

_SCHEMA_V1 = """
CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    status        TEXT NOT NULL CHECK (status IN ('running', 'ok', 'regressions', 'failures', 'aborted')),
    jobs_file     TEXT NOT NULL,
    host          TEXT NOT NULL,
    pid           INTEGER NOT NULL,
    version       TEXT NOT NULL,
    processed     INTEGER NOT NULL DEFAULT 0,
    skipped       INTEGER NOT NULL DEFAULT 0,
    failed        INTEGER NOT NULL DEFAULT 0,
    regressions   INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE traces (
    id            INTEGER PRIMARY KEY,
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    job           TEXT NOT NULL,
    path          TEXT NOT NULL,
    name          TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    config_hash   TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error         TEXT,
    reports       TEXT NOT NULL DEFAULT '[]',
    processed_at  TEXT NOT NULL,
    seconds       REAL NOT NULL,
    reported_run  INTEGER REFERENCES runs(id),
    UNIQUE (job, path, content_hash, config_hash)
);
CREATE TABLE results (
    id            INTEGER PRIMARY KEY,
    trace_id      INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    job           TEXT NOT NULL,
    kernel        TEXT NOT NULL,
    launch        INTEGER NOT NULL,
    ordinal       INTEGER NOT NULL,
    target        TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    error         TEXT,
    bound         TEXT,
    time_s        REAL,
    metrics       TEXT NOT NULL DEFAULT '{}',
    UNIQUE (trace_id, launch, target)
);
CREATE INDEX results_baseline ON results (job, kernel, ordinal, target, status);
CREATE TABLE regressions (
    id            INTEGER PRIMARY KEY,
    result_id     INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
    baseline_id   INTEGER REFERENCES results(id) ON DELETE SET NULL,
    metric        TEXT NOT NULL,
    baseline      REAL NOT NULL,
    value         REAL NOT NULL,
    change        REAL NOT NULL,
    reported_run  INTEGER REFERENCES runs(id),
    UNIQUE (result_id, metric)
);
"""

#: version -> SQL that upgrades a ledger from ``version - 1``.  Version 1 is the first.
MIGRATIONS: dict[int, str] = {1: _SCHEMA_V1}


class LedgerError(TracekitError):
    """A ledger file that this version of tracekit cannot use."""


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


@dataclass(frozen=True)
class ResultRow:
    """One (kernel launch, target) outcome as it goes into ``results``."""

    kernel: str
    launch: int
    ordinal: int
    target: str
    status: str              # "ok" | "error"
    error: str | None
    bound: str | None
    time_s: float | None
    metrics: dict


def connect(path: str | Path, *, create: bool = True) -> sqlite3.Connection:
    """Open (and if needed create or upgrade) a ledger in WAL mode."""
    path = Path(path)
    if not create and not path.exists():
        raise LedgerError("no ledger here yet (it is created by the first `tracekit jobs run`)",
                          path=str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = sqlite3.connect(path, timeout=30, isolation_level=None)
        con.row_factory = sqlite3.Row
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        con.execute("PRAGMA foreign_keys=ON")
        _upgrade(con, path)
    except sqlite3.DatabaseError as exc:
        raise LedgerError(f"not a usable SQLite ledger ({exc})", path=str(path)) from None
    return con


def _upgrade(con: sqlite3.Connection, path: Path) -> None:
    version = con.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise LedgerError(f"ledger schema version {version} is newer than this tracekit understands "
                          f"({SCHEMA_VERSION}); upgrade tracekit", path=str(path))
    for v in range(version + 1, SCHEMA_VERSION + 1):
        con.execute("BEGIN IMMEDIATE")
        try:
            for stmt in _statements(MIGRATIONS[v]):
                con.execute(stmt)
            con.execute(f"PRAGMA user_version = {v}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise


def _statements(sql: str) -> Iterable[str]:
    return [s.strip() for s in sql.split(";") if s.strip()]


class Ledger:
    """Typed access to one ledger file."""

    def __init__(self, path: str | Path, *, create: bool = True):
        self.path = Path(path)
        self.con = connect(self.path, create=create)

    def close(self) -> None:
        self.con.close()

    # -- runs -------------------------------------------------------------
    def start_run(self, jobs_file: str, version: str) -> int:
        cur = self.con.execute(
            "INSERT INTO runs (started_at, status, jobs_file, host, pid, version) "
            "VALUES (?, 'running', ?, ?, ?, ?)",
            (now(), jobs_file, socket.gethostname(), os.getpid(), version))
        return int(cur.lastrowid)

    def abandon_stale_runs(self) -> list[int]:
        """Mark runs left 'running' by a killed process as aborted (call with the lock held)."""
        ids = [r[0] for r in self.con.execute("SELECT id FROM runs WHERE status = 'running'")]
        if ids:
            self.con.execute("UPDATE runs SET status = 'aborted' WHERE status = 'running'")
        return ids

    def finish_run(self, run_id: int, status: str, counts: dict[str, int]) -> None:
        self.con.execute(
            "UPDATE runs SET finished_at = ?, status = ?, processed = ?, skipped = ?, failed = ?, "
            "regressions = ? WHERE id = ?",
            (now(), status, counts["processed"], counts["skipped"], counts["failed"],
             counts["regressions"], run_id))

    # -- traces -----------------------------------------------------------
    def done(self, job: str, path: str, content_hash: str, config_hash: str) -> sqlite3.Row | None:
        return self.con.execute(
            "SELECT * FROM traces WHERE job = ? AND path = ? AND content_hash = ? AND config_hash = ?",
            (job, path, content_hash, config_hash)).fetchone()

    def record_trace(self, run_id: int, job: str, path: str, content_hash: str, config_hash: str, *,
                     status: str, error: str | None, reports: list[str], seconds: float,
                     results: list[ResultRow], regress) -> int:
        """Write one trace's whole record in one transaction; returns the trace id.

        ``regress(con, result_id, row)`` is called inside the transaction for each
        ok result and returns regression rows (metric, baseline_id, baseline,
        value, change); keeping it inside makes results and regressions one unit.
        """
        con = self.con
        con.execute("BEGIN IMMEDIATE")
        try:
            # A forced or retried run replaces the earlier record of the same content.
            con.execute("DELETE FROM traces WHERE job = ? AND path = ? AND content_hash = ? "
                        "AND config_hash = ?", (job, path, content_hash, config_hash))
            cur = con.execute(
                "INSERT INTO traces (run_id, job, path, name, content_hash, config_hash, status, error, "
                "reports, processed_at, seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, job, path, Path(path).name, content_hash, config_hash, status, error,
                 json.dumps(reports), now(), seconds))
            trace_id = int(cur.lastrowid)
            for r in results:
                cur = con.execute(
                    "INSERT INTO results (trace_id, job, kernel, launch, ordinal, target, status, error, "
                    "bound, time_s, metrics) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (trace_id, job, r.kernel, r.launch, r.ordinal, r.target, r.status, r.error, r.bound,
                     r.time_s, json.dumps(r.metrics, sort_keys=True)))
                if r.status == "ok":
                    for metric, base_id, base, value, change in regress(con, int(cur.lastrowid), r):
                        con.execute(
                            "INSERT INTO regressions (result_id, baseline_id, metric, baseline, value, "
                            "change) VALUES (?, ?, ?, ?, ?, ?)",
                            (cur.lastrowid, base_id, metric, base, value, change))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return trace_id

    # -- what a finished run reports ---------------------------------------
    def claim_unreported(self, run_id: int) -> tuple[list[sqlite3.Row], list[sqlite3.Row]]:
        """Failures and regressions not yet shown in any finished run's summary.

        A killed run never prints its summary; its findings are carried over to
        the next run that finishes, so none is lost between them.
        """
        con = self.con
        con.execute("BEGIN IMMEDIATE")
        try:
            failed = con.execute(
                "SELECT * FROM traces WHERE status = 'failed' AND reported_run IS NULL ORDER BY id"
            ).fetchall()
            regs = con.execute(
                "SELECT g.*, r.job, r.kernel, r.launch, r.target, t.path FROM regressions g "
                "JOIN results r ON r.id = g.result_id JOIN traces t ON t.id = r.trace_id "
                "WHERE g.reported_run IS NULL ORDER BY g.id").fetchall()
            con.execute("UPDATE traces SET reported_run = ? WHERE status = 'failed' AND reported_run IS NULL",
                        (run_id,))
            con.execute("UPDATE regressions SET reported_run = ? WHERE reported_run IS NULL", (run_id,))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return failed, regs

    # -- queries for history/status ------------------------------------------
    def runs(self, limit: int = 20) -> list[sqlite3.Row]:
        return self.con.execute("SELECT * FROM runs ORDER BY id DESC LIMIT ?", (limit,)).fetchall()

    def results_history(self, *, job: str | None = None, kernel: str | None = None,
                        target: str | None = None, limit: int = 50) -> list[sqlite3.Row]:
        where, args = [], []
        for col, val in (("r.job", job), ("r.kernel", kernel), ("r.target", target)):
            if val is not None:
                where.append(f"{col} = ?")
                args.append(val)
        sql = ("SELECT r.*, t.path, t.run_id, t.processed_at, "
               "(SELECT COUNT(*) FROM regressions g WHERE g.result_id = r.id) AS n_regressions "
               "FROM results r JOIN traces t ON t.id = r.trace_id")
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY r.id DESC LIMIT ?"
        return self.con.execute(sql, (*args, limit)).fetchall()

    def job_status(self) -> list[sqlite3.Row]:
        return self.con.execute(
            "SELECT job, COUNT(*) AS traces, SUM(status = 'ok') AS ok, SUM(status = 'failed') AS failed, "
            "MAX(processed_at) AS last_processed, MAX(run_id) AS last_run FROM traces "
            "GROUP BY job ORDER BY job"
        ).fetchall()

    def latest_failures(self, limit: int = 10) -> list[sqlite3.Row]:
        return self.con.execute("SELECT * FROM traces WHERE status = 'failed' ORDER BY id DESC LIMIT ?",
                                (limit,)).fetchall()

    def regressions_of_run(self, run_id: int) -> list[sqlite3.Row]:
        return self.con.execute(
            "SELECT g.*, r.job, r.kernel, r.launch, r.target, t.path FROM regressions g "
            "JOIN results r ON r.id = g.result_id JOIN traces t ON t.id = r.trace_id "
            "WHERE g.reported_run = ? ORDER BY g.id", (run_id,)).fetchall()
