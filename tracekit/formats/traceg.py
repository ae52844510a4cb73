"""Accel-Sim / NVBit ``.traceg`` kernel traces -> trace v1.

A ``.traceg`` file is one kernel launch as the Accel-Sim NVBit tracer writes it
after its post-processing step: ``-key = value`` header lines, a ``#traces
format`` line, then per thread block ``#BEGIN_TB`` / ``thread block = x,y,z`` /
``warp = N`` / ``insts = N`` / one line per executed warp instruction /
``#END_TB``.  An instruction line is::

    [tb_x tb_y tb_z warp]  [line]  PC  MASK  NDST [R..]  OPCODE  NSRC [R..]  WIDTH  [MODE ADDRS...]  [IMM]

with the thread-block prefix only in tracer versions before 3, the source line
only when ``-enable lineinfo = 1``, and the trailing immediate only in newer
tracers.  WIDTH is the access size in bytes (0: not a memory instruction).
Addresses come in one of three encodings: 0 lists one hex address per active
lane; 1 gives a hex base and a decimal stride between consecutive active
lanes; 2 gives a hex base and one decimal delta per further active lane, each
relative to the previous lane's address.

Output: ``accesses`` (one row per active lane of a memory instruction),
``instructions`` (per lane and PC: how often it executed), ``launches`` and
``sites`` (one per PC; ``site = PC / instruction size``).  A warp's lanes are
work-items ``warp * 32 + lane`` of the block, blocks are work-groups with
x fastest.  Parsing is strict: a malformed line raises
:class:`~tracekit.errors.TraceFormatError` naming the file and line.
"""

from __future__ import annotations

import json
import lzma
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tracekit.errors import TraceFormatError
from tracekit.files import check_input
from tracekit.formats import sass

WARP = 32
_DIM3 = re.compile(r"^\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$")
_REQUIRED = ("kernel name", "grid dim", "block dim")


@dataclass
class KernelHeader:
    """The ``-key = value`` lines of one ``.traceg`` file."""

    values: dict[str, str] = field(default_factory=dict)

    def dim3(self, key: str, path, line: int) -> tuple[int, int, int]:
        m = _DIM3.match(self.values[key])
        if not m:
            raise TraceFormatError(f"line {line}: '-{key}' should be (x,y,z), got '{self.values[key]}'",
                                   path=path)
        return tuple(int(v) for v in m.groups())

    def integer(self, key: str, default: int = 0) -> int:
        text = self.values.get(key, "").split("#", 1)[0].strip()
        try:
            return int(text, 0)
        except ValueError:
            return default


@dataclass
class _Instr:
    pc: int
    mask: int
    opcode: str
    width: int
    addrs: list[int] | None
    line: int | None


class _Lines:
    """The text lines of a plain or xz-compressed file; a damaged or cut-short xz stream is
    reported as bad input naming the file, not as the decompressor's own exception."""

    def __init__(self, path: Path):
        self.path = check_input(path, kind=".traceg file", dirs=False)
        xz = path.suffix == ".xz"
        self._fh = (lzma.open(path, "rt", encoding="utf-8", errors="replace") if xz
                    else open(path, encoding="utf-8", errors="replace"))

    def readline(self) -> str:
        try:
            return self._fh.readline()
        except lzma.LZMAError as exc:
            raise TraceFormatError(f"is not valid xz-compressed data ({exc})", path=self.path) from None
        except EOFError:
            raise TraceFormatError("the xz-compressed data ends early: the file is truncated",
                                   path=self.path) from None
        except OSError as exc:
            raise TraceFormatError(f"cannot be read ({exc.strerror or exc})", path=self.path) from None

    def __iter__(self) -> Iterator[str]:
        while text := self.readline():
            yield text

    def close(self) -> None:
        self._fh.close()


#: Addresses are unsigned 64-bit.
_ADDRESS_END = 1 << 64


def _hex(tok: str, what: str, path, line: int) -> int:
    try:
        value = int(tok, 16)
    except ValueError:
        raise TraceFormatError(f"line {line}: {what} '{tok}' is not a hexadecimal number",
                               path=path) from None
    if not 0 <= value < _ADDRESS_END:
        raise TraceFormatError(f"line {line}: {what} '{tok}' is outside 0 .. 0xffffffffffffffff",
                               path=path)
    return value


def _dec(tok: str, what: str, path, line: int) -> int:
    try:
        return int(tok, 10)
    except ValueError:
        raise TraceFormatError(f"line {line}: {what} '{tok}' is not a decimal number",
                               path=path) from None


def parse_instruction(text: str, *, version: int, lineinfo: bool, path, line: int) -> _Instr:
    """One warp-instruction line; raises TraceFormatError naming ``path`` and ``line``."""
    tok = text.split()
    i = 4 if version < 3 else 0
    src_line = None
    if lineinfo:
        src_line = _dec(tok[i], "source line", path, line) if i < len(tok) else None
        i += 1
    try:
        pc = _hex(tok[i], "PC", path, line)
        mask = _hex(tok[i + 1], "active mask", path, line)
        if mask >> WARP:
            raise TraceFormatError(f"line {line}: active mask '{tok[i + 1]}' has more than 32 bits",
                                   path=path)
        ndst = _dec(tok[i + 2], "destination count", path, line)
        i += 3 + ndst
        opcode = tok[i]
        nsrc = _dec(tok[i + 1], "source count", path, line)
        i += 2 + nsrc
        width = _dec(tok[i], "memory width", path, line)
        i += 1
        if width > 0xFFFF or pc >= 1 << 31:
            what = (f"memory width {width} is above 65535" if width > 0xFFFF
                    else f"PC {pc:#x} is above 0x7fffffff")
            raise TraceFormatError(f"line {line}: {what}", path=path)
    except IndexError:
        raise TraceFormatError(f"line {line}: instruction line ends early: '{text.strip()}'",
                               path=path) from None
    addrs = None
    if width > 0:
        addrs, i = _addresses(tok, i, mask, path, line)
        if addrs and (min(addrs) < 0 or max(addrs) >= _ADDRESS_END):
            bad = min(addrs) if min(addrs) < 0 else max(addrs)
            raise TraceFormatError(f"line {line}: a lane's address comes out as {bad}, outside 0 .. 2^64-1 "
                                   "(the stride or deltas do not fit the base address)", path=path)
    if len(tok) - i > 1:  # at most the immediate may follow
        raise TraceFormatError(f"line {line}: {len(tok) - i} unexpected value(s) after the addresses",
                               path=path)
    return _Instr(pc, mask, opcode, width, addrs, src_line)


def _addresses(tok: list[str], i: int, mask: int, path, line: int) -> tuple[list[int], int]:
    active = bin(mask).count("1")
    try:
        mode = _dec(tok[i], "address encoding", path, line)
        i += 1
        if mode == 0:
            addrs = [_hex(t, "address", path, line) for t in tok[i:i + active]]
            if len(addrs) < active:
                raise IndexError
            return addrs, i + active
        if mode == 1:
            base = _hex(tok[i], "base address", path, line)
            stride = _dec(tok[i + 1], "stride", path, line)
            return [base + k * stride for k in range(active)], i + 2
        if mode == 2:
            base = _hex(tok[i], "base address", path, line)
            deltas = [_dec(t, "address delta", path, line) for t in tok[i + 1:i + active]]
            if len(deltas) < max(active - 1, 0):
                raise IndexError
            addrs = [base]
            for d in deltas:
                addrs.append(addrs[-1] + d)
            addrs = addrs if active else []
            return addrs, i + max(active, 1)
    except IndexError:
        raise TraceFormatError(f"line {line}: the addresses end early (mask has {active} active lanes)",
                               path=path) from None
    raise TraceFormatError(f"line {line}: unknown address encoding {mode} (expected 0 = list, "
                           "1 = base+stride, 2 = base+deltas)", path=path)


@dataclass
class _Block:
    """One thread block's instructions, gathered warp by warp."""

    coords: tuple[int, int, int]
    start_line: int
    warps: dict[int, list[_Instr]] = field(default_factory=dict)


class TracegReader:
    """Streams one ``.traceg`` file block by block (see module docstring)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.header = KernelHeader()
        self._fh = _Lines(self.path)
        self._lineno = 0
        self._pending: str | None = None
        self._read_header()

    def close(self) -> None:
        self._fh.close()

    def _next(self) -> str | None:
        if self._pending is not None:
            text, self._pending = self._pending, None
            return text
        text = self._fh.readline()
        if not text:
            return None
        self._lineno += 1
        return text

    def _read_header(self) -> None:
        while (text := self._next()) is not None:
            s = text.strip()
            if not s:
                continue
            if s.startswith("-"):
                key, eq, value = s[1:].partition("=")
                if not eq:
                    raise TraceFormatError(f"line {self._lineno}: header line '{s}' has no '='",
                                           path=self.path)
                self.header.values[" ".join(key.split())] = value.strip()
                continue
            if s.startswith("#") and not s.startswith("#BEGIN_TB"):
                continue  # '#traces format = ...'
            self._pending = text
            break
        missing = [k for k in _REQUIRED if k not in self.header.values]
        if missing:
            raise TraceFormatError(
                f"line {self._lineno}: not an Accel-Sim .traceg file: the header has no "
                + ", ".join(f"'-{k} = ...'" for k in missing) + " line", path=self.path)
        self.grid = self.header.dim3("grid dim", self.path, self._lineno)
        self.block = self.header.dim3("block dim", self.path, self._lineno)
        self.version = self.header.integer("accelsim tracer version", 3)
        self.lineinfo = self.header.integer("enable lineinfo", 0) == 1
        self.threads = int(np.prod(self.block))

    def blocks(self) -> Iterator[_Block]:
        """Yield thread blocks in file order; checks warp instruction counts."""
        blk: _Block | None = None
        warp, want, got = None, 0, 0

        def close_warp(at: int) -> None:
            if warp is not None and got != want:
                raise TraceFormatError(f"line {at}: warp {warp} of thread block {blk.coords} declares "
                                       f"insts = {want} but has {got} instruction line(s)", path=self.path)

        while (text := self._next()) is not None:
            s = text.strip()
            if not s:
                continue
            n = self._lineno
            if s.startswith("#BEGIN_TB"):
                if blk is not None:
                    raise TraceFormatError(f"line {n}: #BEGIN_TB before the thread block opened at line "
                                           f"{blk.start_line} was closed with #END_TB", path=self.path)
                blk, warp = _Block((-1, -1, -1), n), None
            elif s.startswith("#END_TB"):
                if blk is None:
                    raise TraceFormatError(f"line {n}: #END_TB without #BEGIN_TB", path=self.path)
                close_warp(n)
                if blk.coords[0] < 0:
                    raise TraceFormatError(f"line {n}: thread block opened at line {blk.start_line} has "
                                           "no 'thread block = x,y,z' line", path=self.path)
                yield blk
                blk, warp = None, None
            elif blk is None:
                raise TraceFormatError(f"line {n}: '{s[:40]}' outside a #BEGIN_TB ... #END_TB block",
                                       path=self.path)
            elif s.startswith("thread block"):
                blk.coords = self._coords(s, n)
            elif s.startswith("cluster"):
                continue  # Hopper cluster ids: not part of trace v1
            elif s.startswith("warp"):
                close_warp(n)
                warp = _dec(s.partition("=")[2].strip(), "warp id", self.path, n)
                if warp * WARP >= self.threads:
                    raise TraceFormatError(f"line {n}: warp {warp} does not exist in a block of "
                                           f"{self.threads} threads", path=self.path)
                want, got = 0, 0
                blk.warps[warp] = []
            elif s.startswith("insts"):
                want = _dec(s.partition("=")[2].strip(), "instruction count", self.path, n)
            else:
                if warp is None:
                    raise TraceFormatError(f"line {n}: instruction before any 'warp = N' line",
                                           path=self.path)
                ins = parse_instruction(s, version=self.version, lineinfo=self.lineinfo,
                                        path=self.path, line=n)
                blk.warps[warp].append(ins)
                got += 1
        if blk is not None:
            raise TraceFormatError(f"line {self._lineno}: the file ends inside the thread block opened at "
                                   f"line {blk.start_line} (no #END_TB): the trace is truncated",
                                   path=self.path)

    def _coords(self, s: str, n: int) -> tuple[int, int, int]:
        parts = s.partition("=")[2].split(",")
        if len(parts) != 3:
            raise TraceFormatError(f"line {n}: expected 'thread block = x,y,z', got '{s}'", path=self.path)
        xyz = tuple(_dec(p.strip(), "thread block index", self.path, n) for p in parts)
        if any(c >= g for c, g in zip(xyz, self.grid, strict=True)):
            raise TraceFormatError(f"line {n}: thread block {xyz} is outside the grid {self.grid}",
                                   path=self.path)
        return xyz


def _inst_bytes(binary_version: int) -> int:
    return 16 if binary_version == 0 or binary_version >= 70 else 8


@dataclass
class KernelState:
    """What is learnt about one kernel while its blocks stream by: sites and memory kinds."""

    sites: dict[int, tuple[str, int | None]] = field(default_factory=dict)
    kinds: list[tuple[str, str]] = field(default_factory=list)
    kind_bases: list[int] = field(default_factory=list)
    _kind_of: dict[str, int | None] = field(default_factory=dict)

    def kind(self, opcode: str, reader: TracegReader) -> int | None:
        """Index of the (space, op) pair of a memory opcode; None when it accesses no data."""
        if opcode in self._kind_of:
            return self._kind_of[opcode]
        space, op = sass.space_of(opcode), sass.op_of(opcode)
        k = None
        if space is not None and op is not None:
            if (space, op) not in self.kinds:
                self.kinds.append((space, op))
                base = {"local": "shmem base_addr", "private": "local mem base_addr"}.get(space)
                self.kind_bases.append(reader.header.integer(base, 0) if base else 0)
            k = self.kinds.index((space, op))
        self._kind_of[opcode] = k
        return k


def add_block(chunk, blk: _Block, reader: TracegReader, state: KernelState, inst_bytes: int) -> None:
    """Append one block's warp instructions to ``chunk`` (see traceg_chunk)."""
    gx, gy, _ = reader.grid
    group = blk.coords[0] + blk.coords[1] * gx + blk.coords[2] * gx * gy
    for warp, instrs in blk.warps.items():
        for ins in instrs:
            site = ins.pc // inst_bytes
            if site not in state.sites:
                state.sites[site] = (ins.opcode, ins.line)
            if not ins.mask:
                continue
            chunk.ins_group.append(group)
            chunk.ins_warp.append(warp)
            chunk.ins_mask.append(ins.mask)
            chunk.ins_site.append(site)
            if ins.addrs is None:
                continue
            k = state.kind(ins.opcode, reader)
            if k is None:
                continue  # e.g. a prefetch: addresses but no data access
            chunk.mem_group.append(group)
            chunk.mem_warp.append(warp)
            chunk.mem_mask.append(ins.mask)
            chunk.mem_site.append(site)
            chunk.mem_width.append(ins.width)
            chunk.mem_kind.append(k)
            chunk.addrs.extend(ins.addrs)


def launch_row(reader: TracegReader, kernel: str, launch: int, groups_seen: int) -> dict:
    """The launches-table row; records thread-block sampling when the file holds fewer blocks."""
    h = reader.header
    total = int(np.prod(reader.grid))
    meta = {
        "source_format": "accelsim-traceg", "source_file": reader.path.name,
        "kernel_id": h.integer("kernel id", launch + 1), "cuda_stream_id": h.values.get("cuda stream id"),
        "binary_version": h.integer("binary version", 0), "nvbit_version": h.values.get("nvbit version"),
        "tracer_version": reader.version, "num_groups": list(reader.grid),
    }
    if groups_seen < total:
        meta["sampling"] = {"mode": "subset", "groups_recorded": groups_seen, "total_groups": total,
                            "scale": total / max(groups_seen, 1)}
    bv = h.integer("binary version", 0)
    return {
        "kernel": kernel, "launch": launch,
        "global_size": [g * b for g, b in zip(reader.grid, reader.block, strict=True)],
        "local_size": list(reader.block), "local_mem_bytes": h.integer("shmem", 0),
        "build_options": None, "device": f"NVIDIA sm_{bv}" if bv else "NVIDIA (NVBit trace)",
        "source": None, "registers_per_item": h.integer("nregs", 0) or None,
        "metadata": json.dumps(meta, sort_keys=True),
    }
