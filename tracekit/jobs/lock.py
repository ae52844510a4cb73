"""One run at a time: an exclusive ``flock`` on a lock file beside the ledger.

``flock`` locks belong to the open file, so the kernel drops them when the
process dies, however it dies: a run killed with SIGKILL never leaves a lock
behind that someone has to delete by hand.  The holder writes its pid and start
time into the file so the refusal message can say who holds it.

A lock file that cannot be created or opened (a read-only folder, a folder in
its place) is a :class:`~tracekit.errors.TracekitError` naming the path.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from pathlib import Path

from tracekit.errors import TracekitError


class LedgerBusyError(TracekitError):
    """Another ``tracekit jobs run`` holds the ledger's lock."""

    exit_code = 4


class RunLock:
    def __init__(self, ledger_path: str | Path):
        self.path = Path(str(ledger_path) + ".lock")
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise self._error(exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown process"
            os.close(fd)
            raise LedgerBusyError(f"another `tracekit jobs run` is using this ledger ({holder}); "
                                  "try again when it has finished", path=str(self.path)) from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}, started {time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n".encode(), 0)
        except OSError as exc:
            os.close(fd)
            raise self._error(exc) from None
        self._fd = fd
        return self

    def _error(self, exc: OSError) -> TracekitError:
        """What to tell the user when the lock file itself cannot be used."""
        if exc.errno == errno.EISDIR or self.path.is_dir():
            return TracekitError("the run lock is a folder, not a file; remove or rename that folder",
                                 path=str(self.path))
        if exc.errno in (errno.ENOTDIR, errno.EEXIST):
            return TracekitError("cannot create the run lock: a part of the ledger's path is a file, "
                                 "not a folder", path=str(self.path))
        return TracekitError(f"cannot create the run lock beside the ledger ({exc.strerror}); "
                             "is the folder read-only?", path=str(self.path))

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def held_by(self) -> str | None:
        """Who holds the lock now (None if nobody): a non-blocking probe."""
        if not self.path.exists():
            return None
        if self.path.is_dir():
            raise self._error(OSError(errno.EISDIR, "is a folder"))
        if not self.path.is_file():     # opening a pipe here would wait for a writer
            raise TracekitError("the run lock is not a regular file", path=str(self.path))
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError as exc:
            raise TracekitError(f"cannot read the run lock ({exc.strerror})", path=str(self.path)) from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown process"
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
