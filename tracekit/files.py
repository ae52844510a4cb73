"""Files in and out: the one atomic writer, and the checks an input path must pass.

Every output tracekit writes (reports, JSON, converted traces, partitions,
calibration tables) appears whole or not at all: it is written under a temporary
name beside its destination and renamed into place, so a reader, a crash or a
full disk never leaves half a file under the final name, and the previous file
survives a failed write.  Temporaries are named ``.NAME.part-PID...``; a job runner
that finds such files left by a killed run may delete them.

A write that fails for a reason outside the program (a read-only folder, a full
disk, a path that is a directory) becomes a :class:`~tracekit.errors.TracekitError`
naming the path and the reason, so the command line ends with exit 2 and a
sentence instead of a traceback.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from tracekit.errors import TracekitError

#: Marks temporaries: ``.NAME.part-PID...`` in the destination's folder.
PART_MARK = ".part-"


def output_error(path: str | os.PathLike, exc: OSError, what: str = "cannot write") -> TracekitError:
    """A user-facing error for an output that could not be written (nothing was left behind)."""
    reason = exc.strerror or str(exc)
    folder = Path(path).parent
    if exc.errno == errno.ENOSPC:
        reason = "no space left on the device"
    elif exc.errno == errno.EDQUOT:
        reason = "the disk quota is exhausted"
    elif exc.errno == errno.EFBIG:
        reason = "the file size limit was reached"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        reason = f"{reason}: the folder is not writable here"
    elif exc.errno == errno.ENOENT and folder.is_dir():
        reason = f"{reason}: the folder {folder} does not accept new files"
    return TracekitError(f"{what} ({reason}); nothing was written", path=str(path))


def make_parent(path: Path) -> None:
    """Create the folders above ``path``; a clear error when one of them is a file."""
    for up in path.parents:
        if up.exists() or up.is_symlink():
            if not up.is_dir():
                raise TracekitError(f"cannot create the output folder: {up} is a file, not a folder",
                                    path=str(path))
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise output_error(path.parent, exc, "cannot create the output folder") from None


def check_output(dest: Path, *, dirs: bool = False) -> None:
    """Refuse a destination that a file cannot replace: a folder (unless ``dirs``), a device or pipe."""
    try:
        st = dest.stat()
    except OSError:
        return  # nothing there yet (or a dangling link): the write itself says what is wrong
    if stat.S_ISDIR(st.st_mode):
        if not dirs:
            raise TracekitError("is a directory; give a file name for the output", path=str(dest))
    elif not stat.S_ISREG(st.st_mode):
        raise TracekitError("is a device, pipe or socket, not a file; give a file name for the output",
                            path=str(dest))


def write_atomic(dest: str | os.PathLike, data: bytes | str | Callable[[Path], object], *,
                 durable: bool = False) -> Path:
    """Write ``data`` to ``dest`` atomically; returns ``dest``.

    ``data`` is the bytes (or text, UTF-8) to write, or a function that writes the file
    it is given (a renderer).  ``durable`` also flushes the file and its folder to disk
    before and after the rename, for ledgers and scheduled reports that must survive
    a power cut.  Missing parent folders are created.
    """
    dest = Path(dest)
    check_output(dest)
    make_parent(dest)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{dest.name}{PART_MARK}{os.getpid()}.", suffix=dest.suffix,
                                    dir=dest.parent)
    except OSError as exc:
        raise output_error(dest, exc) from None
    tmp = Path(name)
    try:
        try:
            if callable(data):
                os.close(fd)
                data(tmp)
            else:
                _write_all(fd, data.encode("utf-8") if isinstance(data, str) else data)
            os.chmod(tmp, 0o644)
            if durable:
                _fsync(tmp)
            os.replace(tmp, dest)
        except OSError as exc:
            raise output_error(dest, exc) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        _fsync(dest.parent)
    return dest


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd``, then close it (``os.write`` may write less)."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_input(path: str | os.PathLike, *, kind: str = "file or trace directory",
                dirs: bool = True) -> Path:
    """``path`` as a Path once it is known to be readable input; a clear error otherwise.

    Refused up front, because reading them would hang or fail obscurely: a FIFO,
    socket or device file, a symbolic link that loops or leads nowhere, and a path
    that does not exist.  Directories pass (a ``.tkt`` trace is one) unless ``dirs``
    is False, for inputs that must be one file.
    """
    p = Path(path)
    try:
        st = p.stat()   # follows links: a loop raises ELOOP, a dangling link ENOENT
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise TracekitError("is a symbolic link that loops back on itself", path=str(p)) from None
        if exc.errno == errno.ENOENT:
            what = "is a symbolic link to nothing" if p.is_symlink() else "does not exist"
            raise TracekitError(what, path=str(p)) from None
        if exc.errno == errno.ENOTDIR:
            raise TracekitError("does not exist (a part of the path is a file, not a folder)",
                                path=str(p)) from None
        raise TracekitError(f"cannot be read ({exc.strerror})", path=str(p)) from None
    if stat.S_ISDIR(st.st_mode) and not dirs:
        raise TracekitError(f"is a folder; expected a {kind}", path=str(p))
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise TracekitError(f"is not a regular file or folder (a pipe, socket or device); "
                            f"give a {kind} on disk", path=str(p))
    return p
