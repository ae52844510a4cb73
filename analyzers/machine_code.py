"""The machine-code model: Intel targets priced from the code Intel's compiler made.

A trace counts LLVM IR instructions as Oclgrind executes them; a GPU compiler
emits other instructions (often fewer, for loops several times fewer) and picks
the SIMD width itself.  When the trace carries the kernel's machine code for a
target's device (``machine_code`` table, :mod:`tracekit.isa`), this module:

* **wave width**: replays the launch at the SIMD width the compiler chose
  (:func:`launch_target`), for the memory replay and the SIMD model alike;
* **ALU time**: maps the trace's dynamic counts onto the machine code by source
  position.  A site (one IR instruction) has a file, line and column; a machine
  instruction has the same from the ``-g`` line table.  A machine instruction
  runs as often as the IR sites at its (line, column) do on average, or, when no
  site sits at that column, those of its line; each such key's machine cycles are
  shared among its sites, so ``issues(wave, site) x cost(site)`` summed over the
  sites is ``executions(key) x machine cycles(key)``.  Machine instructions on
  lines the trace never ran (the kernel's entry, its end-of-thread message) run
  once per wave.  A machine instruction costs the target's ``alu_cycles`` for its
  class, scaled from the table's wave width to its execution size (at least the
  narrowest ALU's lanes, ``isa.min_exec_lanes``);
* **spills**: scratch messages (spill and fill) move their bytes through the
  first cache level as often as their lines run (:func:`add_scratch_traffic`);
* **registers**: each hardware thread owns its register file, so registers limit
  residency through the SIMD width (more threads per work-group).  When the
  compiler went narrower than the target's usual width, or spills, the launch's
  registers per work-item are set from the machine code, so the occupancy model
  names registers as the limit where they bind.

Without machine code an Intel target keeps the IR model, and the result says so.
Targets without an offline compiler may carry measured ``ir_machine_factors``
(machine instructions per IR instruction by IR group, docs/model.md); they scale
the IR price of each class (:func:`factor_pricing`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from analyzers.alu import AluPricing, cost_of, cycles_table
from tracekit.isa.classes import ir_group_of

_IR_GROUPS = {"convert": "convert", "bitwise": "logic", "compare": "compare", "branch": "control",
              "load": "memory", "store": "memory", "atomic": "memory", "barrier": "barrier"}


def ir_group(opclass: str) -> str:
    """IR instruction class -> its group in ``ir_machine_factors`` (docs/model.md)."""
    if opclass.startswith(("fp16_", "fp32_", "fp64_")):
        return "float"
    if opclass.startswith(("int_", "int64_")):
        return "int"
    if opclass.startswith("math_"):
        return "math"
    return _IR_GROUPS.get(opclass, "other")


@dataclass(frozen=True)
class MachineCodeResult:
    """How one launch was priced on an Intel target, and what its machine code says.

    ``priced_by`` is ``"machine_code"`` (ALU time from the compiled code),
    ``"ir"`` (the IR model: no machine code, or none that maps) or
    ``"ir_factors"`` (IR scaled by measured factors, for targets without an
    offline compiler).  The remaining fields are what reports and rules read:
    SIMD width and registers, spills, 64-bit integer arithmetic, and the per-line
    machine instructions with their dynamic counts.
    """

    priced_by: str
    reason: str
    device: str | None = None
    compiler: str | None = None
    simd_width: int | None = None
    target_width: int | None = None          # the width the target assumes without machine code
    grf_count: int | None = None
    grf_used: int | None = None
    registers_per_item: int | None = None    # 32-bit registers per work-item at that width
    scratch_bytes_per_thread: int = 0
    spill_fill: bool = False
    private_memory: bool = False
    line_mapping: str = "none"               # "source_line" (column, then line) or "none"
    dynamic_coverage: float = 0.0            # share of the IR issues on lines with machine code
    static_coverage: float = 0.0             # share of machine instructions placed on trace lines
    machine_instructions: float = 0.0        # executed per hardware thread summed over threads
    machine_cycles: float = 0.0
    once_per_wave_instructions: int = 0
    scratch_read_bytes: float = 0.0
    scratch_write_bytes: float = 0.0
    scratch_cycles: float = 0.0              # executed cycles of the spill and fill messages
    int64_instructions: int = 0              # static: 64-bit integer ALU instructions (address math)
    #: executed cycles of instructions on 64-bit integers (``:q``/``:uq``, every class but sends), and
    #: what 32-bit integers would save of them by the target's own prices (docs/model.md)
    int64_cycles: float = 0.0
    int64_saving_cycles: float = 0.0
    group_instructions: dict = field(default_factory=dict)   # executed, by group
    #: executed machine operations (SIMD halves counted as halves) by the IR group whose work they do,
    #: next to the IR instructions executed by group (per wave): the dynamic machine-per-IR ratio
    ir_group_machine: dict = field(default_factory=dict)
    ir_group_issues: dict = field(default_factory=dict)
    send_messages: dict = field(default_factory=dict)        # executed, by message kind
    factors: dict = field(default_factory=dict)              # ir_machine_factors applied
    per_line: pd.DataFrame = field(default_factory=lambda: empty_per_line(), repr=False)

    @property
    def narrowed(self) -> bool:
        """The compiler chose a narrower SIMD width than the target assumes (register pressure)."""
        return bool(self.simd_width and self.target_width and self.simd_width < self.target_width)

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in (
            "priced_by", "reason", "device", "compiler", "simd_width", "target_width", "grf_count",
            "grf_used", "registers_per_item", "scratch_bytes_per_thread", "spill_fill", "private_memory",
            "line_mapping",
            "dynamic_coverage", "static_coverage", "machine_instructions", "machine_cycles",
            "once_per_wave_instructions", "scratch_read_bytes", "scratch_write_bytes", "scratch_cycles",
            "int64_instructions", "int64_cycles", "int64_saving_cycles",
            "group_instructions", "send_messages", "ir_group_machine", "ir_group_issues", "factors")}
        d["narrowed"] = self.narrowed
        d["lines"] = self.per_line.to_dict(orient="records") if not self.per_line.empty else []
        return d


# -- which machine code belongs to a launch -------------------------------------------------------

def kernels_for_target(trace, target) -> dict[tuple[str, str], object]:
    """(kernel, build options) -> :class:`~tracekit.isa.KernelISA` built for ``target``'s device."""
    isa = getattr(target, "isa", None)
    table = getattr(trace, "machine_code", None)
    if isa is None or table is None or table.num_rows == 0:
        return {}
    from tracekit.isa.table import from_table
    rows = table.filter(pa_equal(table, "device", isa.ocloc_device))
    return {(k.kernel, k.build_options or ""): k for k in from_table(rows)}


def pa_equal(table, column: str, value: str):
    import pyarrow.compute as pc
    return pc.equal(table[column], value)


def launch_target(target, kisa):
    """``target`` replayed at the compiler's SIMD width (unchanged without machine code)."""
    if kisa is None or not kisa.simd_width or kisa.simd_width == target.simd.width:
        return target
    widths = tuple(sorted(set(target.simd.widths) | {kisa.simd_width}))
    return replace(target, simd=replace(target.simd, width=int(kisa.simd_width), widths=widths))


def registers_per_item(kisa) -> int:
    """32-bit registers one work-item holds: the thread's register file over its lanes."""
    return int(kisa.grf_count * 32 // 4 // max(kisa.simd_width, 1))


def launch_geometry(geo, kisa, target):
    """The geometry with registers per item from the machine code, where registers are what bind."""
    if kisa is None or geo.registers_per_item:
        return geo
    spills = bool((kisa.instructions["send_kind"] == "scratch").any())
    if kisa.simd_width < target.simd.width or spills:
        return replace(geo, registers_per_item=registers_per_item(kisa))
    return geo


def fallback(target, reason: str) -> MachineCodeResult:
    return MachineCodeResult(priced_by="ir", reason=reason, target_width=int(target.simd.width))


# -- pricing ---------------------------------------------------------------------------------------

def _base(name) -> str | None:
    return os.path.basename(str(name)) if name is not None and name == name else None


def instruction_cycles(ins: pd.DataFrame, target, fast_math: bool) -> np.ndarray:
    """Cycles each machine instruction keeps its EU busy: table cost scaled to its execution size."""
    table = cycles_table(target, fast_math)
    cost = ins["opclass"].map(lambda c: cost_of(str(c), table)[0]).astype(float).to_numpy()
    lanes = np.maximum(ins["exec_size"].to_numpy(dtype=float), float(target.isa.min_exec_lanes or 1))
    return cost * lanes / float(target.simd.width)


def _site_keys(sites: pd.DataFrame | None, kernel: str, executed: np.ndarray) -> pd.DataFrame:
    if sites is None or sites.empty:
        return pd.DataFrame(columns=["site", "file", "line", "column", "lanes"])
    s = sites[sites["site"].isin(executed) & sites["line"].notna()]
    if "kernel" in s.columns and (s["kernel"] == kernel).any():
        s = s[s["kernel"] == kernel]
    s = s.drop_duplicates("site")
    # a vector site counts once per lane: its executions are its count over its lanes
    lanes = s["lanes"].fillna(1).clip(lower=1).astype(float) if "lanes" in s.columns else 1.0
    return pd.DataFrame({"site": s["site"].astype(np.int64), "file": s["file"].map(_base),
                         "line": s["line"].astype(np.int64),
                         "column": s["column"].fillna(-1).astype(np.int64), "lanes": lanes})


#: Least share of a listing's machine instructions that must sit on source lines the launch ran
#: for the listing to price it.  Every listing of the bundled samples places 91 % or more; a
#: compile that folds a loop away still places what it kept (the trace's share of instructions
#: with machine code, ``dynamic_coverage``, may then be low and is not a sign of a bad mapping).
MIN_PLACED_SHARE = 0.5


def machine_pricing(kisa, issues: pd.DataFrame, sites: pd.DataFrame | None, target, geo,
                    waves: int) -> tuple[AluPricing | None, MachineCodeResult]:
    """Per-site machine costs for :func:`analyzers.alu.alu_cost`, and the result that explains them.

    ``target`` is the target as its file gives it (its ``alu_cycles`` are per
    ``simd.width`` lanes); ``waves`` is the launch's recorded waves at the
    compiler's width.
    """
    ins = kisa.instructions.reset_index(drop=True)
    common = dict(device=kisa.device, compiler=kisa.compiler, simd_width=int(kisa.simd_width),
                  target_width=int(target.simd.width), grf_count=int(kisa.grf_count),
                  grf_used=int(kisa.grf_used or 0), registers_per_item=registers_per_item(kisa),
                  scratch_bytes_per_thread=int(kisa.scratch_bytes),
                  spill_fill=bool((ins["send_kind"] == "scratch").any()),
                  private_memory=bool(kisa.private_memory),
                  int64_instructions=int(ins["opclass"].isin(["int64_add", "int64_mul", "int64_div"]).sum()))
    if kisa.line_mapping != "source_line" or issues.empty:
        why = ("the machine code has no line table" if kisa.line_mapping != "source_line"
               else "the launch executed no instructions")
        return None, MachineCodeResult(priced_by="ir", reason=f"{why}; ALU time from the IR model", **common)
    per_site = issues.groupby("site", observed=True)["issues"].sum()
    keys = _site_keys(sites, kisa.kernel, per_site.index.to_numpy())
    if keys.empty:
        return None, MachineCodeResult(priced_by="ir", reason="the trace's sites carry no source lines; "
                                       "ALU time from the IR model", **common)
    keys["issues"] = keys["site"].map(per_site).astype(float) / keys["lanes"]
    col_n = keys.groupby(["file", "line", "column"]).size()
    line_n = keys.groupby(["file", "line"]).size()

    files = ins["file"].map(_base)
    lines = ins["line"].astype("float").fillna(-1).astype(np.int64)
    cols = ins["column"].astype("float").fillna(-2).astype(np.int64)
    at_col = pd.MultiIndex.from_arrays([files, lines, cols]).isin(col_n.index)
    at_line = ~at_col & pd.MultiIndex.from_arrays([files, lines]).isin(line_n.index)
    once = ~(at_col | at_line)
    placed = float((~once).mean()) if len(ins) else 0.0
    if placed < MIN_PLACED_SHARE:
        # a listing built from another file, or from another version of this one: its
        # instructions would be charged once per wave, not where the trace ran them
        return None, MachineCodeResult(
            priced_by="ir", static_coverage=placed,
            reason=(f"only {placed:.0%} of the {len(ins)} machine instructions sit on source lines "
                    f"this launch ran (at least {MIN_PLACED_SHARE:.0%} are needed to price by them); "
                    "ALU time from the IR model"), **common)
    unroll = _unroll_factors(ins, keys, issues, files, lines, cols, at_col)
    cyc = instruction_cycles(ins, target, geo.fast_math) / unroll

    # machine cycles per key, shared equally by the key's sites
    frame = pd.DataFrame({"file": files, "line": lines, "column": cols, "cycles": cyc})
    by_col = frame[at_col].groupby(["file", "line", "column"])["cycles"].sum()
    by_line = frame[at_line].groupby(["file", "line"])["cycles"].sum()
    kc = pd.MultiIndex.from_frame(keys[["file", "line", "column"]])
    kl = pd.MultiIndex.from_frame(keys[["file", "line"]])
    # per issue of the site: a vector site issues once per lane for each execution
    site_cost = (by_col.reindex(kc).fillna(0).to_numpy() / col_n.reindex(kc).to_numpy()
                 + by_line.reindex(kl).fillna(0).to_numpy() / line_n.reindex(kl).to_numpy()) \
        / keys["lanes"].to_numpy(dtype=float)
    cost = dict(zip(keys["site"].tolist(), site_cost.tolist(), strict=True))
    wave_cycles = float(cyc[once].sum())

    # executions of each machine instruction (recorded waves), for counts and scratch bytes
    ex_col = keys.groupby(["file", "line", "column"])["issues"].sum() / col_n
    ex_line = keys.groupby(["file", "line"])["issues"].sum() / line_n
    execs = np.full(len(ins), float(waves))
    execs[at_col] = ex_col.reindex(pd.MultiIndex.from_arrays(
        [files[at_col], lines[at_col], cols[at_col]])).to_numpy()
    execs[at_line] = ex_line.reindex(pd.MultiIndex.from_arrays([files[at_line], lines[at_line]])).to_numpy()
    execs = np.where(once, execs, execs / unroll)
    scale = geo.sample_scale
    scratch = (ins["send_kind"] == "scratch").to_numpy()
    covered = keys.set_index(["file", "line"]).index.isin(
        pd.MultiIndex.from_arrays([files[~once], lines[~once]]))
    total_issues = float(per_site.sum())
    coverage = float(keys.loc[covered, "issues"].sum()) / total_issues if total_issues else 0.0
    dyn = pd.DataFrame({"group": ins["group"], "send_kind": ins["send_kind"], "n": execs * scale,
                        "ops": execs * ins["weight"].to_numpy(dtype=float) * scale,
                        "ir_group": [ir_group_of(g, o, k) for g, o, k in
                                     zip(ins["group"], ins["opclass"], ins["send_kind"], strict=True)]})
    ir_issues = issues.groupby("opclass", observed=True)["issues"].sum()
    wide = int64_mask(ins)
    saving = int64_saving(ins, target, geo.fast_math) * cyc * execs * scale
    per_line = _per_line(ins, files, lines, execs * scale, cyc * execs * scale, unroll, wide)
    result = MachineCodeResult(
        priced_by="machine_code",
        reason=(f"ALU time from {len(ins)} machine instructions ({kisa.compiler or 'ocloc'}, SIMD"
                f"{kisa.simd_width}) mapped to the trace by source line and column; they cover "
                f"{coverage:.0%} of the IR instructions executed"),
        line_mapping="source_line", dynamic_coverage=coverage, static_coverage=float((~once).mean()),
        machine_instructions=float(dyn["n"].sum()), machine_cycles=float((cyc * execs).sum() * scale),
        once_per_wave_instructions=int(once.sum()),
        int64_cycles=float((cyc * execs)[wide].sum() * scale), int64_saving_cycles=float(saving.sum()),
        scratch_read_bytes=float((ins["bytes_read"].to_numpy() * execs * scratch).sum() * scale),
        scratch_write_bytes=float((ins["bytes_written"].to_numpy() * execs * scratch).sum() * scale),
        scratch_cycles=float((cyc * execs)[scratch].sum() * scale),
        group_instructions={str(k): float(v) for k, v in dyn.groupby("group")["n"].sum().items()},
        send_messages={str(k): float(v) for k, v in
                       dyn[dyn["group"] == "send"].groupby("send_kind")["n"].sum().items()},
        ir_group_machine={str(k): float(v) for k, v in dyn.groupby("ir_group")["ops"].sum().items()},
        ir_group_issues={str(k): float(v) * scale for k, v in
                         ir_issues.groupby(lambda c: ir_group(str(c))).sum().items()},
        per_line=per_line, **common)
    return AluPricing(site_cost=cost, wave_cycles=wave_cycles), result


#: Arithmetic classes that anchor machine instructions to IR sites: the listing and the trace name
#: them alike, and one IR site of them becomes one machine instruction per component.
ANCHOR_ARITHMETIC = ("fp32_fma", "fp32_mul", "fp32_add", "fp16_fma", "fp16_mul", "fp16_add",
                     "fp64_fma", "fp64_mul", "fp64_add")


def _unroll_factors(ins: pd.DataFrame, keys: pd.DataFrame, issues: pd.DataFrame, files, lines, cols,
                    at_col: np.ndarray) -> np.ndarray:
    """Machine instructions per IR execution at each instruction's source position.

    The trace counts an IR site once per execution and vector component (the sites
    table's ``lanes`` says how many; executions are counts over lanes); the machine
    code holds a block's instructions once, and the block runs once per ``U``
    iterations of the lines it was unrolled from.  So an instruction's executions are
    its position's IR executions over ``U``.  Two kinds of anchor measure that ratio, as the machine
    instructions of a kind at a (line, column) in one block over the IR sites of that
    kind there (SIMD halves counted as halves):

    * memory messages (one per IR load or store and wave, whatever its width): the
      block's unroll factor ``U``;
    * floating-point arithmetic of the same class on both sides (one machine
      instruction per IR instruction and component): ``U``, the machine instructions
      over the IR instructions' components, taken for the instructions at that position
      and class.  A loop the compiler
      unrolled 16 times without a memory access in it (a chain of multiply-adds) is
      found this way, where memory messages alone would charge it 16 times.

    Other instructions of a block take its messages' factor, else the median of its
    arithmetic anchors, else 1.
    """
    op = issues.groupby("site", observed=True)["opclass"].first().astype(str)
    kind = keys["site"].map(op)
    block = ins["block"].to_numpy()
    weight = ins["weight"].to_numpy(dtype=float)
    opclass = ins["opclass"].astype(str).to_numpy()

    def ratios(pick: np.ndarray, ir_keys: pd.DataFrame, by_class: bool) -> pd.DataFrame:
        cols_ir = ["file", "line", "column"] + (["opclass"] if by_class else [])
        # IR instructions times their components: a float4 multiply is four machine multiplies
        n_ir = ir_keys.assign(opclass=ir_keys["site"].map(op)).groupby(cols_ir)["lanes"].sum()
        m = pd.DataFrame({"block": block[pick], "file": files[pick].to_numpy(),
                          "line": lines[pick].to_numpy(), "column": cols[pick].to_numpy(), "w": weight[pick],
                          "opclass": opclass[pick]})
        per = m.groupby(["block"] + cols_ir)["w"].sum().reset_index()
        per["n"] = pd.MultiIndex.from_frame(per[cols_ir]).map(lambda k: n_ir.get(k, np.nan))
        per = per.dropna(subset=["n"])
        per["u"] = (per["w"] / per["n"]).clip(lower=1.0)
        return per

    mem = ratios(ins["send_kind"].isin(["global", "slm", "atomic"]).to_numpy() & at_col,
                 keys[kind.isin(["load", "store", "atomic"])], by_class=False)
    arith = ratios(np.isin(opclass, ANCHOR_ARITHMETIC) & at_col,
                   keys[kind.isin(ANCHOR_ARITHMETIC)], by_class=True)
    factor = mem.groupby("block")["u"].median().round() if not mem.empty else pd.Series(dtype=float)
    if not arith.empty:
        fallback = arith.groupby("block")["u"].median().round()
        factor = pd.concat([factor, fallback[~fallback.index.isin(factor.index)]])
    out = pd.Series(block).map(factor).fillna(1.0).to_numpy(dtype=float, copy=True)
    if not arith.empty:  # the anchored arithmetic itself: its own ratio
        own = pd.MultiIndex.from_frame(arith[["block", "file", "line", "column", "opclass"]])
        at = pd.MultiIndex.from_arrays([block, files.to_numpy(), lines.to_numpy(), cols.to_numpy(), opclass])
        hit = at.isin(own)
        if hit.any():
            out[hit] = pd.Series(arith["u"].to_numpy(), index=own).reindex(at[hit]).to_numpy()
    return out


#: Register types of 64-bit integers in the listing (``:q`` signed, ``:uq`` unsigned).
INT64_TYPES = ("q", "uq")
NARROW_INT64 = {"int64_add": "int_add", "int64_mul": "int_mul", "int64_div": "int_div"}


def int64_mask(ins: pd.DataFrame) -> np.ndarray:
    """Instructions that compute on 64-bit integers (messages excluded: their payload is not math)."""
    return (ins["dst_type"].isin(INT64_TYPES) & (ins["group"] != "send")).to_numpy()


def int64_saving(ins: pd.DataFrame, target, fast_math: bool) -> np.ndarray:
    """Per instruction, the share of its cycles that 32-bit integers would save, by the target's prices:
    a 64-bit add, multiply or division costs its 32-bit price instead; a move that widens a 32-bit
    value to 64 bits (``mov :q`` from ``:d``) is not needed at all; logic, compares and moves of
    64-bit values cost the same per lane as their 32-bit forms in the table, so they save nothing."""
    table = cycles_table(target, fast_math)
    out = np.zeros(len(ins))
    wide = int64_mask(ins)
    ops = ins["opclass"].astype(str).to_numpy()
    for i in np.flatnonzero(wide):
        if ops[i] in NARROW_INT64:
            full, narrow = cost_of(ops[i], table)[0], cost_of(NARROW_INT64[ops[i]], table)[0]
            out[i] = max(0.0, 1.0 - narrow / full) if full else 0.0
        elif ops[i] == "convert":
            out[i] = 1.0
    return out


#: Columns of :attr:`MachineCodeResult.per_line`, one row per source line of the machine code.
PER_LINE_COLUMNS = ("file", "line", "instructions", "executed", "cycles", "sends", "unroll", "load_messages",
                    "load_lane_bytes", "int64_executed", "listing")


def empty_per_line() -> pd.DataFrame:
    """A per-line table with no rows (machine code without a line table maps to no source line)."""
    return pd.DataFrame({c: pd.Series(dtype=object if c in ("file", "listing") else float)
                         for c in PER_LINE_COLUMNS})


def _per_line(ins: pd.DataFrame, files, lines, execs: np.ndarray, cycles: np.ndarray,
              unroll: np.ndarray, wide: np.ndarray) -> pd.DataFrame:
    """Per source line: static and executed machine instructions, cycles, messages, the listing; the
    unroll factor of its blocks, its global-load messages (static) and the bytes each moves per lane,
    and its executed 64-bit integer instructions."""
    loads = ((ins["send_kind"] == "global") & (ins["opclass"] == "load")).to_numpy()
    lane_bytes = np.where(loads, ins["bytes_read"].to_numpy(dtype=float)
                          / np.maximum(ins["exec_size"].to_numpy(dtype=float), 1.0), np.nan)
    f = pd.DataFrame({"file": files.fillna(""), "line": lines, "executed": execs, "cycles": cycles,
                      "send": (ins["group"] == "send").to_numpy(), "text": ins["text"], "unroll": unroll,
                      "load": loads, "lane_bytes": lane_bytes, "int64": np.where(wide, execs, 0.0)})
    out = f.groupby(["file", "line"], sort=True).agg(
        instructions=("text", "size"), executed=("executed", "sum"), cycles=("cycles", "sum"),
        sends=("send", "sum"), unroll=("unroll", "max"), load_messages=("load", "sum"),
        load_lane_bytes=("lane_bytes", "max"), int64_executed=("int64", "sum"),
        listing=("text", lambda t: "\n".join(t))).reset_index()
    out["line"] = out["line"].where(out["line"] >= 0)
    out = out[list(PER_LINE_COLUMNS)]
    return out.sort_values("cycles", ascending=False, kind="stable").reset_index(drop=True)


def add_scratch_traffic(traffic, result: MachineCodeResult):
    """Spill and fill bytes added to the first cache level's traffic (scratch is cached there)."""
    moved = result.scratch_read_bytes + result.scratch_write_bytes
    if traffic is None or not moved or not traffic.levels:
        return traffic
    first = traffic.levels[0]
    return replace(traffic, levels=(replace(first, bytes=first.bytes + moved), *traffic.levels[1:]))


def factor_pricing(target) -> tuple[AluPricing | None, MachineCodeResult | None]:
    """IR prices scaled by the target's measured ``ir_machine_factors`` (none: the IR as it is)."""
    factors = dict(getattr(target, "ir_machine_factors", {}) or {})
    if not factors:
        return None, None
    return AluPricing(group_scale=factors, group_of=ir_group), MachineCodeResult(
        priced_by="ir_factors", factors=factors, target_width=int(target.simd.width),
        reason="ALU time from the IR, each class scaled by the machine instructions per IR instruction "
               "measured with Intel's offline compiler (docs/model.md); no offline compiler exists for "
               "this GPU")
