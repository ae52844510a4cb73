"""Parsing iga64's text listing into one row per machine instruction.

iga64 ``-Xprint-pc`` prints each instruction as::

    /* [0040]  */ (W&f1.0) add (16|M16)  r15.0<1>:d  r6.1<0;1,0>:d  r11.0<8;8,1>:d  {Compacted} // comment

that is: byte offset, optional predicate (``W`` = write-enable, ignoring the
execution mask), opcode with an optional function (``math.sqt``), execution
size and channel offset, an optional condition modifier (``(lt)f0.0``),
destination and sources (each ``:type``), instruction options in braces, and
for ``send`` a decoded message description after ``//``.  Labels (``L272:``)
start basic blocks; so does the instruction after any control-flow one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PC = re.compile(r"^/\*\s*\[([0-9A-Fa-f]+)\]\s*\*/\s*(.*)$")
_LABEL = re.compile(r"^\s*(L\d+):\s*$")
_HEAD = re.compile(
    r"^(?:\((?P<pred>[^)]*)\)\s+)?(?P<op>[a-z][a-z0-9_]*)(?:\.(?P<fn>[a-z0-9_.]+))?"
    r"\s*(?:\((?P<es>\d+)(?:\|M(?P<mo>\d+))?\))?\s*(?P<rest>.*)$")
_CMOD = re.compile(r"^\((?:eq|ne|lt|le|gt|ge|o|u|ze|nz|ov)\)f\d+\.\d+\s*")
_TYPE = re.compile(r"[>\w\]]:(ud|d|uw|w|ub|b|uq|q|f|hf|df|v|uv|vf|bf)\b")
_REG = re.compile(r"\br(\d+)(?:\.(\d+))?(?:<[^>]*>)?(?::(\w+))?")
_OPTS = re.compile(r"\{([^}]*)\}\s*$")

#: Opcodes after which a new basic block begins (they may change the instruction pointer).
CONTROL_FLOW = frozenset({"jmpi", "if", "else", "endif", "while", "break", "cont", "halt", "call", "calla",
                          "ret", "goto", "join", "brc", "brd"})
TYPE_BYTES = {"ub": 1, "b": 1, "uw": 2, "w": 2, "hf": 2, "bf": 2, "ud": 4, "d": 4, "f": 4, "uq": 8,
              "q": 8, "df": 8, "v": 2, "uv": 2, "vf": 1}
GRF_BYTES = 32


@dataclass(frozen=True)
class ParsedInstruction:
    pc: int
    block: int
    op: str
    function: str            # ``math`` function, send's shared function unit, or ''
    exec_size: int
    channel_offset: int
    write_enable: bool       # ``(W)``: runs whatever the execution mask
    predicated: bool
    dst_type: str
    src_types: tuple[str, ...]
    options: tuple[str, ...]
    comment: str
    registers: tuple[int, ...]   # GRF numbers the operands touch
    text: str


def _split_comment(body: str) -> tuple[str, str]:
    idx = body.find("//")
    return (body[:idx], body[idx + 2:].strip()) if idx >= 0 else (body, "")


def _registers(operands: str, exec_size: int, op: str, comment: str) -> set[int]:
    """GRFs an instruction's operands span (an approximation from region and type)."""
    regs: set[int] = set()
    for m in _REG.finditer(operands):
        base = int(m.group(1))
        region = m.group(0)
        tbytes = TYPE_BYTES.get(m.group(3) or "d", 4)
        span = 1
        if "<0;1,0>" not in region and "<0>" not in region:
            span = max(1, -(-(exec_size * tbytes) // GRF_BYTES))
        regs.update(range(base, base + span))
    if op.startswith("send"):
        lens = re.search(r"wr:(\d+)h?\+(\d+),\s*rd:(\d+)", comment)
        names = _REG.findall(operands)
        if lens and names:
            rd, src0 = int(lens.group(3)), int(lens.group(1))
            dst_and_srcs = [int(n[0]) for n in names]
            if rd and "null" not in operands.split()[0:1]:
                regs.update(range(dst_and_srcs[0], dst_and_srcs[0] + rd))
            if len(dst_and_srcs) > 1:
                regs.update(range(dst_and_srcs[1], dst_and_srcs[1] + src0))
    return regs


def parse_listing(text: str) -> list[ParsedInstruction]:
    """Instructions of one kernel's listing, trailing padding (``illegal``) dropped."""
    out: list[ParsedInstruction] = []
    block = 0
    new_block = False
    for raw in text.splitlines():
        if _LABEL.match(raw):
            if out:
                new_block = True
            continue
        m = _PC.match(raw.strip())
        if not m:
            continue
        pc = int(m.group(1), 16)
        body, comment = _split_comment(m.group(2).strip())
        head = _HEAD.match(body.strip())
        if not head:
            continue
        op = head.group("op")
        if op == "illegal":
            continue
        if new_block:
            block += 1
            new_block = False
        pred = head.group("pred") or ""
        rest = _CMOD.sub("", head.group("rest") or "")
        opts_m = _OPTS.search(rest)
        options = tuple(o.strip() for o in opts_m.group(1).split(",")) if opts_m else ()
        operands = rest[:opts_m.start()] if opts_m else rest
        types = _TYPE.findall(operands)
        es = int(head.group("es") or 1)
        fn = head.group("fn") or ""
        out.append(ParsedInstruction(
            pc=pc, block=block, op=op, function=fn, exec_size=es,
            channel_offset=int(head.group("mo") or 0),
            write_enable=pred == "W" or pred.startswith("W&"),
            predicated=bool(pred) and pred != "W",
            dst_type=types[0] if types else "", src_types=tuple(types[1:]), options=options,
            comment=comment, registers=tuple(sorted(_registers(operands, es, op, comment))),
            text=" ".join(m.group(2).split())))
        if op in CONTROL_FLOW or "EOT" in options:
            new_block = True
    return out
