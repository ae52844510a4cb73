"""Running Intel's offline compiler (``ocloc``) and ISA disassembler (``iga64``).

Both come from Debian packages (``intel-opencl-icd`` ships ocloc, ``libigc-tools``
ships iga64) and need no Intel GPU.  This module only finds them and runs them;
what their outputs mean is read by :mod:`.zebin`, :mod:`.debuglines` and
:mod:`.listing`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tracekit.errors import MissingToolError, TracekitError

DEBS = "intel-opencl-icd libigc-tools"
#: Seconds one compile or disassembly may take before it is called stuck.
TIMEOUT_S = 300


class IsaCompileError(TracekitError):
    """ocloc could not build the kernel source; the message carries its build log."""


def find_tool(name: str) -> str:
    """Path of ``ocloc`` or ``iga64`` on PATH, or a :class:`MissingToolError` naming the packages."""
    path = shutil.which(name)
    if not path:
        raise MissingToolError(
            f"{name} is not installed (Intel's offline compiler tools: ocloc builds Gen machine code, "
            "iga64 disassembles it)",
            hint=f"install the Debian packages: sudo apt-get install {DEBS} (or `make setup`)")
    return path


def tools_available() -> bool:
    """True when both ocloc and iga64 are on PATH."""
    return bool(shutil.which("ocloc") and shutil.which("iga64"))


def _log_excerpt(text: str, limit: int = 40) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip() and not ln.startswith("Command was:")]
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join("    " + ln for ln in lines)


#: OpenCL C versions older than the one Intel's compiler builds its own declarations with:
#: ocloc fails on its built-in header under them (unknown ``intel_sub_group_avc_*`` types).
#: OpenCL C 1.2 accepts every 1.0 and 1.1 kernel and compiles it to the same code.
_OLD_STD = {"-cl-std=CL1.0", "-cl-std=CL1.1"}


def ocloc_options(options: str) -> str:
    """The build options as ocloc takes them: ``-cl-std=CL1.0``/``CL1.1`` read as ``CL1.2``."""
    return " ".join("-cl-std=CL1.2" if o in _OLD_STD else o for o in options.split())


def ocloc_compile(source: Path, device: str, options: str, out_dir: Path, *, zebin: bool,
                  debug: bool = False, source_name: str | None = None) -> Path:
    """Build ``source`` for ``device``; returns the device binary ocloc wrote
    (``kernel_<family>.bin``; with ``debug``, ``kernel_<family>.dbg`` lies beside it).

    ``zebin`` asks for the ELF container whose ``.ze_info`` section describes each
    kernel (SIMD width, registers, scratch); without it ocloc writes the older
    patch-token container, the one that comes with a ``.dbg`` file of per-kernel
    DWARF line tables when ``debug`` adds ``-g``.
    """
    ocloc = find_tool("ocloc")
    opts = " ".join(x for x in (ocloc_options(options), "-g" if debug else "") if x)
    cached = _cache_path(ocloc, source, device, opts, zebin)
    if cached.is_dir():  # built before from the same source, device and options by this ocloc
        for f in cached.iterdir():
            shutil.copyfile(f, out_dir / f.name)
        found = sorted(out_dir.glob("kernel*.bin"))
        if found:
            return found[0]
    cmd = [ocloc, "compile", "-file", str(source), "-device", device, "-out_dir", str(out_dir),
           "-output", "kernel"]
    if opts:
        cmd += ["-options", opts]
    cmd += ["--format", "zebin" if zebin else "patchtokens"]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                             cwd=out_dir, errors="replace")
    except subprocess.TimeoutExpired:
        raise IsaCompileError(f"ocloc did not finish building for {device} within {TIMEOUT_S} s",
                              path=source_name or str(source)) from None
    found = sorted(out_dir.glob("kernel*.bin"))
    binary = found[0] if found else out_dir / "kernel.bin"
    log = (run.stdout + run.stderr).replace(str(source), source_name or source.name)
    if run.returncode != 0 or not binary.is_file():
        raise IsaCompileError(
            f"ocloc could not build the kernel for device '{device}' with options '{opts}' "
            f"(exit status {run.returncode}); its build log:\n{_log_excerpt(log)}",
            path=source_name or str(source),
            hint="the Intel targets then fall back to the IR model; fix the source, the build options "
                 "or the target's isa.ocloc_device")
    _keep(out_dir, cached)
    return binary


def _cache_path(ocloc: str, source: Path, device: str, options: str, zebin: bool) -> Path:
    """Where a build's outputs are kept: a recording of the same kernel builds it only once.

    The key is everything the output depends on: the source text, the device, the
    options, the container and the ocloc binary itself (path, size and time stamp).
    """
    h = hashlib.sha256()
    container = b"zebin" if zebin else b"patchtokens"
    for part in (source.read_bytes(), device.encode(), options.encode(), container, tool_identity(ocloc)):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return cache_dir("ocloc") / h.hexdigest()[:32]


def cache_dir(kind: str) -> Path:
    """``$XDG_CACHE_HOME/tracekit/<kind>`` (``~/.cache`` without the variable)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tracekit" / kind


def tool_identity(path: str) -> bytes:
    """A tool binary's path, size and time stamp: a new version of the tool changes it."""
    st = os.stat(path)
    return f"{path}:{st.st_size}:{st.st_mtime_ns}".encode()


def _keep(out_dir: Path, cached: Path) -> None:
    """Copy a successful build into the cache (best effort: a cache that cannot be written is skipped,
    and of two runs storing the same build at once the second one's copy is dropped)."""
    tmp = None
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{cached.name}.", dir=cached.parent))
        for f in out_dir.iterdir():
            if f.is_file():
                shutil.copyfile(f, tmp / f.name)
        os.replace(tmp, cached)
    except OSError:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def iga_disassemble(kernel_bytes: bytes, platform: str) -> str:
    """The text listing of one kernel's machine code, with byte offsets (``-Xprint-pc``)."""
    iga = find_tool("iga64")
    with tempfile.TemporaryDirectory(prefix="tracekit-iga-") as tmp:
        krn = Path(tmp) / "kernel.krn"
        krn.write_bytes(kernel_bytes)
        run = subprocess.run([iga, "-d", "-p", str(platform), "-Xprint-pc", "--color", "never", str(krn)],
                             capture_output=True, text=True, timeout=TIMEOUT_S, errors="replace")
    if run.returncode != 0:
        raise TracekitError(f"iga64 could not disassemble machine code for platform '{platform}' "
                            f"(exit status {run.returncode}):\n{_log_excerpt(run.stderr)}")
    return run.stdout


def scratch_dir() -> tempfile.TemporaryDirectory:
    """A private working directory for one compile (removed when closed)."""
    return tempfile.TemporaryDirectory(prefix="tracekit-ocloc-", dir=os.environ.get("TMPDIR"))
