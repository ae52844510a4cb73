"""Running a program under Oclgrind with the recorder plugin, converting as it runs.

The plugin writes to the write end of a pipe the child inherits (``TRACEKIT_FD``);
this process reads the other end and converts records while the kernel is
still executing, so recording and conversion overlap.  The trace is written
through :class:`~tracekit.trace.store.TraceWriter` under a temporary name: if
anything fails (the child, the conversion, the disk) nothing half-written is
left at the destination.
"""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tracekit.errors import RecordError
from tracekit.files import check_output, make_parent
from tracekit.recorder import toolchain
from tracekit.recorder.device import local_memory_limit
from tracekit.recorder.layout import DEFAULT_ALIGNMENT, DEFAULT_HEAP_BASE, DeviceLayout

_SAMPLE_RE = re.compile(r"^(all|first:[1-9]\d*|every:[1-9]\d*|random:[1-9]\d*(:\d+)?)$")
ERROR_PREFIX = "TRACEKIT-ERROR "


def check_sample(spec: str) -> str:
    """Validate a sampling spec: all, first:N, every:K, random:N[:SEED]."""
    spec = (spec or "all").strip()
    if not _SAMPLE_RE.match(spec):
        raise RecordError(f"--sample '{spec}' is not all, first:N, every:K or random:N[:SEED]")
    if any(int(n) >= 1 << 63 for n in re.findall(r"\d+", spec)):
        raise RecordError(f"--sample '{spec}': a count or seed is above 2^63-1")
    if spec.startswith("random:") and spec.count(":") == 1:
        spec += ":0"
    return spec


@dataclass
class RecordResult:
    """What a recording produced; ``launches`` lists (kernel, status) per launch."""

    path: Path
    launches: list[tuple[str, str]]
    accesses: int
    instructions: int
    host_exit_code: int
    diagnostics: list[str] = field(default_factory=list)
    stderr: str = ""

    @property
    def flagged(self) -> bool:
        return any(status != "ok" for _, status in self.launches)


class _StderrPump(threading.Thread):
    """Collects the child's stderr (and echoes it when asked) without blocking it."""

    def __init__(self, pipe, echo: bool):
        super().__init__(daemon=True)
        self.pipe, self.echo, self.lines = pipe, echo, []

    def run(self) -> None:
        for raw in iter(self.pipe.readline, b""):
            line = raw.decode("utf-8", errors="replace")
            self.lines.append(line)
            if self.echo:
                sys.stderr.write(line)
                sys.stderr.flush()

    @property
    def text(self) -> str:
        return "".join(self.lines)


def _disk_error(exc: OSError, out: Path) -> RecordError:
    why = {errno.ENOSPC: "the disk is full", errno.EFBIG: "the file size limit was reached",
           errno.EDQUOT: "the disk quota is exhausted"}.get(exc.errno, str(exc))
    return RecordError(f"writing the trace failed: {why}; nothing was written", path=str(out))


#: Build options added to every program Oclgrind compiles.  Oclgrind's interpreter has no
#: ``llvm.assume``, which ``__builtin_assume`` (and ``__builtin_unreachable`` behind a
#: condition) compile to, so a kernel giving the compiler such a hint could not be created.
#: The hints only let a compiler assume what the program already guarantees, so the recording
#: defines them away: the kernel computes the same and issues the same accesses.
HINT_OPTIONS = ("-D__builtin_assume(x)=((void)0)", "-D__builtin_unreachable()=((void)0)")

#: Lines kept of what Oclgrind printed before a failure: enough for its message and context.
DIAGNOSTIC_LINES = 12

_UNDEFINED = re.compile(r"Undefined external function: (\S+)")


def build_options_env(env: dict[str, str]) -> str:
    """``OCLGRIND_BUILD_OPTIONS`` for the child: the user's own, then :data:`HINT_OPTIONS`."""
    return " ".join(x for x in (env.get("OCLGRIND_BUILD_OPTIONS", "").strip(), *HINT_OPTIONS) if x)


def interpreter_messages(stderr: str) -> str:
    """The last lines Oclgrind (or the program) printed before the launch host's own report: the
    interpreter's reason for a failure the host sees only as an OpenCL error code.  They quote the
    kernel's source, so control characters are shown as ``?`` (no escape sequence reaches the
    terminal through an error message)."""
    idx = stderr.find(ERROR_PREFIX)
    before = stderr if idx < 0 else stderr[:idx]
    lines = [_printable(ln.rstrip()) for ln in before.splitlines() if ln.strip()]
    return "\n".join(lines[-DIAGNOSTIC_LINES:])


def _printable(line: str) -> str:
    return "".join(c if c.isprintable() or c == "\t" else "?" for c in line)


def _hint(kind: str, said: str) -> str | None:
    undefined = _UNDEFINED.search(said)
    if undefined:
        return (f"Oclgrind cannot run '{undefined.group(1)}', which the kernel calls (a built-in or compiler "
                "intrinsic it does not implement); write that part without it")
    return {"build": "fix the kernel source or --build-options",
            "local_memory": "record with --local-mem-size BYTES, or --target NAME to give the simulated "
                            "device the local memory of the GPU you will analyse it for",
            "work_group": "choose --local within the device's work-group size, dividing --global"}.get(kind)


def host_error(stderr: str) -> RecordError | None:
    """The launch host's own report of a user mistake, if it printed one, with what Oclgrind said
    before it (its reason is often the real one: an instruction it cannot run, a limit)."""
    idx = stderr.find(ERROR_PREFIX)
    if idx < 0:
        return None
    text = stderr[idx + len(ERROR_PREFIX):].strip()
    kind, _, message = text.partition(": ")
    message = "\n".join(_printable(ln) for ln in message.splitlines())   # it quotes names and build logs
    said = interpreter_messages(stderr)
    if said:
        message += "\nOclgrind said:\n  " + said.replace("\n", "\n  ")
    return RecordError(message, hint=_hint(kind, said))


def run_recording(command: list[str], out: str | os.PathLike, *, sample: str = "all",
                  alignment: int = DEFAULT_ALIGNMENT, heap_base: int = DEFAULT_HEAP_BASE,
                  file_alias: dict[str, str] | None = None, source_text: str | None = None,
                  echo: bool = True, extra_meta: dict | None = None,
                  env: dict[str, str] | None = None, local_mem_size: int | None = None) -> RecordResult:
    """Run ``command`` under Oclgrind with the recorder; write every launch to ``out``.

    ``local_mem_size``: the local memory (bytes per work-group) the simulated device offers; None
    gives it the largest of the shipped targets' (:func:`tracekit.recorder.device.local_memory_limit`)."""
    out = Path(out)
    tc = toolchain.find_toolchain()
    plugin = toolchain.plugin_path()
    try:
        layout = DeviceLayout(alignment=alignment, heap_base=heap_base)
    except ValueError as exc:
        raise RecordError(f"--align: {exc}") from None
    child_env = dict(os.environ if env is None else env)
    child_env.update(TRACEKIT_SAMPLE=check_sample(sample), PYOPENCL_NO_CACHE="1",
                     OCLGRIND_BUILD_OPTIONS=build_options_env(child_env))
    device_options = ["--local-mem-size", str(local_memory_limit(local_mem_size))]
    check_output(out, dirs=True)  # an output that cannot be written fails before anything runs
    make_parent(out)
    rfd, wfd = os.pipe()
    child_env.update(OCLGRIND_PLUGINS=str(plugin), TRACEKIT_FD=str(wfd))
    try:
        proc = subprocess.Popen([tc.oclgrind, *device_options, *command], env=child_env, pass_fds=(wfd,),
                                stdin=subprocess.DEVNULL, stdout=None if echo else subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
    except OSError as exc:
        os.close(rfd)
        os.close(wfd)
        raise RecordError(f"cannot start {command[0]}: {exc}") from None
    os.close(wfd)
    pump = _StderrPump(proc.stderr, echo)
    pump.start()
    writer, pipe_open = None, True
    try:
        # The program is starting on the simulator: load the converter and the Parquet
        # writer meanwhile instead of before (their imports are most of tracekit's start-up).
        from tracekit.recorder import stream
        from tracekit.recorder.convert import Converter, status_of
        from tracekit.trace.store import TraceWriter
        writer = TraceWriter(out)
        conv = Converter(writer, layout=layout, file_alias=file_alias, device=f"Oclgrind {tc.version}")
        pipe_open = False  # the reader owns the pipe now and closes it
        with stream.PipeReader(rfd) as f:
            for rec in stream.read_records(f):
                conv.handle(rec)
        rc = proc.wait()
        pump.join()
        err = host_error(pump.text)
        if err is not None:
            raise err
        if not conv.launches:
            tail = interpreter_messages(pump.text)
            raise RecordError(f"no kernel launch was recorded (the program exited with status {rc})"
                              + (f"; its last messages:\n{tail}" if tail else ""))
        conv.finish(host_exit_code=rc, source_text=source_text, extra=extra_meta)
        writer.close()
    except BaseException as exc:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if writer is not None:
            writer.abort()
        if pipe_open:
            os.close(rfd)
        if isinstance(exc, OSError):
            raise _disk_error(exc, out) from None
        raise
    launches = [(st.kernel, status_of(st, rc)) for st in conv.launches]
    diags = [d for st in conv.launches for d in st.diagnostics[:3]] + conv.orphan_logs[:5]
    return RecordResult(out, launches, writer.rows["accesses"], writer.rows["instructions"], rc,
                        diags, pump.text)
