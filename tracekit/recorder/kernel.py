"""Recording one kernel launch straight from its ``.cl`` file.

The launch (source, build options, sizes, arguments with their initial
contents) is written to a small description file plus raw data files, and the
cached launch host (``host.cpp``) runs it under Oclgrind with the recorder.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from pathlib import Path

from tracekit.errors import RecordError
from tracekit.recorder import toolchain
from tracekit.recorder.argspec import ArgValue, parse_arg
from tracekit.recorder.layout import DEFAULT_ALIGNMENT, DEFAULT_HEAP_BASE
from tracekit.recorder.runner import RecordResult, run_recording

#: Oclgrind always compiles with debug info and rejects clang's -g; drop it.
_DROPPED_OPTIONS = ("-g",)


#: Largest global or local size per dimension (OpenCL's size_t limit on a 32-bit device).
MAX_DIM = (1 << 32) - 1


def parse_dims(text: str | None, what: str) -> tuple[int, ...] | None:
    """``"1024"`` or ``"64,64"`` -> (1024,) / (64, 64); 1 to 3 positive integers."""
    if text is None or str(text).strip() == "":
        return None
    parts = [p for p in str(text).replace("x", ",").split(",") if p.strip()]
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        raise RecordError(f"--{what} '{text}' is not X[,Y[,Z]] with positive integers") from None
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise RecordError(f"--{what} '{text}' is not X[,Y[,Z]] with positive integers")
    if any(d > MAX_DIM for d in dims):
        raise RecordError(f"--{what} '{text}': a dimension is above {MAX_DIM:,} work-items")
    return dims


def clean_options(options: str) -> str:
    return " ".join(o for o in shlex.split(options or "") if o not in _DROPPED_OPTIONS)


def write_description(tmp: Path, source: Path, kernel: str, options: str, global_size: tuple[int, ...],
                      local_size: tuple[int, ...] | None, args: list[ArgValue]) -> Path:
    """Write the launch host's description file (format in host.cpp) and data files."""
    dims = len(global_size)
    g = list(global_size) + [1] * (3 - dims)
    loc = list(local_size) + [1] * (3 - len(local_size)) if local_size else [0, 0, 0]
    lines = [f"source {source}", f"options {options}", f"kernel {kernel}", f"dims {dims}",
             "global " + " ".join(map(str, g)), "local " + " ".join(map(str, loc))]
    for i, a in enumerate(args):
        if a.kind == "local":
            lines.append(f"arg local {a.nbytes}")
        elif a.kind == "scalar":
            lines.append(f"arg scalar {a.type} {a.nbytes} {a.data.tobytes().hex()}")
        elif a.kind == "sampler":
            addressing, filt, coords = a.type.split(",")
            lines.append(f"arg sampler {addressing} {filt} {coords}")
        elif a.kind == "image":
            path = "-"
            if a.data is not None:
                p = tmp / f"arg{i}.bin"
                p.write_bytes(a.data.tobytes())
                path = str(p)
            order, ctype = a.type.split(":")
            w, h, d = a.image_dims
            lines.append(f"arg image {order} {ctype} {a.image_type} {w} {h} {d} {a.nbytes} {path}")
        else:
            path = "-"
            if a.data is not None:
                p = tmp / f"arg{i}.bin"
                p.write_bytes(a.data.tobytes())
                path = str(p)
            lines.append(f"arg buffer {a.type} {a.nbytes} {path}")
    desc = tmp / "launch.txt"
    desc.write_text("\n".join(lines) + "\n")
    return desc


def record_kernel(kernel_file: str | os.PathLike, kernel: str, *, global_size: str | tuple[int, ...],
                  out: str | os.PathLike, local_size: str | tuple[int, ...] | None = None,
                  args: list[str] = (), build_options: str = "", sample: str = "all",
                  alignment: int = DEFAULT_ALIGNMENT, heap_base: int = DEFAULT_HEAP_BASE,
                  local_mem_size: int | None = None) -> RecordResult:
    """Record one launch of ``kernel`` from ``kernel_file`` into the trace ``out``.

    ``args`` are ``--arg`` strings (see :mod:`tracekit.recorder.argspec`); ``local_mem_size`` the
    simulated device's local memory in bytes (None: the largest of the shipped targets').
    """
    src = Path(kernel_file)
    if not src.is_file():
        raise RecordError("no such kernel file", path=str(src))
    gsize = global_size if isinstance(global_size, tuple) else parse_dims(global_size, "global")
    if gsize is None:
        raise RecordError("--global is required (work-items per dimension, e.g. 1024 or 64,64)")
    lsize = local_size
    if lsize is not None and not isinstance(lsize, tuple):
        lsize = parse_dims(lsize, "local")
    if lsize is not None and len(lsize) != len(gsize):
        raise RecordError(f"--local has {len(lsize)} dimension(s) but --global has {len(gsize)}")
    if lsize is not None:
        bad = [f"{g} % {ls}" for g, ls in zip(gsize, lsize, strict=True) if g % ls]
        if bad:
            raise RecordError("--global must be a multiple of --local in every dimension "
                              f"({', '.join(bad)} != 0)")
    values = [parse_arg(a, i, Path.cwd()) for i, a in enumerate(args)]
    options = clean_options(build_options)
    host = toolchain.host_path()
    source_text = src.read_text(errors="replace")
    with tempfile.TemporaryDirectory(prefix="tracekit-launch-") as tmp:
        try:
            desc = write_description(Path(tmp), src.resolve(), kernel, options, gsize, lsize, values)
        except OSError as exc:
            raise RecordError(f"cannot write the launch's initial data to {tmp} ({exc.strerror}); "
                              "nothing was recorded") from None
        return run_recording([str(host), str(desc)], out, sample=sample, alignment=alignment,
                             heap_base=heap_base, file_alias={"input.cl": str(src)},
                             source_text=source_text, echo=False,
                             extra_meta={"arg_specs": list(args), "kernel_file": str(src)},
                             local_mem_size=local_mem_size)


def plain_command(kernel_file: str | os.PathLike, kernel: str, tmp: Path, *, global_size: tuple[int, ...],
                  local_size: tuple[int, ...] | None, args: list[str], build_options: str = "") -> list[str]:
    """The same launch as :func:`record_kernel`, as an ``oclgrind`` command without the
    recorder (for benchmarks: the reference run)."""
    values = [parse_arg(a, i, Path.cwd()) for i, a in enumerate(args)]
    desc = write_description(tmp, Path(kernel_file).resolve(), kernel, clean_options(build_options),
                             global_size, local_size, values)
    return [toolchain.find_toolchain().oclgrind, str(toolchain.host_path()), str(desc)]
