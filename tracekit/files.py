"""Files in and out: the one atomic writer, and the checks an input path must pass.

Every output tracekit writes (reports, JSON, converted traces, partitions,
calibration tables) appears whole or not at all: it is written under a temporary
name beside its destination and renamed into place, so a reader, a crash or a
full disk never leaves half a file under the final name, and the previous file
survives a failed write.  Temporaries are named ``.NAME.part-PID.XXXXXXXX[SUFFIX]``
(files and folders alike), so a later run can tell its own leftovers from anything
else: :func:`stale_temporaries` lists those whose writer is no longer running, and
every writer here removes them for its destination before it starts.

A new output gets the mode a new file gets under the user's umask; an output that
replaces a file keeps that file's mode.

No output may replace one of the command's inputs, be written inside an input
trace folder, or be a folder holding an input: :func:`refuse_overwriting_inputs`
checks this by file identity (device and inode), so hard links and symbolic links
are caught as well as the same path spelled differently.

A write that fails for a reason outside the program (a read-only folder, a full
disk, a path that is a directory) becomes a :class:`~tracekit.errors.TracekitError`
naming the path and the reason, so the command line ends with exit 2 and a
sentence instead of a traceback.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tracekit.errors import TracekitError

#: Marks temporaries: ``.NAME.part-PID...`` in the destination's folder.
PART_MARK = ".part-"
#: ``.NAME.part-PID.`` + 8 characters from tempfile's alphabet + the destination's suffix.
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.part-(?P<pid>[0-9]+)\.(?:(?P<rand>[a-z0-9_]{8})(?P<suffix>.*)|old)")
#: The previous output, moved aside for the instant a folder replaces it (see :func:`aside_name`).
ASIDE = "old"


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
    a power cut.  Missing parent folders are created, and temporaries that killed
    writers of ``dest`` left behind are removed first.
    """
    dest = Path(dest)
    check_output(dest)
    make_parent(dest)
    remove_stale_temporaries(dest)
    try:
        fd, name = tempfile.mkstemp(prefix=temporary_prefix(dest), suffix=dest.suffix, dir=dest.parent)
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
            os.chmod(tmp, output_mode(dest))
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


def temporary_folder(dest: str | os.PathLike) -> Path:
    """A new empty folder ``.NAME.part-PID.XXXXXXXX`` beside ``dest``, in which an output made
    of several files (a ``.tkt`` trace) is built before :func:`replace_entry` publishes it.

    Refuses a destination nothing can replace, creates missing parent folders and
    removes the temporaries killed writers of ``dest`` left, like :func:`write_atomic`.
    """
    dest = Path(dest)
    check_output(dest, dirs=True)
    make_parent(dest)
    remove_stale_temporaries(dest)
    try:
        return Path(tempfile.mkdtemp(prefix=temporary_prefix(dest), dir=dest.parent))
    except OSError as exc:
        raise output_error(dest, exc) from None


def replace_entry(src: Path, dst: Path, *, folder: bool | None = None) -> None:
    """Move the finished output ``src`` to ``dst``; whatever was at ``dst`` goes only after.

    A file replaces a file with one ``rename``.  A folder cannot replace an entry in one
    ``rename``, so the two are swapped atomically where the system can (Linux
    ``renameat2``), and the previous output, now under the temporary's name, is removed;
    elsewhere the previous output is moved aside under ``.NAME.part-PID.old`` for the
    instant between two renames, put back if the second fails, and put back by the next
    writer of ``dst`` if the process was killed in between.  ``folder``: whether
    ``src`` is a folder (looked up when not given); its mode is set to the output's.
    """
    with sigterm_deferred():
        _replace_entry(src, dst, src.is_dir() if folder is None else folder)


def _replace_entry(src: Path, dst: Path, folder: bool) -> None:
    os.chmod(src, output_mode(dst, folder=folder))
    if not ((dst.is_dir() and not dst.is_symlink()) or (folder and os.path.lexists(dst))):
        os.replace(src, dst)
        return
    if _exchange(src, dst):
        _remove(src)  # the previous output, now under the temporary name
        return
    old = dst.with_name(f".{dst.name}{PART_MARK}{os.getpid()}.{ASIDE}")
    os.replace(dst, old)
    try:
        os.replace(src, dst)
    except BaseException:
        os.replace(old, dst)
        raise
    _remove(old)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing entries in one step; False where the system cannot."""
    import ctypes  # only the writers of folders need it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False  # an old kernel, or a file system without the swap
    raise OSError(err, os.strerror(err), str(b))


def _remove(path: Path) -> None:
    """Delete a file, link or folder tree (best effort: it is no longer anyone's output)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except OSError:
            pass


def temporary_prefix(dest: Path) -> str:
    """The start of the name of every temporary this process makes for ``dest``."""
    return f".{dest.name}{PART_MARK}{os.getpid()}."


def temporary_owner(path: str | os.PathLike) -> tuple[str, int] | None:
    """(destination name, writer's process id) when ``path`` is named like one of our
    temporaries, else None: a name must match the whole pattern, so ``.x.part-foo`` is
    not one."""
    m = _TEMPORARY.fullmatch(Path(path).name)
    if m is None:
        return None
    if m["rand"] is not None and m["suffix"] not in ("", Path(m["name"]).suffix):
        return None
    return m["name"], int(m["pid"])


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (this process counts: its writes may be under way)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    except (OverflowError, ValueError):
        return False  # no process can have that number
    return True


def stale_temporaries_in(folder: str | os.PathLike, *, start: str = ".") -> list[Path]:
    """Our temporaries in ``folder`` whose writer is no longer running, for any destination
    (``start``: only names that begin so)."""
    try:
        names = [n for n in os.listdir(folder) if n.startswith(start)]
    except OSError:
        return []
    found = []
    for name in names:
        owner = temporary_owner(name)
        if owner is not None and not _running(owner[1]):
            found.append(Path(folder, name))
    return sorted(found)


def stale_temporaries(dest: str | os.PathLike) -> list[Path]:
    """Temporaries of ``dest`` (files or folders beside it) left by writers no longer running.

    Only names of the exact form ``.NAME.part-PID.XXXXXXXX[SUFFIX]`` or
    ``.NAME.part-PID.old`` for ``dest``'s NAME count, and only when process PID is
    gone; anything else in the folder, however similar its name, is not ours.
    """
    dest = Path(dest)
    return [p for p in stale_temporaries_in(dest.parent, start=f".{dest.name}{PART_MARK}")
            if temporary_owner(p)[0] == dest.name]


def remove_stale_temporaries(dest: str | os.PathLike) -> list[Path]:
    """Delete :func:`stale_temporaries` of ``dest``; returns what was removed.

    A previous output moved aside (``.old``) by a writer killed before it put the new
    one in place is moved back to ``dest`` instead, when nothing is at ``dest``.
    """
    dest = Path(dest)
    removed = []
    for p in stale_temporaries(dest):
        if p.name.endswith("." + ASIDE) and not os.path.lexists(dest):
            try:
                os.replace(p, dest)
            except OSError:
                pass
            continue
        _remove(p)
        removed.append(p)
    return removed


def output_mode(dest: str | os.PathLike, *, folder: bool = False) -> int:
    """Permission bits for an output about to be put at ``dest``.

    The bits of the file (or folder) it replaces, so a report the user made private
    stays private; else what a new file (0666) or folder (0777) gets under the umask.
    """
    try:
        st = os.stat(dest)
    except OSError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode) == folder:
        return stat.S_IMODE(st.st_mode) & 0o777
    return (0o777 if folder else 0o666) & ~current_umask()


def current_umask() -> int:
    """The process's umask, read without changing it where the system allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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


def refuse_overwriting_inputs(output: str | os.PathLike | None,
                              inputs: Iterable[str | os.PathLike | None]) -> None:
    """Refuse to write ``output`` when that would destroy one of ``inputs``.

    Refused: the output is an input (the same path, another spelling of it, a hard
    link or a symbolic link to it), lies inside an input folder (a ``.tkt`` trace),
    or is a folder that holds an input (replacing it deletes the input).  Files are
    compared by device and inode, so no spelling of a path gets past.  ``None``,
    ``-`` (standard output) and inputs that do not exist are skipped.
    """
    if output is None or str(output) == "-":
        return
    out = Path(output)
    out_chain = _identity_chain(out)
    for inp in inputs:
        if inp is None or str(inp) == "-":
            continue
        key = file_identity(Path(inp))
        if key is None:
            continue
        if key == out_chain[0]:
            reason = "it is that input (the same file, or a link to it)"
        elif key in out_chain[1:]:
            reason = "it lies inside that input folder"
        elif os.path.exists(out) and out_chain[0] in _identity_chain(Path(inp))[1:]:
            reason = "it is a folder holding that input"
        else:
            continue
        raise TracekitError(f"refusing to write the output over the input {inp}: {reason}",
                            path=str(out), hint="write the output to another path")


def file_identity(path: str | os.PathLike) -> tuple[int, int] | None:
    """(device, inode) of what ``path`` leads to, None when nothing is there."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _identity_chain(path: Path) -> list[tuple[int, int] | None]:
    """Identities of ``path`` (links followed; None if it does not exist yet) and of every
    existing folder above it, nearest first."""
    real = Path(os.path.realpath(path))
    chain = [file_identity(real)]
    chain += [key for key in (file_identity(up) for up in real.parents) if key is not None]
    return chain


class Terminated(BaseException):
    """SIGTERM arrived.  Raised like :class:`KeyboardInterrupt` (and, like it, not an
    :class:`Exception`), so every writer on the way out removes its temporary."""


@contextmanager
def sigterm_deferred() -> Iterator[None]:
    """Hold SIGTERM back for the block, then let it act: a step that publishes an output and
    removes what it replaced (a swap, then a removal) runs whole, so a termination can leave
    the old output or the new one but never the replaced one under a temporary's name."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread instead of
    ending the process where it stands; a second SIGTERM ends it at once.  Outside the
    main thread (where signals cannot be handled), or when SIGTERM is ignored, the block
    runs unchanged.

    The exception can land in Python code that C calls back (a JIT compiler's hook, a
    finaliser), where it cannot propagate and Python drops it; it is then delivered
    again, so the process still stops.
    """
    def on_sigterm(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated

    def redeliver(unraisable) -> None:
        if isinstance(unraisable.exc_value, Terminated):
            signal.signal(signal.SIGTERM, on_sigterm)
            # a little later, from another thread: sent now, it would be handled here and dropped again
            timer = threading.Timer(0.02, os.kill, (os.getpid(), signal.SIGTERM))
            timer.daemon = True
            timer.start()
        else:
            previous_hook(unraisable)

    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) == signal.SIG_IGN):  # whoever started us wants it ignored
        yield
        return
    previous = signal.signal(signal.SIGTERM, on_sigterm)
    previous_hook, sys.unraisablehook = sys.unraisablehook, redeliver
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
