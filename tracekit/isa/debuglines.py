"""Source lines of machine instructions, from the ``.dbg`` file of a ``-g`` build.

With ``-g``, ocloc (patch-token container) writes ``<name>.dbg`` beside the
binary: a small header, then per kernel its name and an ELF image whose
``.text`` is the kernel's machine code and whose ``.debug_line`` is an ordinary
DWARF line table over byte offsets into that code.  The header is seven 32-bit
words (magic ``CTNI``, version, device, stepping, pointer size and reserved
words, number of kernels); each kernel then has three words (name size, ELF
size, a second debug blob's size), the name padded to its size, the ELF and the
second blob.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass

from elftools.common.exceptions import DWARFError, ELFError
from elftools.elf.elffile import ELFFile

MAGIC = b"CTNI"
_HEADER = struct.Struct("<7I")
_KERNEL = struct.Struct("<3I")


@dataclass(frozen=True)
class LineRow:
    """One row of a line table: from byte ``address`` on, code comes from ``file:line:column``."""

    address: int
    file: str
    line: int
    column: int


@dataclass(frozen=True)
class KernelLines:
    name: str
    code: bytes              # the kernel's machine code as the debug image holds it
    rows: tuple[LineRow, ...]


def _rows(elf: ELFFile) -> list[LineRow]:
    if not elf.has_dwarf_info():
        return []
    # Relocations would move addresses by the kernel's load address, which is 0 here;
    # pyelftools does not know the Intel GPU machine type, so leave them unapplied.
    dwarf = elf.get_dwarf_info(relocate_dwarf_sections=False)
    rows = []
    for cu in dwarf.iter_CUs():
        prog = dwarf.line_program_for_CU(cu)
        if prog is None:
            continue
        files = [e.name.decode("utf-8", "replace") for e in prog["file_entry"]]
        for entry in prog.get_entries():
            st = entry.state
            if st is None or st.end_sequence:
                continue
            name = files[st.file - 1] if 0 < st.file <= len(files) else ""
            rows.append(LineRow(int(st.address), name, int(st.line), int(st.column)))
    rows.sort(key=lambda r: r.address)
    return rows


def read_debug_lines(data: bytes) -> dict[str, KernelLines]:
    """Kernel name -> its code and line table.  An unreadable file gives {} (lines unknown)."""
    if len(data) < _HEADER.size or data[:4] != MAGIC:
        return {}
    count = _HEADER.unpack_from(data, 0)[6]
    off = _HEADER.size
    out: dict[str, KernelLines] = {}
    for _ in range(count):
        if off + _KERNEL.size > len(data):
            break
        name_size, elf_size, extra = _KERNEL.unpack_from(data, off)
        off += _KERNEL.size
        name = data[off:off + name_size].split(b"\0", 1)[0].decode("utf-8", "replace")
        off += name_size
        image = data[off:off + elf_size]
        off += elf_size + extra
        try:
            elf = ELFFile(io.BytesIO(image))
            text = elf.get_section_by_name(".text")
            out[name] = KernelLines(name, text.data() if text is not None else b"", tuple(_rows(elf)))
        except (ELFError, DWARFError, struct.error, ValueError):
            continue
    return out
