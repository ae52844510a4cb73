"""Per-site instruction facts of one launch, and the simple time model used without a replay.

A wave issues a site as often as its busiest lane; the lanes that ran it divided
by (issues x lanes present in the wave) is that site's lane utilisation, which
is what divergence looks like in a trace.  The fallback model (ALU cycles from
the target's per-class issue costs, memory time as bytes over DRAM bandwidth,
occupancy from the target's limits) only stands in when no analysis result is
given; with a result the context takes the replay's numbers instead.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def op_facts(instr: pd.DataFrame, width: int, present: pd.DataFrame) -> pd.DataFrame:
    """Per (site, opclass): executions, issues, utilisation against present lanes."""
    if instr.empty:
        return pd.DataFrame(columns=["site", "opclass", "executions", "issues", "lanes", "utilization"])
    d = instr[["group", "item", "site", "opclass", "count"]].copy()
    d["opclass"] = d["opclass"].astype(str)
    d["wave"] = d["item"].astype(np.int64) // width
    w = d.groupby(["group", "wave", "site", "opclass"], sort=False).agg(
        executions=("count", "sum"), issues=("count", "max"), lanes=("item", "size")).reset_index()
    w = w.merge(present, on=["group", "wave"], how="left")
    w["slots"] = w["issues"] * w["present"]
    out = w.groupby(["site", "opclass"]).agg(executions=("executions", "sum"), issues=("issues", "sum"),
                                             slots=("slots", "sum"), lanes=("lanes", "sum")).reset_index()
    out["utilization"] = out["executions"] / out["slots"].where(out["slots"] > 0)
    return out.drop(columns="slots")


def lanes_present(frames: list[pd.DataFrame], width: int) -> pd.DataFrame:
    """Items seen per (group, wave) in any table: the lanes a wave really had."""
    items = pd.concat([f[["group", "item"]] for f in frames if len(f)], ignore_index=True).drop_duplicates()
    items["wave"] = items["item"].astype(np.int64) // width
    return items.groupby(["group", "wave"]).size().rename("present").reset_index()


def alu_cycles(ops: pd.DataFrame, target) -> pd.Series:
    """ALU cycles per opclass: issues x the target's issue cost (classes the target lacks cost 0)."""
    if ops.empty:
        return pd.Series(dtype=float)
    by = ops.groupby("opclass")["issues"].sum()
    cost = by.index.map(lambda c: float(target.alu_cycles.get(c, 0.0)))
    return by * np.asarray(cost, dtype=float)


def fallback_occupancy(target, group_size: int, local_mem_bytes: int, has_barrier: bool,
                       total_waves: int) -> dict:
    """Resident waves per compute unit from the target's limits (no replay result given)."""
    occ = target.occupancy
    width = max(target.simd.width, 1)
    waves_per_group = max(1, math.ceil(group_size / width))
    limits = {"waves": occ.max_waves_per_cu // waves_per_group}
    if occ.max_work_groups_per_cu:
        limits["work_groups"] = occ.max_work_groups_per_cu
    if local_mem_bytes > 0:
        alloc = local_mem_bytes
        if occ.local_mem_alloc_min_bytes:
            alloc = max(alloc, occ.local_mem_alloc_min_bytes)
        if occ.local_mem_alloc_step_bytes:
            step = occ.local_mem_alloc_step_bytes
            alloc = math.ceil(alloc / step) * step
        limits["local_memory"] = target.local_memory.size_bytes // alloc
    if has_barrier and occ.barrier_slots_per_cu:
        limits["barriers"] = occ.barrier_slots_per_cu
    limiter = min(limits, key=limits.get)
    groups = max(0, limits[limiter])
    resident = min(groups * waves_per_group, max(1, math.ceil(total_waves / max(target.compute_units, 1))))
    if resident < groups * waves_per_group:
        limiter = "dataset"
    return {"resident_waves_per_cu": resident, "occupancy_fraction": resident / max(occ.max_waves_per_cu, 1),
            "occupancy_limiter": limiter, "waves_per_group": waves_per_group}


def fallback_times(target, alu_cycle_total: float, bytes_moved: float, scale: float) -> dict:
    """ALU time over all compute units, memory time at DRAM bandwidth; the larger is the estimate."""
    hz = target.clock_mhz * 1e6
    alu_s = alu_cycle_total * scale / (max(target.compute_units, 1) * hz)
    mem_s = bytes_moved * scale / (target.dram.bandwidth_gb_per_s * 1e9)
    total = max(alu_s, mem_s)
    verdict = "alu" if alu_s >= mem_s else "memory"
    return {"alu_s": alu_s, "memory_s": mem_s, "latency_s": 0.0, "total_s": total, "verdict": verdict}
