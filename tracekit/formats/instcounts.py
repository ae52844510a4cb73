"""Oclgrind ``--inst-counts`` output as an instruction mix.

Oclgrind's InstructionCounter plugin prints, per kernel::

    Instructions executed for kernel 'NAME':
                 736 - br
                 128 - load global (512 bytes)
                 256 - call _Z3fmafff()
                  64 - call llvm.fmuladd.f32()

These are LLVM IR operations summed over every work-item.  They map to trace v1
classes the way the recorder maps them (tracekit/recorder/opclass.h), with one
difference: the text carries no operand types, so ``fadd``/``fmul``/``fdiv``
are taken as 32-bit float and integer operations as 32-bit, unless a mangled
builtin or intrinsic name says otherwise (``_Z3fmaddd`` is fp64,
``llvm.fma.f16`` fp16).  ``phi`` is SSA bookkeeping and gets no class (as in the
recorder).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from tracekit.errors import TraceFormatError

_HEAD = re.compile(r"^Instructions executed for kernel '(?P<kernel>[^']*)':\s*$")
_ROW = re.compile(r"^\s*(?P<count>\d+)\s+-\s+(?P<op>.+?)\s*$")
_MEM = re.compile(r"^(?P<kind>load|store)\s+(?P<space>global|local|constant|private)"
                  r"\s+\((?P<bytes>\d+) bytes\)$")

_SIMPLE = {
    "fadd": "fp32_add", "fsub": "fp32_add", "fneg": "fp32_add", "fmul": "fp32_mul", "fdiv": "fp32_div",
    "frem": "fp32_div", "add": "int_add", "sub": "int_add", "mul": "int_mul", "sdiv": "int_div",
    "udiv": "int_div", "srem": "int_div", "urem": "int_div", "shl": "bitwise", "lshr": "bitwise",
    "ashr": "bitwise", "and": "bitwise", "or": "bitwise", "xor": "bitwise", "icmp": "compare",
    "fcmp": "compare", "select": "compare", "trunc": "convert", "zext": "convert", "sext": "convert",
    "fptoui": "convert", "fptosi": "convert", "uitofp": "convert", "sitofp": "convert",
    "fptrunc": "convert", "fpext": "convert", "ptrtoint": "convert", "inttoptr": "convert",
    "addrspacecast": "convert", "br": "branch", "switch": "branch", "indirectbr": "branch",
    "ret": "branch", "unreachable": "branch", "load": "load", "store": "store", "atomicrmw": "atomic",
    "cmpxchg": "atomic", "fence": "barrier", "getelementptr": "int_add", "phi": None,
}
_BARRIERS = {"barrier", "work_group_barrier", "mem_fence", "read_mem_fence", "write_mem_fence",
             "sub_group_barrier", "atomic_work_item_fence"}


def _demangle(symbol: str) -> tuple[str, str]:
    """(builtin name, parameter code) of an Itanium-mangled OpenCL builtin: _Z3expf -> (exp, f)."""
    m = re.match(r"^_Z(\d+)(.*)$", symbol)
    if not m:
        return symbol, ""
    n = int(m.group(1))
    rest = m.group(2)
    return rest[:n], rest[n:]


def _fp_from_code(code: str) -> str:
    """Float width of a mangled builtin's first parameter: f, d, Dh, or a vector Dv4_f."""
    if code.startswith("Dv") and "_" in code:
        code = code.split("_", 1)[1]
    if code.startswith("Dh"):
        return "fp16"
    return "fp64" if code.startswith("d") else "fp32"


def _sanitize(name: str) -> str:
    out = re.sub(r"[^a-z0-9_]", "_", name.lower()).lstrip("_0123456789")
    return out or "other"


def _fma_class(prefix: str) -> str:
    """The conformant fma(): ``math_fma`` in single precision (recorder/opclass.h fmaClass)."""
    return "math_fma" if prefix == "fp32" else prefix + "_fma"


def classify_call(callee: str) -> str:
    """Class of ``call NAME()`` as the recorder would give it."""
    if callee.startswith("llvm."):
        parts = callee.split(".")
        base = parts[1]
        suffix = parts[-1] if len(parts) > 2 else ""
        prefix = {"f64": "fp64", "f16": "fp16"}.get(suffix[-3:], "fp32")
        if base == "fmuladd":
            return prefix + "_fma"
        if base == "fma":
            return _fma_class(prefix)
        if base in ("memcpy", "memset", "memmove", "lifetime", "dbg", "assume"):
            return "other"
        if base in ("smin", "smax", "umin", "umax"):
            return "compare"
        return "math_" + _sanitize(base)
    name, code = _demangle(callee)
    if name in _BARRIERS:
        return "barrier"
    if name.startswith("get_"):
        return "other"
    if name.startswith(("atomic_", "atom_")):
        return "atomic"
    if name == "mad":
        return _fp_from_code(code) + "_fma"
    if name == "fma":
        return _fma_class(_fp_from_code(code))
    if name in ("mad24", "mul24", "mul_hi", "mad_hi"):
        return "int_mul"
    if name.startswith(("vload", "read_image")):
        return "load"
    if name.startswith(("vstore", "write_image")):
        return "store"
    if name.startswith("convert_"):
        return "convert"
    if name.startswith(("as_", "async_work_group")) or name in ("wait_group_events", "prefetch", "printf"):
        return "other"
    return "math_" + _sanitize(name)


def classify(op: str) -> tuple[str | None, str | None, int | None]:
    """(opclass, memory space, bytes) of one ``--inst-counts`` operation text."""
    m = _MEM.match(op)
    if m:
        return m.group("kind"), m.group("space"), int(m.group("bytes"))
    if op.startswith("call "):
        return classify_call(op[5:].strip().removesuffix("()")), None, None
    word = op.split()[0]
    return _SIMPLE.get(word, "other"), None, None


def read_instcounts(path: str | os.PathLike) -> pd.DataFrame:
    """One row per (kernel, operation): kernel, operation, count, opclass, space, bytes.

    Raises :class:`TraceFormatError` naming the file and line for text that is
    not Oclgrind instruction-count output.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise TraceFormatError(f"cannot read: {exc.strerror}", path=str(path)) from None
    rows, kernel = [], None
    for n, line in enumerate(lines, 1):
        head = _HEAD.match(line)
        if head:
            kernel = head.group("kernel")
            continue
        row = _ROW.match(line)
        if row and kernel is not None:
            op = row.group("op")
            cls, space, nbytes = classify(op)
            rows.append({"kernel": kernel, "operation": op, "count": int(row.group("count")),
                         "opclass": cls, "space": space, "bytes": nbytes, "line": n})
        elif kernel is not None and line.strip() and not line.startswith(("==", "Oclgrind")):
            raise TraceFormatError(f"line {n}: expected 'COUNT - OPERATION' under kernel '{kernel}', "
                                   f"got '{line.strip()[:60]}'", path=str(path))
    if kernel is None:
        raise TraceFormatError("not Oclgrind --inst-counts output: no \"Instructions executed for kernel "
                               "'NAME':\" line", path=str(path),
                               hint="run `oclgrind --inst-counts PROGRAM` and save what it prints")
    return pd.DataFrame(rows, columns=["kernel", "operation", "count", "opclass", "space", "bytes", "line"])


def instruction_mix(counts: pd.DataFrame) -> pd.DataFrame:
    """Counts per (kernel, opclass), largest first; phi nodes (no class) are left out."""
    c = counts.dropna(subset=["opclass"])
    mix = c.groupby(["kernel", "opclass"], sort=False)["count"].sum().reset_index()
    mix["share"] = mix["count"] / mix.groupby("kernel")["count"].transform("sum")
    return mix.sort_values(["kernel", "count", "opclass"], ascending=[True, False, True], ignore_index=True)
