"""Described kernels kept per build, so that recording a kernel again skips the disassembly.

:func:`~tracekit.isa.compile.compile_source` builds a source with ocloc (whose
outputs :func:`~tracekit.isa.tools.ocloc_compile` keeps), reads the binaries,
disassembles every kernel with iga64 and labels each instruction.  The same inputs
give the same kernels again, so the labelled result is kept as well: the rows the
trace's ``machine_code`` table would hold, in an Arrow IPC file under
``$XDG_CACHE_HOME/tracekit/isa``.  The key covers everything the result depends on:
the source text and its file name, the device, the iga64 platform, the build
options, the kernels asked for, the ocloc and iga64 binaries, the table's schema,
and the code of the modules that read and label machine code, so a change to any
of them describes the kernels afresh.  A cache that cannot be read or written only
costs the time it would have saved.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import pyarrow as pa

from tracekit.isa import tools
from tracekit.isa.kernel import KernelISA
from tracekit.isa.table import from_table, to_table
from tracekit.trace import schema

#: The modules whose code decides what a described kernel holds.
_DESCRIBING = ("compile.py", "classes.py", "listing.py", "zebin.py", "debuglines.py", "kernel.py",
               "table.py", "described.py")


def entry(source_text: str, device: str, platform: str, options: str, source_name: str,
          kernels: list[str] | None) -> Path:
    """The cache file of one described build (it may not exist yet)."""
    here = Path(__file__).resolve().parent
    wanted = b"*" if kernels is None else b"\0".join(k.encode() for k in sorted(kernels))
    parts = [source_text.encode(), source_name.encode(), device.encode(), str(platform).encode(),
             options.encode(), wanted, *(tools.tool_identity(tools.find_tool(t)) for t in ("ocloc", "iga64")),
             str(schema.MACHINE_CODE).encode(), *((here / name).read_bytes() for name in _DESCRIBING)]
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return tools.cache_dir("isa") / f"{h.hexdigest()[:32]}.arrow"


def load(path: Path) -> list[KernelISA] | None:
    """The kernels kept at ``path``, or None when there are none (or they cannot be read)."""
    try:
        with pa.memory_map(str(path)) as source:
            table = pa.ipc.open_file(source).read_all()
    except (OSError, pa.ArrowException):
        return None
    if not table.schema.equals(schema.MACHINE_CODE):
        return None
    return from_table(table)


def keep(path: Path, kernels: list[KernelISA]) -> None:
    """Write ``kernels`` to ``path`` (best effort, under a temporary name renamed into place)."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        os.close(fd)
        table = to_table(kernels)
        with pa.OSFile(tmp, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        os.replace(tmp, path)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
