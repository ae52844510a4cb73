"""NVIDIA SASS listings by instruction role: the machine side of the IR-to-machine factors.

The recorder gives every LLVM IR instruction a role (tracekit/recorder/roles.h):
``address`` (its value only feeds memory addresses), ``loop`` (loop control) or
none.  This module gives SASS instructions the same roles by the same rule, from
the listing's own def-use chains, so that the instructions nvcc made for each role
can be counted against the IR's (docs/calibration.md, "Instruction counts and
latency"):

* a *def-use* graph over registers (``R``, ``UR``, predicates), by reaching
  definitions over the listing's control flow (branch targets, fall-through,
  ``EXIT``); a predicated instruction may not run, so its definition does not hide
  earlier ones;
* ``address``: the largest set of value-producing, non-memory instructions every
  use of which is an address operand (a register inside ``[...]`` of a memory
  instruction, or a descriptor ``desc[UR]``) or another instruction of the set;
  ``indirect`` those of them that read a loaded value, directly or through other
  address instructions (a gather's index, a pointer chase);
* loops are the backward branches; their *loop branches* are the backward branch
  and every branch inside the loop's range that leaves it; ``loop`` is the largest
  set of the remaining candidates every use of which is a loop branch's guard, an
  address instruction or another loop instruction; the loop branches are ``loop``.

Every other instruction keeps no role and is counted in the IR group
(:func:`analyzers.machine_code.ir_group` names) of the work it does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import pandas as pd

_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_FUNC = re.compile(r"Function\s*:\s*(\S+)")
_REG = re.compile(r"(?<![A-Za-z0-9_])(UR\d+|URZ|UPT|UP\d|R\d+|RZ|PT|P\d)(\.64|\.128)?")
_GUARD = re.compile(r"^@(!?)(U?P\d|U?PT)\s+")

#: Opcodes (before the first '.') that read or write memory through an address operand.
MEMORY_OPS = {"LDG", "STG", "LDS", "STS", "LD", "ST", "LDL", "STL", "ATOM", "ATOMG", "ATOMS", "RED",
              "REDG", "LDSM", "LDGSTS", "SULD", "SUST", "TLD", "TEX"}
#: Opcodes that write no register.
NO_DEST = {"STG", "STS", "ST", "STL", "RED", "REDG", "BRA", "EXIT", "BAR", "BSSY", "BSYNC", "NOP",
           "WARPSYNC", "CALL", "RET", "MEMBAR", "ERRBAR", "CCTL", "DEPBAR", "YIELD", "KILL", "BPT",
           "BREAK", "JMP", "SUST", "FENCE"}
#: Opcodes whose first two operands are predicate destinations.
SETP = {"ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "UISETP", "PLOP3", "UPLOP3", "FCHK"}
BRANCHES = {"BRA", "EXIT", "JMP", "BREAK", "RET", "CALL"}
#: Opcode -> IR group of the work it does (analyzers.machine_code.ir_group names).
GROUP = {}
for _g, _ops in {
    "float": "FADD FMUL FFMA FMNMX HADD2 HMUL2 HFMA2 DADD DMUL DFMA FSWZADD FRND",
    "math": "MUFU",
    "int": "IADD3 IADD IMAD IMUL LEA IABS POPC FLO BREV VIADD UIADD3 UIMAD ULEA IDP IMNMX VIMNMX",
    "logic": "LOP3 LOP SHF SHL SHR PRMT ULOP3 USHF BMSK SGXT UPRMT USGXT UBMSK",
    "compare": "ISETP FSETP DSETP HSETP2 SEL FSEL PLOP3 UISETP USEL UPLOP3 FSET PSETP FCHK",
    "convert": "I2F F2I F2F I2I F2FP I2FP",
    "control": "BRA EXIT BSSY BSYNC CALL RET WARPSYNC BREAK YIELD JMP",
    "memory": " ".join(sorted(MEMORY_OPS)),
    "barrier": "BAR MEMBAR ERRBAR DEPBAR CCTL FENCE",
}.items():
    GROUP.update({op: _g for op in _ops.split()})


@dataclass
class Instruction:
    """One SASS instruction: position, text and what it reads and writes."""

    pc: int
    text: str
    opcode: str                  # full, with modifiers (``IMAD.WIDE.U32``)
    guard: str | None            # the predicate register that guards it, if any
    dests: list[str] = field(default_factory=list)
    uses: list[str] = field(default_factory=list)        # registers read (guard included)
    address_uses: set[str] = field(default_factory=set)  # of ``uses``: inside an address operand
    target: int | None = None    # branch target pc

    @property
    def base(self) -> str:
        return self.opcode.split(".", 1)[0]

    @property
    def is_memory(self) -> bool:
        return self.base in MEMORY_OPS or (self.base in ("LDC", "ULDC") and bool(self.address_uses))


def _widen(reg: str, suffix: str | None) -> list[str]:
    """``R4.64`` -> R4, R5; zero registers and the true predicate are no registers."""
    if reg in ("RZ", "URZ", "PT", "UPT"):
        return []
    n = {".64": 2, ".128": 4}.get(suffix or "", 1)
    if n == 1:
        return [reg]
    m = re.match(r"(U?R)(\d+)", reg)
    return [f"{m.group(1)}{int(m.group(2)) + k}" for k in range(n)] if m else [reg]


def _dest_width(opcode: str) -> str | None:
    mods = opcode.split(".")[1:]
    if "128" in mods:
        return ".128"
    if "64" in mods or "WIDE" in mods or opcode.startswith(("D", "CS2R")) and not opcode.startswith("DSETP"):
        return ".64"
    return None


def parse_instruction(pc: int, text: str) -> Instruction:
    """One instruction from its listing text (``@!P0 BRA 0xba0``, ``LDG.E R12, desc[UR8][R4.64+0x4]``)."""
    text = text.strip().rstrip(";").strip()
    guard = None
    g = _GUARD.match(text)
    if g:
        guard = g.group(2)
        text = text[g.end():]
    opcode, _, rest = text.partition(" ")
    ins = Instruction(pc, text, opcode, None if guard in ("PT", "UPT") else guard)
    ops = [o.strip() for o in rest.split(",")] if rest.strip() else []
    base = ins.base
    n_dest = 0
    if base in SETP:
        n_dest = 2
    elif base not in NO_DEST and ops:
        # leading predicates, the destination register, then carry-out predicates
        while n_dest < len(ops) and re.fullmatch(r"!?U?P(\d|T)", ops[n_dest]):
            n_dest += 1
        if n_dest < len(ops) and re.fullmatch(r"U?R(\d+|Z)(\.\w+)*", ops[n_dest]):
            n_dest += 1
            if base not in ("VOTE", "VOTEU", "SEL", "FSEL", "USEL"):
                while n_dest < len(ops) and re.fullmatch(r"U?P(\d|T)", ops[n_dest]):
                    n_dest += 1
    for op in ops[:n_dest]:
        m = _REG.search(op)
        if m:
            width = _dest_width(opcode) if m.group(1).startswith(("R", "UR")) else None
            ins.dests += _widen(m.group(1), width)
    memory = base in MEMORY_OPS or base in ("LDC", "ULDC")
    for k, op in enumerate(ops[n_dest:]):
        in_brackets = set()
        for br in re.finditer(r"\[([^\]]*)\]", op):
            for m in _REG.finditer(br.group(1)):
                in_brackets.add(m.start() + br.start(1))
        for m in _REG.finditer(op):
            suffix = m.group(2)
            if base == "IMAD" and "WIDE" in opcode and k == 2 and not suffix:
                suffix = ".64"  # the 64-bit addend of a wide multiply-add
            regs = _widen(m.group(1), suffix)
            ins.uses += regs
            if memory and m.start() in in_brackets:
                ins.address_uses.update(regs)
    if ins.guard:
        ins.uses.append(ins.guard)
    if base in BRANCHES and ops:
        t = re.search(r"0x([0-9a-f]+)", ops[-1])
        if t:
            ins.target = int(t.group(1), 16)
    return ins


def parse_listing(text: str) -> dict[str, list[Instruction]]:
    """``cuobjdump -sass`` text -> kernel name -> its instructions in address order."""
    out: dict[str, list[Instruction]] = {}
    current = None
    for line in text.splitlines():
        f = _FUNC.search(line)
        if f:
            current = f.group(1)
            out[current] = []
            continue
        m = _LINE.search(line)
        if m and current is not None:
            out[current].append(parse_instruction(int(m.group(1), 16), m.group(2)))
    return out


# -- def-use -----------------------------------------------------------------------------------------

def _blocks(ins: list[Instruction]) -> tuple[list[tuple[int, int]], list[list[int]]]:
    """Basic blocks as [start, end) instruction ranges, and each block's successor blocks."""
    pc_index = {x.pc: i for i, x in enumerate(ins)}
    starts = {0}
    for i, x in enumerate(ins):
        if x.base in BRANCHES:
            if i + 1 < len(ins):
                starts.add(i + 1)
            if x.target is not None and x.target in pc_index:
                starts.add(pc_index[x.target])
    order = sorted(starts)
    ranges = [(s, order[k + 1] if k + 1 < len(order) else len(ins)) for k, s in enumerate(order)]
    block_of = {s: k for k, (s, _) in enumerate(ranges)}
    succ = []
    for k, (_, e) in enumerate(ranges):
        last = ins[e - 1]
        nxt = []
        if last.base in BRANCHES:
            if last.base == "BRA" and last.target in pc_index:
                nxt.append(block_of[pc_index[last.target]])
            if last.guard and k + 1 < len(ranges):
                nxt.append(k + 1)
            if last.base in ("CALL",) and k + 1 < len(ranges):
                nxt.append(k + 1)
        elif k + 1 < len(ranges):
            nxt.append(k + 1)
        succ.append(nxt)
    return ranges, succ


def def_use(ins: list[Instruction]) -> dict[int, list[tuple[int, str]]]:
    """For each defining instruction, the (instruction, register) pairs that read its value."""
    ranges, succ = _blocks(ins)
    preds: list[list[int]] = [[] for _ in ranges]
    for k, ss in enumerate(succ):
        for s in ss:
            preds[s].append(k)
    out_sets: list[dict[str, frozenset]] = [{} for _ in ranges]

    def transfer(k: int, state: dict[str, frozenset], record=None) -> dict[str, frozenset]:
        state = dict(state)
        s, e = ranges[k]
        for i in range(s, e):
            x = ins[i]
            if record is not None:
                for r in x.uses:
                    for d in state.get(r, ()):
                        record.setdefault(d, []).append((i, r))
            for r in x.dests:
                state[r] = frozenset({i}) | (state.get(r, frozenset()) if x.guard else frozenset())
        return state

    changed = True
    while changed:
        changed = False
        for k in range(len(ranges)):
            state: dict[str, frozenset] = {}
            for p in preds[k]:
                for r, d in out_sets[p].items():
                    state[r] = state.get(r, frozenset()) | d
            new = transfer(k, state)
            if new != out_sets[k]:
                out_sets[k] = new
                changed = True
    uses: dict[int, list[tuple[int, str]]] = {}
    for k in range(len(ranges)):
        state = {}
        for p in preds[k]:
            for r, d in out_sets[p].items():
                state[r] = state.get(r, frozenset()) | d
        transfer(k, state, uses)
    return uses


def loop_branches(ins: list[Instruction]) -> set[int]:
    """Backward branches and the branches inside their range that leave it, of loops without a
    barrier: a loop the compiler kept rolled round a barrier runs its control every
    iteration, as the recorder's roles take it (tracekit/recorder/roles.h)."""
    out = set()
    for i, x in enumerate(ins):
        if x.base == "BRA" and x.target is not None and x.target <= x.pc:
            lo, hi = x.target, x.pc
            if any(lo <= y.pc <= hi and y.base == "BAR" for y in ins):
                continue
            out.add(i)
            for j, y in enumerate(ins):
                if lo <= y.pc <= hi and y.base in BRANCHES and y.base != "CALL" and (
                        y.base in ("EXIT", "RET") or (y.target is not None and not lo <= y.target <= hi)):
                    out.add(j)
    return out


def _is_candidate(x: Instruction) -> bool:
    if not x.dests or x.is_memory or x.base in BRANCHES:
        return False
    if x.base in ("HFMA2",) and "MMA" in x.opcode:
        return True  # HFMA2.MMA R, -RZ, RZ, 0, 0: a move of a constant
    return GROUP.get(x.base) not in ("float", "math", "convert")


def _greatest(member: set[int], uses: dict[int, list[tuple[int, str]]], ok) -> set[int]:
    member = {i for i in member if uses.get(i)}
    changed = True
    while changed:
        changed = False
        for i in sorted(member):
            if not all(ok(j, r) or j in member for j, r in uses[i]):
                member.discard(i)
                changed = True
    return member


def _loop_ranges(ins: list[Instruction], ran=None) -> list[tuple[int, int]]:
    """[header, back edge] address ranges of the loops (backward branches; with ``ran``, those
    whose back edge executed)."""
    return [(x.target, x.pc) for i, x in enumerate(ins) if x.base == "BRA" and x.target is not None
            and x.target < x.pc and (ran is None or ran[i])]


def dispatch_branches(ins: list[Instruction], ran=None) -> set[int]:
    """Conditional branches that choose whether or how a loop runs: from outside a loop into its
    range, or over its header (the test that picks an unrolled body or the remainder).  Branches
    inside a loop that stay inside it are the loop body's own control flow.  With ``ran`` (per
    instruction: executed at all), a loop that never ran has no dispatch: the test that skips a
    library routine's slow path (the range reduction of ``sin``) is that routine's control flow."""
    ranges = _loop_ranges(ins, ran)
    out = set()
    for i, x in enumerate(ins):
        if x.base not in ("BRA", "EXIT") or not x.guard:
            continue
        t = x.target
        into = t is not None and any(lo <= t <= hi and not lo <= x.pc <= hi for lo, hi in ranges)
        over = t is not None and any(x.pc < lo < t for lo, _ in ranges)
        if into or over:
            out.add(i)
    return out


def roles(ins: list[Instruction], executed=None) -> list[str | None]:
    """Role of each instruction of one kernel: ``address``, ``loop`` or None.

    Unrolled loops keep part of their control outside the loop's own range (the
    test that picks the unrolled body or the remainder), so the guards of the
    dispatch branches count as loop control as well as those of the loop branches;
    a dispatch branch is loop control when its guard comes from loop values only.
    ``executed`` (counts per instruction, when known) leaves out loops that never ran.
    """
    uses = def_use(ins)
    branches = loop_branches(ins)
    dispatch = dispatch_branches(ins, None if executed is None else [e > 0 for e in executed])
    cand = {i for i, x in enumerate(ins) if _is_candidate(x)}

    def address_use(j: int, r: str) -> bool:
        return r in ins[j].address_uses

    address = _greatest(set(cand), uses, address_use)
    loop = _greatest(cand - address, uses, lambda j, r: address_use(j, r) or j in address
                     or ((j in branches or j in dispatch) and r == ins[j].guard))
    guard_defs: dict[int, set[int]] = {}
    for d, us in uses.items():
        for j, r in us:
            if j in dispatch and r == ins[j].guard:
                guard_defs.setdefault(j, set()).add(d)
    branches |= {j for j, ds in guard_defs.items() if ds and ds <= loop}
    indirect = _indirect(ins, uses, address)
    return ["indirect" if i in indirect else "address" if i in address else
            "loop" if i in loop or i in branches else None for i in range(len(ins))]


def _indirect(ins: list[Instruction], uses: dict[int, list[tuple[int, str]]], address: set[int]) -> set[int]:
    """Address instructions that read a loaded value, directly or through other address instructions."""
    defs: dict[int, set[int]] = {}
    for d, us in uses.items():
        for j, _ in us:
            defs.setdefault(j, set()).add(d)
    out: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i in sorted(address - out):
            if any(ins[d].is_memory or d in out for d in defs.get(i, ())):
                out.add(i)
                changed = True
    return out


def group_of(x: Instruction) -> str:
    """IR group of the work a machine instruction does (moves and set-up are ``other``)."""
    if x.base == "HFMA2" and "MMA" in x.opcode:
        return "other"
    if x.base in ("LDC", "ULDC") and not x.address_uses:
        return "other"
    return GROUP.get(x.base, "other")


def classify(ins: list[Instruction]) -> pd.DataFrame:
    """One row per instruction: pc, opcode, role (or None) and group."""
    return pd.DataFrame({"pc": [x.pc for x in ins], "opcode": [x.opcode for x in ins],
                         "role": roles(ins), "group": [group_of(x) for x in ins],
                         "text": [x.text for x in ins]})


# -- Nsight Compute's source page -----------------------------------------------------------------

def read_source_counts(rows: Iterable[list[str]],
                       metric: str = "Instructions Executed") -> list[pd.DataFrame]:
    """``ncu --page source --print-source sass --csv`` rows -> one frame per profiled launch.

    Each frame: ``address``, ``source`` (the instruction text) and ``executed`` (the
    metric, warp-level instructions).  Launches come in profiling order.
    """
    out: list[pd.DataFrame] = []
    header, current = None, None
    for row in rows:
        if not row:
            continue
        if row[0] == "Kernel Name":
            current = {"kernel": row[1] if len(row) > 1 else "", "rows": []}
            out.append(current)
            header = None
            continue
        if row[0] == "Address":
            header = row
            if current is None:
                current = {"kernel": "", "rows": []}
                out.append(current)
            continue
        if header is None or len(row) != len(header) or current is None:
            continue
        f = dict(zip(header, row, strict=True))
        v = f.get(metric, "0").replace(",", "").strip()
        current["rows"].append((f["Address"], f.get("Source", ""), float(v) if v not in ("", "-") else 0.0))
    return [pd.DataFrame(c["rows"], columns=["address", "source", "executed"]).assign(kernel=c["kernel"])
            for c in out]
