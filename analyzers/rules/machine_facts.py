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

from analyzers.machine_code import PER_LINE_COLUMNS, empty_per_line


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
    active = int(f.result.bound.evidence.active_compute_units or 1) if f.result.bound else 1
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
    """Per source line of the machine code (``MachineCodeResult.per_line``), with a ``file:line`` label.

    Always has every column of :data:`~analyzers.machine_code.PER_LINE_COLUMNS` and ``label``: machine
    code mapped to no source line (a ``-g`` build whose code differs from the real one, no line table,
    a launch priced by the IR) gives no rows, and a column the result lacks is all missing values, so a
    rule can filter and sort the frame without asking first what it holds.
    """
    m = machine(f)
    pl = getattr(m, "per_line", None) if m is not None else None
    if not isinstance(pl, pd.DataFrame) or pl.empty:
        out = empty_per_line()
    else:
        out = pl.copy()
        for c in PER_LINE_COLUMNS:
            if c not in out.columns:
                out[c] = None if c in ("file", "listing") else float("nan")
    out["file"] = out["file"].fillna("").astype(str)
    out["listing"] = out["listing"].fillna("").astype(str)
    out["label"] = pd.Series([_label(fl, ln) for fl, ln in zip(out["file"], out["line"], strict=True)],
                             index=out.index, dtype=object)
    return out


def _label(file: str, line) -> str:
    return f"{file or '?'}:{int(line)}" if pd.notna(line) else f"{file or '?'}:?"


def number(m, name: str, default: float = 0.0) -> float:
    """Field ``name`` of the machine code facts as a number; ``default`` where it is absent or unknown."""
    v = getattr(m, name, None)
    try:
        v = float(v)
    except (TypeError, ValueError):
        return default
    return v if v == v else default


def sites_on(f, lines: pd.DataFrame) -> list[int]:
    """The trace's sites on the source lines of ``lines`` (rows of :func:`machine_lines`), in their order:
    what a finding names as its source lines."""
    ps = f.result.per_site
    if lines.empty or ps is None or ps.empty or "line" not in ps:
        return []
    by_line: dict[tuple[str, int], int] = {}
    for s, fl, ln in sorted(zip(ps["site"], ps["file"], ps["line"], strict=True), key=lambda r: r[0]):
        if pd.notna(ln) and isinstance(fl, str):
            by_line.setdefault((os.path.basename(fl), int(ln)), int(s))
    out = []
    for fl, ln in zip(lines["file"], lines["line"], strict=True):
        site = by_line.get((str(fl), int(ln))) if pd.notna(ln) else None
        if site is not None and site not in out:
            out.append(site)
    return out
