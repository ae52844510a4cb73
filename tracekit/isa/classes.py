"""What each machine instruction is: its group, the ALU class that prices it, its message.

Three labels per instruction:

* ``group``: float, int, math (extended-math unit), move (moves and
  conversions), logic (bit operations), compare (compares and selects),
  control (branches, joins, waits), send (messages to other units), other;
* ``opclass``: the trace vocabulary's class (docs/trace-format.md) that prices
  the instruction on the target's ``alu_cycles`` table -- ``fp32_fma`` for a
  float ``mad``, ``math_native_sqrt`` for ``math.sqt``, ``load`` for a read
  message, ``barrier`` for a barrier message;
* ``send_kind`` for messages: ``global`` (buffers through a binding-table
  surface or a stateless address), ``slm`` (binding-table index 254), ``atomic``,
  ``barrier``, ``scratch`` (register spill and fill), ``fence``, ``eot`` (end of
  thread), ``image`` (sampler), ``other``.

Message lengths come from iga64's decoded description (``wr:2+2, rd:2``: two
registers of address, two of data, two back), one register being 32 bytes.
"""

from __future__ import annotations

import re

from tracekit.isa.listing import GRF_BYTES, ParsedInstruction

FLOAT_TYPES = {"f": "fp32", "hf": "fp16", "bf": "fp16", "df": "fp64"}
INT64_TYPES = {"q", "uq"}
INT_TYPES = {"d", "ud", "w", "uw", "b", "ub", "q", "uq"}

GROUPS = ("float", "int", "math", "move", "logic", "compare", "control", "send", "other")
SEND_KINDS = ("global", "slm", "atomic", "barrier", "scratch", "fence", "eot", "image", "other")

_ADD = {"add", "addc", "subb", "avg", "add3"}
_MUL = {"mul", "mach", "mac", "macl"}
_FMA = {"mad", "madm", "lrp", "dp2", "dp3", "dp4", "dph", "line", "pln", "dp4a"}
_ROUND = {"frc", "rndd", "rnde", "rndu", "rndz"}
_LOGIC = {"and", "or", "xor", "not", "shl", "shr", "asr", "bfe", "bfi1", "bfi2", "bfrev", "cbit", "fbh",
          "fbl", "lzd", "ror", "rol", "bfn"}
_COMPARE = {"cmp", "cmpn", "csel", "sel"}
_MOVE = {"mov", "movi", "smov"}
_CONTROL = {"jmpi", "if", "else", "endif", "while", "break", "cont", "halt", "call", "calla", "ret",
            "goto", "join", "brc", "brd"}
_SEND = {"send", "sends", "sendc", "sendsc"}
#: Extended-math functions (iga64 spelling) -> the native builtin class that prices them.
MATH_FUNCTIONS = {"inv": "math_native_recip", "invm": "math_native_recip", "log": "math_native_log2",
                  "exp": "math_native_exp2", "sqt": "math_native_sqrt", "sqrt": "math_native_sqrt",
                  "rsq": "math_native_rsqrt", "rsqtm": "math_native_rsqrt", "sin": "math_native_sin",
                  "cos": "math_native_cos", "pow": "math_native_powr", "fdiv": "math_native_divide",
                  "idiv": "math_native_divide", "iqot": "math_native_divide", "irem": "math_native_divide"}
_LENGTHS = re.compile(r"wr:(\d+)(h?)\+(\d+),\s*rd:(\d+)")


def _type_of(ins: ParsedInstruction) -> str:
    """The type an operation works on: the first source's for compares, else the destination's."""
    if ins.op in _COMPARE and ins.src_types:
        return ins.src_types[0]
    return ins.dst_type or (ins.src_types[0] if ins.src_types else "")


def _arith(kind: str, t: str) -> dict:
    if t in FLOAT_TYPES:
        return {"group": "float", "opclass": f"{FLOAT_TYPES[t]}_{kind}"}
    wide = "int64" if t in INT64_TYPES else "int"
    return {"group": "int", "opclass": f"{wide}_{'mul' if kind == 'fma' else kind}"}


def send_kind(ins: ParsedInstruction, descriptor: int | None) -> str:
    c = ins.comment.lower()
    if "EOT" in ins.options or "end of thread" in c:
        return "eot"
    if "scratch" in c:
        return "scratch"
    if "barrier" in c:
        return "barrier"
    if "fence" in c:
        return "fence"
    if "atomic" in c:
        return "atomic"
    if "sampler" in c:
        return "image"
    if "hdc" in c or "dc0" in c or "dc1" in c or "dc2" in c or "data cache" in c:
        return "slm" if descriptor is not None and descriptor & 0xFF == 0xFE else "global"
    return "other"


def _descriptor(text: str) -> int | None:
    """The message descriptor: the last hexadecimal immediate before the comment."""
    body = text.split("//", 1)[0]
    found = re.findall(r"\b0x([0-9A-Fa-f]+)\b", body)
    return int(found[-1], 16) if found else None


def message_bytes(ins: ParsedInstruction, kind: str) -> tuple[int, int]:
    """Bytes a message brings back and sends out as data (address registers excluded)."""
    m = _LENGTHS.search(ins.comment)
    if not m:
        return 0, 0
    src1, back = int(m.group(3)), int(m.group(4))
    read = back * GRF_BYTES
    written = src1 * GRF_BYTES if kind not in ("barrier", "eot", "fence") else 0
    return read, written


def classify(ins: ParsedInstruction) -> dict:
    """Labels of one instruction: group, opclass, send_kind, bti, bytes_read, bytes_written."""
    op, t = ins.op, _type_of(ins)
    out = {"send_kind": "", "bti": -1, "bytes_read": 0, "bytes_written": 0}
    if op in _SEND:
        desc = _descriptor(ins.text)
        kind = send_kind(ins, desc)
        read, written = message_bytes(ins, kind)
        c = ins.comment.lower()
        if kind in ("barrier", "fence"):
            opclass = "barrier"
        elif kind == "eot":
            opclass = "other"
        elif kind == "atomic":
            opclass = "atomic"
        elif "write" in c or (written and not read):
            opclass = "store"
        else:
            opclass = "load"
        out.update(group="send", opclass=opclass, send_kind=kind, bytes_read=read, bytes_written=written,
                   bti=(desc & 0xFF) if desc is not None and kind in ("global", "slm", "atomic") else -1)
        return out
    if op == "math":
        out.update(group="math", opclass=MATH_FUNCTIONS.get(ins.function, "math_default"))
    elif op in _ADD:
        out.update(_arith("add", t))
    elif op in _MUL:
        out.update(_arith("mul", t))
    elif op in _FMA:
        out.update(_arith("fma", t))
    elif op in _ROUND:
        out.update(_arith("add", t))
    elif op in _LOGIC:
        out.update(group="logic", opclass="bitwise")
    elif op in _COMPARE:
        out.update(group="compare", opclass="compare")
    elif op in _MOVE:
        src = ins.src_types[0] if ins.src_types else ins.dst_type
        same = src == ins.dst_type or {src, ins.dst_type} <= {"d", "ud"} or {src, ins.dst_type} <= {"q", "uq"}
        out.update(group="move", opclass="other" if same else "convert")
    elif op in _CONTROL:
        out.update(group="control", opclass="branch")
    elif op in ("wait", "sync"):
        out.update(group="control", opclass="barrier")
    elif op == "nop":       # a scheduling bubble the compiler inserts
        out.update(group="control", opclass="other")
    else:
        out.update(group="other", opclass="other")
    return out


def logical_weight(ins: ParsedInstruction, simd_width: int) -> float:
    """Share of one SIMD-wide operation this instruction is.

    A SIMD32 kernel issues most operations as two SIMD16 halves (``(16|M0)`` and
    ``(16|M16)``); each half counts 0.5 so that one source operation counts once
    whatever width the compiler chose.  Write-enabled scalar work counts 1.
    """
    if ins.write_enable or ins.exec_size >= simd_width or ins.exec_size <= 1:
        return 1.0
    return ins.exec_size / simd_width


def ir_group_of(group: str, opclass: str, kind: str) -> str:
    """The IR instruction group (analyzers.machine_code.ir_group) whose work a machine instruction does.

    Moves without conversion and end-of-thread messages have no IR counterpart: ``other``.
    """
    if group in ("float", "int", "math", "logic", "compare"):
        return group
    if group == "move":
        return "convert" if opclass == "convert" else "other"
    if group == "control":
        return "barrier" if opclass == "barrier" else "control"
    if group == "send":
        if kind in ("barrier", "fence"):
            return "barrier"
        return "other" if kind == "eot" else "memory"
    return "other"
