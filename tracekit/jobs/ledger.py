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

Before it processes anything, a run writes the list of traces it is about to
process into ``pending``; each trace's commit removes its entry.  A run killed
halfway therefore leaves exactly its unfinished work behind, and the next run does
that work whatever made the killed run choose it (``--force``, ``--retry-failed``).

The schema version is SQLite's ``user_version``; :data:`MIGRATIONS` upgrades
older ledgers in place.  Commands that only read (``jobs status``, ``jobs
history``) open the file read-only and never upgrade, create or change anything
in it; a file that is not a tracekit ledger is refused, never adopted.

Every SQLite failure (another program holding the file past the busy timeout,
damaged pages, missing tables, a folder that cannot be written) becomes a
:class:`LedgerError` naming the ledger, so the command line says what is wrong
instead of printing a traceback.
"""

from __future__ import annotations

import functools
import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from tracekit.errors import TracekitError

SCHEMA_VERSION = 2
#: How long a statement waits for another process that holds the ledger's write lock.
BUSY_TIMEOUT_S = 30.0

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

_SCHEMA_V2 = """
CREATE TABLE pending (
    job           TEXT NOT NULL,
    path          TEXT NOT NULL,
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (job, path)
);
"""

#: version -> SQL that upgrades a ledger from ``version - 1``.  Version 1 is the first.
MIGRATIONS: dict[int, str] = {1: _SCHEMA_V1, 2: _SCHEMA_V2}
#: version -> the tables a ledger of that version has.
TABLES: dict[int, frozenset[str]] = {1: frozenset({"runs", "traces", "results", "regressions"})}
TABLES[2] = TABLES[1] | {"pending"}
#: The first bytes of every SQLite database file.
SQLITE_MAGIC = b"SQLite format 3\x00"


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


def connect(path: str | Path, *, create: bool = True, readonly: bool = False) -> sqlite3.Connection:
    """Open a ledger: read-only, or for writing in WAL mode (created or upgraded if needed).

    ``create=False`` refuses a ledger that does not exist yet; ``readonly`` implies it
    and opens the file through SQLite's ``mode=ro``, so nothing is ever written to it.
    """
    path = Path(path)
    exists = path.exists() or path.is_symlink()
    if (readonly or not create) and not exists:
        raise LedgerError("no ledger here yet (it is created by the first `tracekit jobs run`)",
                          path=str(path))
    if exists:
        _sniff(path)
    elif path.parent.exists() and not path.parent.is_dir():
        raise LedgerError(f"cannot create the ledger: {path.parent} is a file, not a folder",
                          path=str(path))
    with sql_errors(path):
        if readonly:
            con = sqlite3.connect(_readonly_uri(path), uri=True, timeout=BUSY_TIMEOUT_S,
                                  isolation_level=None)
        else:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise LedgerError(f"cannot create the ledger's folder ({exc.strerror})",
                                  path=str(path)) from None
            con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            con.row_factory = sqlite3.Row
            # Checked before anything is set: switching a stranger's database to WAL
            # mode would already change their file.
            version = _check_schema(con, path, readonly)
            if not readonly:
                con.execute("PRAGMA journal_mode=WAL")
                con.execute("PRAGMA synchronous=NORMAL")
                con.execute("PRAGMA foreign_keys=ON")
                _upgrade(con, version)
        except BaseException:
            con.close()
            raise
    return con


def _readonly_uri(path: Path) -> str:
    """SQLite's URI to read ``path`` without writing anything, its side files included.

    Reading a WAL database normally creates ``-wal`` and ``-shm`` files beside it.
    With no ``-wal`` file there is no writer with uncommitted pages, and the main
    file changes only when a writer checkpoints (after many pages), so the file is
    read as immutable and nothing is created; otherwise SQLite's usual read-only
    access shares the writer's files.
    """
    uri = f"file:{quote(str(path.absolute()))}?mode=ro"
    if not Path(str(path) + "-wal").exists():
        uri += "&immutable=1"
    return uri


def _sniff(path: Path) -> None:
    """Refuse, before SQLite opens it, a path that is not an SQLite database, saying what it is."""
    if path.is_dir():
        raise LedgerError("is a folder, not a tracekit ledger; give the ledger's file", path=str(path))
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise LedgerError(f"cannot read the ledger ({exc.strerror})", path=str(path)) from None
    if head and not head.startswith(SQLITE_MAGIC):
        raise LedgerError(f"is not a tracekit ledger: it is {_describe(head)}, not an SQLite database; "
                          "give the ledger a path of its own", path=str(path))


def _describe(head: bytes) -> str:
    """A few words on what a file that is not SQLite looks like, from its first bytes."""
    for magic, what in ((b"PAR1", "a Parquet file"), (b"%PDF", "a PDF document"), (b"\x1f\x8b", "gzip data"),
                        (b"\xfd7zXZ", "xz data"), (b"PK\x03\x04", "a zip archive")):
        if head.startswith(magic):
            return what
    try:
        text = head.decode("utf-8").lstrip()
    except UnicodeDecodeError:
        return "binary data"
    if text[:1] in "{[":
        return "JSON text"
    if text[:1] == "<":
        return "HTML or XML text"
    return "a text file"


def _check_schema(con: sqlite3.Connection, path: Path, readonly: bool) -> int:
    """The ledger's schema version, once its tables are known to be those of that version."""
    version = con.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if version > SCHEMA_VERSION:
        raise LedgerError(f"ledger schema version {version} is newer than this tracekit understands "
                          f"({SCHEMA_VERSION}); upgrade tracekit", path=str(path))
    if version == 0:
        if tables:   # somebody else's database: adding our tables to it would change their file
            raise LedgerError("is an SQLite database but not a tracekit ledger (its tables: "
                              f"{', '.join(sorted(tables))}); give the ledger a path of its own",
                              path=str(path))
        if readonly:
            raise LedgerError("is an empty file, not a tracekit ledger yet (it is filled by the first "
                              "`tracekit jobs run`)", path=str(path))
        return 0
    missing = TABLES.get(version, frozenset()) - tables
    if version < 0 or missing:
        raise LedgerError(f"the ledger is damaged: table(s) {', '.join(sorted(missing)) or '?'} of schema "
                          f"version {version} are missing; restore it from a backup or move it aside "
                          "to start a new ledger", path=str(path))
    return version


def _upgrade(con: sqlite3.Connection, version: int) -> None:
    for v in range(version + 1, SCHEMA_VERSION + 1):
        with transaction(con):
            for stmt in _statements(MIGRATIONS[v]):
                con.execute(stmt)
            con.execute(f"PRAGMA user_version = {v}")


@contextmanager
def transaction(con: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception (a signal included)."""
    con.execute("BEGIN IMMEDIATE")
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise


@contextmanager
def sql_errors(path: Path) -> Iterator[None]:
    """Turn SQLite's exceptions into a :class:`LedgerError` that says what to do about them."""
    try:
        yield
    except sqlite3.Error as exc:
        raise LedgerError(explain(exc), path=str(path)) from None


def explain(exc: sqlite3.Error) -> str:
    """One sentence on an SQLite failure, for the person whose run just stopped."""
    text = str(exc)
    low = text.lower()
    if "locked" in low or "busy" in low:
        return (f"another process has held the ledger for more than {BUSY_TIMEOUT_S:g} s (another "
                "`tracekit jobs run`, or a program with the file open); try again when it has finished")
    if "not a database" in low or "malformed" in low or "corrupt" in low:
        return (f"the ledger is damaged ({text}); restore it from a backup, or move it aside "
                "to start a new ledger")
    if "no such table" in low or "no such column" in low:
        return f"the ledger is damaged or not a tracekit ledger ({text})"
    if "readonly" in low or "read-only" in low or "unable to open" in low or "disk i/o" in low:
        return f"cannot use the ledger ({text}): is its folder read-only, or the disk full?"
    return f"cannot use the ledger ({text})"


def _guarded(method):
    """Run a :class:`Ledger` method with SQLite's exceptions turned into :class:`LedgerError`."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with sql_errors(self.path):
            return method(self, *args, **kwargs)
    return wrapper


def _statements(sql: str) -> Iterable[str]:
    return [s.strip() for s in sql.split(";") if s.strip()]


class Ledger:
    """Typed access to one ledger file; every method raises :class:`LedgerError`, never sqlite3's."""

    def __init__(self, path: str | Path, *, create: bool = True, readonly: bool = False):
        self.path = Path(path)
        self.con = connect(self.path, create=create, readonly=readonly)

    def close(self) -> None:
        self.con.close()

    # -- runs -------------------------------------------------------------
    @_guarded
    def start_run(self, jobs_file: str, version: str) -> int:
        cur = self.con.execute(
            "INSERT INTO runs (started_at, status, jobs_file, host, pid, version) "
            "VALUES (?, 'running', ?, ?, ?, ?)",
            (now(), jobs_file, socket.gethostname(), os.getpid(), version))
        return int(cur.lastrowid)

    @_guarded
    def abandon_stale_runs(self) -> list[int]:
        """Mark runs left 'running' by a killed process as aborted (call with the lock held)."""
        ids = [r[0] for r in self.con.execute("SELECT id FROM runs WHERE status = 'running'")]
        if ids:
            self.con.execute("UPDATE runs SET status = 'aborted' WHERE status = 'running'")
        return ids

    @_guarded
    def finish_run(self, run_id: int, status: str, counts: dict[str, int]) -> None:
        self.con.execute(
            "UPDATE runs SET finished_at = ?, status = ?, processed = ?, skipped = ?, failed = ?, "
            "regressions = ? WHERE id = ?",
            (now(), status, counts["processed"], counts["skipped"], counts["failed"],
             counts["regressions"], run_id))

    @_guarded
    def abort_run(self, run_id: int) -> None:
        """Mark a run that stopped early; its counts stay those its commits made."""
        self.con.execute("UPDATE runs SET finished_at = ?, status = 'aborted' WHERE id = ?", (now(), run_id))

    # -- work a run has promised to do ----------------------------------------
    @_guarded
    def pending(self, job: str) -> set[str]:
        """Traces of ``job`` that a run set out to process and did not finish."""
        return {r[0] for r in self.con.execute("SELECT path FROM pending WHERE job = ?", (job,))}

    @_guarded
    def plan(self, run_id: int, job: str, todo: Iterable[str], gone: Iterable[str] = ()) -> None:
        """Record, before any of it starts, the traces this run will process for ``job``.

        ``gone`` are earlier entries whose trace no longer exists: nothing is left to do
        for them.  Each entry is removed by the commit of its trace's record.
        """
        with transaction(self.con):
            self.con.executemany("DELETE FROM pending WHERE job = ? AND path = ?", [(job, p) for p in gone])
            self.con.executemany("INSERT OR REPLACE INTO pending (job, path, run_id) VALUES (?, ?, ?)",
                                 [(job, p, run_id) for p in todo])

    # -- traces -----------------------------------------------------------
    @_guarded
    def done(self, job: str, path: str, content_hash: str, config_hash: str) -> sqlite3.Row | None:
        return self.con.execute(
            "SELECT * FROM traces WHERE job = ? AND path = ? AND content_hash = ? AND config_hash = ?",
            (job, path, content_hash, config_hash)).fetchone()

    @_guarded
    def record_trace(self, run_id: int, job: str, path: str, content_hash: str, config_hash: str, *,
                     status: str, error: str | None, reports: list[str], seconds: float,
                     results: list[ResultRow], regress) -> int:
        """Write one trace's whole record in one transaction; returns the trace id.

        ``regress(con, result_id, row)`` is called inside the transaction for each
        ok result and returns regression rows (metric, baseline_id, baseline,
        value, change); keeping it inside makes results and regressions one unit.
        The same transaction takes the trace off the pending list and counts it in
        its run, so the ledger says exactly what a run completed, however it ends.
        """
        con = self.con
        with transaction(con):
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
            con.execute("DELETE FROM pending WHERE job = ? AND path = ?", (job, path))
            con.execute("UPDATE runs SET processed = processed + 1, failed = failed + ? WHERE id = ?",
                        (int(status == "failed"), run_id))
        return trace_id

    # -- what a finished run reports ---------------------------------------
    @_guarded
    def claim_unreported(self, run_id: int) -> tuple[list[sqlite3.Row], list[sqlite3.Row]]:
        """Failures and regressions not yet shown in any finished run's summary.

        A killed run never prints its summary; its findings are carried over to
        the next run that finishes, so none is lost between them.
        """
        con = self.con
        with transaction(con):
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
        return failed, regs

    # -- queries for history/status ------------------------------------------
    @_guarded
    def runs(self, limit: int = 20) -> list[sqlite3.Row]:
        return self.con.execute("SELECT * FROM runs ORDER BY id DESC LIMIT ?", (limit,)).fetchall()

    @_guarded
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

    @_guarded
    def job_status(self) -> list[sqlite3.Row]:
        return self.con.execute(
            "SELECT job, COUNT(*) AS traces, SUM(status = 'ok') AS ok, SUM(status = 'failed') AS failed, "
            "MAX(processed_at) AS last_processed, MAX(run_id) AS last_run FROM traces "
            "GROUP BY job ORDER BY job"
        ).fetchall()

    @_guarded
    def latest_failures(self, limit: int = 10) -> list[sqlite3.Row]:
        return self.con.execute("SELECT * FROM traces WHERE status = 'failed' ORDER BY id DESC LIMIT ?",
                                (limit,)).fetchall()

    @_guarded
    def regressions_of_run(self, run_id: int) -> list[sqlite3.Row]:
        return self.con.execute(
            "SELECT g.*, r.job, r.kernel, r.launch, r.target, t.path FROM regressions g "
            "JOIN results r ON r.id = g.result_id JOIN traces t ON t.id = r.trace_id "
            "WHERE g.reported_run = ? ORDER BY g.id", (run_id,)).fetchall()
