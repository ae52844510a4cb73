"""Finding Oclgrind and building the recorder's two native parts on first use.

The plugin (``plugin.cpp``) and the launch host (``host.cpp``) ship as source
in the package and are compiled against the installed Oclgrind into a per-user
cache, ``$XDG_CACHE_HOME/tracekit/plugins/<oclgrind-version>-<source-hash>/``.
The key changes when either Oclgrind or our source changes, so a stale build is
never loaded.  Builds go to a temporary name and are renamed into place, so two
processes building at once never see half a library.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tracekit.errors import MissingToolError

SOURCE_DIR = Path(__file__).resolve().parent
#: what the plugin's build (and so its cache key) depends on: every header beside it, listed from
#: the folder so that a new header can never be left out of the key
PLUGIN_SOURCES = ("plugin.cpp", *sorted(p.name for p in SOURCE_DIR.glob("*.h")))
HOST_SOURCES = ("host.cpp",)
DEBS = "oclgrind liboclgrind-dev llvm-14-dev opencl-headers ocl-icd-opencl-dev g++"
LLVM_INCLUDE_CANDIDATES = ("/usr/lib/llvm-14/include",)
LLVM_LIB_CANDIDATES = ("/usr/lib/llvm-14/lib",)


def _missing(what: str) -> MissingToolError:
    return MissingToolError(
        f"the recorder needs {what}, which is not installed",
        hint=f"install the Debian packages: sudo apt-get install {DEBS}")


@dataclass(frozen=True)
class Toolchain:
    """Where the recorder's tools are; ``version`` is Oclgrind's (e.g. ``21.10``)."""

    oclgrind: str
    version: str
    cxx: str
    llvm_include: str
    llvm_lib: str


@lru_cache(maxsize=1)
def find_toolchain() -> Toolchain:
    """Locate oclgrind, g++, and the Oclgrind/LLVM/OpenCL headers, or say what to install."""
    oclgrind = shutil.which("oclgrind")
    if not oclgrind:
        raise _missing("the oclgrind simulator")
    out = subprocess.run([oclgrind, "--version"], capture_output=True, text=True, timeout=60)
    m = re.search(r"Oclgrind\s+([0-9][0-9.]*)", out.stdout + out.stderr)
    version = m.group(1) if m else "unknown"
    cxx = os.environ.get("CXX") or shutil.which("g++")
    if not cxx:
        raise _missing("a C++ compiler (g++)")
    if not Path("/usr/include/oclgrind/Plugin.h").exists():
        raise _missing("the Oclgrind plugin headers (liboclgrind-dev)")
    if not Path("/usr/include/CL/cl.h").exists():
        raise _missing("the OpenCL headers (opencl-headers)")
    inc = _llvm_dir("--includedir", LLVM_INCLUDE_CANDIDATES, "llvm/IR/Instruction.h")
    lib = _llvm_dir("--libdir", LLVM_LIB_CANDIDATES, "libLLVM-14.so")
    if not inc or not lib:
        raise _missing("the LLVM 14 development files (llvm-14-dev)")
    return Toolchain(oclgrind, version, cxx, inc, lib)


def _llvm_dir(flag: str, candidates: tuple[str, ...], probe: str) -> str | None:
    """The first of ``candidates`` holding ``probe``, else where ``llvm-config-14 FLAG`` says
    (asked only then: every recording looks the directories up, and a process costs more)."""
    for d in candidates:
        if (Path(d) / probe).exists():
            return d
    cfg = shutil.which("llvm-config-14")
    if cfg:
        r = subprocess.run([cfg, flag], capture_output=True, text=True)
        d = r.stdout.strip()
        if r.returncode == 0 and d and (Path(d) / probe).exists():
            return d
    return None


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tracekit" / "plugins"


def _source_hash(names: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode())
        h.update((SOURCE_DIR / name).read_bytes())
    return h.hexdigest()[:16]


def _build(target: Path, command: list[str], what: str) -> Path:
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(fd)
    try:
        r = subprocess.run(command + ["-o", tmp], capture_output=True, text=True)
        if r.returncode != 0:
            raise MissingToolError(
                f"building the recorder {what} failed:\n{r.stderr.strip()[-3000:]}",
                hint=f"check that these Debian packages are installed: {DEBS}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def build_dir() -> Path:
    tc = find_toolchain()
    # this file holds the compiler flags: changing them rebuilds too
    key = f"{tc.version}-{_source_hash(PLUGIN_SOURCES + HOST_SOURCES + ('toolchain.py',))}"
    return cache_root() / key


def plugin_path() -> Path:
    """The compiled plugin library, building it on first use."""
    tc = find_toolchain()
    # initial-exec TLS: the per-thread state is read on every executed instruction, and
    # the default model for a dlopen'ed library costs a call each time.  Hidden
    # visibility (only the two entry points are exported) keeps the plugin's own
    # calls direct instead of going through the PLT.
    cmd = [tc.cxx, "-O2", "-std=c++17", "-fPIC", "-shared", "-fno-rtti", "-w", "-ftls-model=initial-exec",
           "-fvisibility=hidden",
           f"-I{tc.llvm_include}", "-D__STDC_CONSTANT_MACROS", "-D__STDC_LIMIT_MACROS",
           str(SOURCE_DIR / "plugin.cpp"), f"-L{tc.llvm_lib}", "-lLLVM-14", "-loclgrind",
           "-Wl,-z,defs"]
    return _build(build_dir() / "libtracekit_plugin.so", cmd, "plugin")


def host_path() -> Path:
    """The compiled launch host (runs one kernel through the OpenCL API)."""
    tc = find_toolchain()
    cmd = [tc.cxx, "-O2", "-std=c++17", "-w", str(SOURCE_DIR / "host.cpp"), "-lOpenCL"]
    return _build(build_dir() / "tracekit_host", cmd, "launch host")
