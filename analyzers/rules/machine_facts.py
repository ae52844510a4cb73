"""What the machine-code rules read: the compiler's own account of a launch on an Intel target.

The launch result carries :class:`~analyzers.machine_code.MachineCodeResult` when the
trace holds the kernel's machine code for the target's device: the SIMD width the
compiler chose, its registers, its spill and fill messages, the 64-bit integer
instructions, and per source line the listing with its unroll factor and memory
messages.  These helpers hand it to the rules and turn what a fix removes into the
time the launch would gain, with the same three-term model as
:meth:`~analyzers.rules.facts.Facts.gain_alu` but able to shorten one memory level.
"""

from __future__ import annotations

import os

import pandas as pd


def machine(f):
    """The launch's machine code facts, or None when the trace has none for this target."""
    m = getattr(f.result, "machine", None)
    if m is None or not m.simd_width or m.priced_by == "ir_factors":
        return None
    return m


def level_seconds(f, level_index: int, nbytes: float) -> float:
    """Seconds ``nbytes`` (whole launch) take at cache level ``level_index``'s bandwidth."""
    lv = f.target.caches[level_index]
    if not lv.bandwidth_bytes_per_cycle:
        return 0.0
    active = int((f.result.bound.evidence or {}).get("active_compute_units", 1) or 1) if f.result.bound else 1
    copies = active if lv.scope == "compute_unit" else 1
    return nbytes / (lv.bandwidth_bytes_per_cycle * max(copies, 1) * f.target.clock_mhz * 1e6)


def gain_without(f, alu_s: float = 0.0, level: str | None = None, level_s: float = 0.0) -> float:
    """Time saved when the ALU term drops by ``alu_s`` and memory level ``level`` by ``level_s`` (the
    memory term is the slowest level afterwards; latency unchanged)."""
    te = f.result.time_estimates or {}
    levels = dict(te.get("memory_levels_s") or {})
    if level in levels:
        levels[level] = max(0.0, levels[level] - level_s)
    memory = max(levels.values()) if levels else float(te.get("memory_s", 0.0) or 0.0)
    before = f.times["total_s"]
    after = max(max(0.0, f.times["alu_s"] - alu_s), memory, f.times["latency_s"])
    return max(0.0, before - after)


def share_of_alu(f, m, cycles: float) -> float:
    """The ALU seconds ``cycles`` of machine code account for: the ALU term is priced from the
    machine code's cycles (``machine_cycles``), so a part of them is that part of the term."""
    if not m.machine_cycles or m.priced_by != "machine_code":
        return 0.0
    return f.times["alu_s"] * min(1.0, cycles / m.machine_cycles)


def machine_lines(f) -> pd.DataFrame:
    """Per source line of the machine code (``MachineCodeResult.per_line``), with a ``file:line`` label."""
    m = machine(f)
    if m is None or m.per_line is None or m.per_line.empty:
        return pd.DataFrame()
    out = m.per_line.copy()
    out["label"] = [f"{fl}:{int(ln)}" if ln == ln else f"{fl}:?" for fl, ln in zip(out["file"], out["line"],
                                                                                 strict=True)]
    return out


def sites_on(f, lines: pd.DataFrame) -> list[int]:
    """The trace's sites on the source lines of ``lines`` (rows of :func:`machine_lines`), in their order:
    what a finding names as its source lines."""
    ps = f.result.per_site
    if lines.empty or ps is None or ps.empty or "line" not in ps:
        return []
    by_line: dict[tuple[str, int], int] = {}
    for s, fl, ln in sorted(zip(ps["site"], ps["file"], ps["line"], strict=True), key=lambda r: r[0]):
        if ln == ln and ln is not None and isinstance(fl, str):
            by_line.setdefault((os.path.basename(fl), int(ln)), int(s))
    out = []
    for fl, ln in zip(lines["file"], lines["line"], strict=True):
        site = by_line.get((str(fl), int(ln))) if ln == ln else None
        if site is not None and site not in out:
            out.append(site)
    return out
