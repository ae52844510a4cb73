"""Build a kernel source with ocloc for one device and describe every kernel's machine code.

Two builds of the same source with the same options: a zebin (its ``.ze_info``
gives the SIMD width, registers and scratch of each kernel) and a ``-g``
patch-token build whose ``.dbg`` file maps code offsets to source lines.  ``-g``
leaves the machine code as it is; each kernel's two copies are compared byte for
byte, and a kernel whose copies differ keeps its listing but is mapped to basic
blocks only (``line_mapping = "basic_block"``).
"""

from __future__ import annotations

import bisect
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from tracekit.isa import described, tools
from tracekit.isa.classes import classify, logical_weight
from tracekit.isa.kernel import INSTRUCTION_COLUMNS, KernelISA
from tracekit.isa.listing import parse_listing

if TYPE_CHECKING:
    from tracekit.isa.debuglines import KernelLines

__all__ = ["INSTRUCTION_COLUMNS", "KernelISA", "compile_source", "compiler_version", "describe_kernel"]

@lru_cache(maxsize=1)
def compiler_version() -> str:
    """``ocloc <driver version>`` as ``ocloc query`` reports it (``ocloc`` when it does not)."""
    ocloc = tools.find_tool("ocloc")
    with tempfile.TemporaryDirectory(prefix="tracekit-ocloc-") as tmp:
        subprocess.run([ocloc, "query", "OCL_DRIVER_VERSION"], cwd=tmp, capture_output=True, timeout=60)
        f = Path(tmp) / "OCL_DRIVER_VERSION"
        version = f.read_text(errors="replace").strip(" \0\n\t") if f.is_file() else ""
    return f"ocloc {version}".strip()


def _line_of(lines: KernelLines | None, pcs: list[int]) -> list[tuple[str | None, int | None, int | None]]:
    if lines is None or not lines.rows:
        return [(None, None, None)] * len(pcs)
    addrs = [r.address for r in lines.rows]
    out = []
    for pc in pcs:
        i = bisect.bisect_right(addrs, pc) - 1
        r = lines.rows[i] if i >= 0 else None
        out.append((r.file, r.line, r.column) if r is not None and r.line > 0 else (None, None, None))
    return out


def _same_code(debug: bytes, code: bytes) -> bool:
    """The debug image's code equals the kernel's, up to the zero padding at the end."""
    return bool(debug) and code[:len(debug)] == debug and not code[len(debug):].strip(b"\0")


def describe_kernel(info, lines: KernelLines | None, platform: str, device: str, options: str,
                    compiler: str) -> KernelISA:
    """Disassemble one kernel and label every instruction (class, message, source line)."""
    parsed = parse_listing(tools.iga_disassemble(info.code, platform))
    mapped = lines is not None and _same_code(lines.code, info.code)
    where = _line_of(lines if mapped else None, [p.pc for p in parsed])
    rows = []
    prev: dict[int, tuple] = {}
    for ins, (file, line, col) in zip(parsed, where, strict=True):
        if line is None and ins.block in prev:      # no line of its own: the block's previous one
            file, line, col = prev[ins.block]
        if line is not None:
            prev[ins.block] = (file, line, col)
        c = classify(ins)
        rows.append({"pc": ins.pc, "block": ins.block, "op": ins.op, "function": ins.function,
                     "exec_size": ins.exec_size, "channel_offset": ins.channel_offset,
                     "write_enable": ins.write_enable, "dst_type": ins.dst_type, **c,
                     "weight": logical_weight(ins, info.simd_width), "file": file, "line": line,
                     "column": col, "text": ins.text})
    used = set()
    for ins in parsed:
        used.update(ins.registers)
    return KernelISA(device=device, kernel=info.name, build_options=options, compiler=compiler,
                     simd_width=info.simd_width, grf_count=info.grf_count,
                     grf_used=len([r for r in used if r < max(info.grf_count, 1)]),
                     slm_bytes=info.slm_bytes, barrier_count=info.barrier_count,
                     scratch_bytes=info.scratch_bytes, private_memory=info.private_memory,
                     line_mapping="source_line" if mapped and lines.rows else "basic_block",
                     listing=rows)


def compile_source(source_text: str, device: str, platform: str, *, options: str = "",
                   source_name: str = "kernel.cl", kernels: list[str] | None = None) -> list[KernelISA]:
    """Every kernel of ``source_text`` (or those named in ``kernels``) built for ``device``.

    Raises :class:`~tracekit.errors.MissingToolError` without ocloc/iga64 and
    :class:`~tracekit.isa.tools.IsaCompileError` (with the build log) when the
    source does not build.  The described kernels are kept (:mod:`.described`): the
    same build asked for again is read back instead of disassembled again.
    """
    tools.find_tool("ocloc")
    tools.find_tool("iga64")
    kept = described.entry(source_text, device, platform, options, source_name, kernels)
    found = described.load(kept)
    if found is None:
        found = _build_and_describe(source_text, device, platform, options, source_name, kernels)
        described.keep(kept, found)
    return found


def _build_and_describe(source_text: str, device: str, platform: str, options: str, source_name: str,
                        kernels: list[str] | None) -> list[KernelISA]:
    # the ELF and YAML readers load only when a build is described, not when it is read back
    from tracekit.isa.debuglines import read_debug_lines
    from tracekit.isa.zebin import read_zebin

    name = Path(source_name).name or "kernel.cl"
    with tools.scratch_dir() as tmp:
        root = Path(tmp)
        src = root / name
        src.write_text(source_text)
        (root / "zebin").mkdir()
        (root / "debug").mkdir()
        with ThreadPoolExecutor(max_workers=2) as pool:  # the two builds are independent: run both at once
            zebin = pool.submit(tools.ocloc_compile, src, device, options, root / "zebin", zebin=True,
                                source_name=source_name)
            debug = pool.submit(tools.ocloc_compile, src, device, options, root / "debug", zebin=False,
                                debug=True, source_name=source_name)
            binary, dbg_bin = zebin.result(), debug.result()
        infos = read_zebin(binary.read_bytes(), path=str(binary))
        dbg_files = sorted(dbg_bin.parent.glob("*.dbg"))
        lines = read_debug_lines(dbg_files[0].read_bytes()) if dbg_files else {}
        compiler = compiler_version()
        return [describe_kernel(info, lines.get(info.name), platform, device, options, compiler)
                for info in infos if kernels is None or info.name in kernels]
