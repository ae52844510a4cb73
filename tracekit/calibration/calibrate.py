"""Model against hardware: a trace replayed on a target, set against Nsight Compute counters.

For every measured launch the same quantities are taken from both sides:

* ``sectors_per_request``: l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum over
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum | global-load transactions over requests;
* ``store_sectors_per_request``: the same for ``op_st`` | global stores;
* ``l1_hit_rate``: l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct / 100 | L1 load hit rate;
* ``l2_hit_rate``: lts__t_sector_hit_rate.pct / 100 | L2 hit rate of loads and stores, a store
  counted as a hit on a write-back L2 as ncu counts it;
* ``l2_load_hit_rate``: lts__t_sector_op_read_hit_rate.pct / 100 when the export has it | L2 load
  hit rate, with a partitioned L2's second lookups of DRAM fills counted as read misses;
* ``shared_wavefronts_per_request``: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum over
  smsp__inst_executed_op_shared_ld.sum | local-memory load cycles over requests (and the
  ``shared_store_...`` twin for stores);
* ``threads_per_instruction``: smsp__thread_inst_executed_per_inst_executed.ratio | SIMD
  utilisation x SIMD width;
* ``instructions_per_warp``: smsp__inst_executed.sum over the launch's warps, when the export
  has it | the instructions the ALU model prices over the launch's waves: the trace's IR issues,
  address arithmetic and loop control scaled by the target's role factors where it has them
  (docs/model.md, "Instruction roles");
* ``time_ns``: gpu__time_duration.sum | the model's launch time (``total_s`` of the time model);
* ``dram_bytes``: dram__bytes_read.sum + dram__bytes_write.sum, when the export has them | DRAM
  bytes the replay moves during the launch: reads and write-backs, less the dirty data the
  last cache level still holds when the launch ends (ncu counts no later write-back);
* ``verdict``: the SOLBottleneck rule of ``--page details`` | the model's verdict.

Measured launches are matched to trace launches by kernel name and grid/block
shape in order of occurrence (the n-th ncu launch of ``k`` with grid G and block
B goes with the n-th trace launch of ``k`` with the same shape); when no launch
has that shape, by kernel name and order alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tracekit.errors import TracekitError
from tracekit.formats.ncu import NcuRaw, read_ncu_raw, read_ncu_sol

RATIO_METRICS = {
    "sectors_per_request": ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    "store_sectors_per_request": ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                  "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    "shared_wavefronts_per_request": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                      "smsp__inst_executed_op_shared_ld.sum"),
    "shared_store_wavefronts_per_request": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                                            "smsp__inst_executed_op_shared_st.sum"),
}
PCT_METRICS = {
    "l1_hit_rate": "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
    "l2_hit_rate": "lts__t_sector_hit_rate.pct",
}
#: Used when the export has it (older exports do not): L2 hit rate of reads only.
OPTIONAL_PCT_METRICS = {"l2_load_hit_rate": "lts__t_sector_op_read_hit_rate.pct"}
THREADS_METRIC = "smsp__thread_inst_executed_per_inst_executed.ratio"
INSTRUCTIONS_METRIC = "smsp__inst_executed.sum"
TIME_METRIC = "gpu__time_duration.sum"
DRAM_METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
QUANTITIES = ("sectors_per_request", "store_sectors_per_request", "l1_hit_rate", "l2_hit_rate",
              "l2_load_hit_rate",
              "shared_wavefronts_per_request", "shared_store_wavefronts_per_request",
              "threads_per_instruction", "instructions_per_warp", "time_ns", "dram_bytes", "verdict")

#: When a numeric quantity counts as agreeing: |model - measured| <= abs + rel * |measured|.
#: Counter ratios carry a little noise (replay passes, partial tail requests), hence the small
#: absolute slack for the "exact" quantities; SIMD efficiency's target is 5 %.
TOLERANCE = {
    "sectors_per_request": (0.05, 0.02), "store_sectors_per_request": (0.05, 0.02),
    "shared_wavefronts_per_request": (0.05, 0.02), "shared_store_wavefronts_per_request": (0.05, 0.02),
    "threads_per_instruction": (0.0, 0.05), "l1_hit_rate": (0.10, 0.0), "l2_hit_rate": (0.10, 0.0),
    "l2_load_hit_rate": (0.10, 0.0), "instructions_per_warp": (0.0, 0.10),
    "time_ns": (0.0, 0.25), "dram_bytes": (0.0, 0.25),
}


def measured_frame(raw: NcuRaw, sol: pd.DataFrame | None = None) -> pd.DataFrame:
    """The hardware side: one row per ncu launch with the quantities above."""
    f = raw.frame
    out = pd.DataFrame({"ncu_id": f["ID"].astype(int), "kernel": f["Kernel Name"].map(_short_name),
                        "grid": f["grid"], "block": f["block"]})
    for q, (num, den) in RATIO_METRICS.items():
        n, d = raw.metric(num).to_numpy(float), raw.metric(den).to_numpy(float)
        out[q] = np.where(d > 0, n / np.where(d > 0, d, 1), np.nan)
    for q, m in PCT_METRICS.items():
        out[q] = raw.metric(m).to_numpy(float) / 100.0
    for q, m in OPTIONAL_PCT_METRICS.items():
        out[q] = raw.metric(m).to_numpy(float) / 100.0 if m in raw.frame.columns else np.nan
    out["threads_per_instruction"] = raw.metric(THREADS_METRIC).to_numpy(float)
    out["instructions_per_warp"] = np.nan
    if INSTRUCTIONS_METRIC in f.columns:
        warps = np.array([np.prod(g) * -(-int(np.prod(b)) // 32) if g and b else np.nan
                          for g, b in zip(f["grid"], f["block"], strict=True)], dtype=float)
        out["instructions_per_warp"] = raw.metric(INSTRUCTIONS_METRIC).to_numpy(float) / warps
    out["time_ns"] = raw.metric(TIME_METRIC).to_numpy(float)
    out["dram_bytes"] = (sum(raw.metric(m).to_numpy(float) for m in DRAM_METRICS)
                         if all(m in f.columns for m in DRAM_METRICS) else np.nan)
    out["verdict"] = None
    if sol is not None:
        by_id = sol.set_index("ID")
        for i, (lid, kernel) in enumerate(zip(out["ncu_id"], out["kernel"], strict=True)):
            if lid in by_id.index:
                if _short_name(by_id.at[lid, "kernel"]) != kernel:
                    raise TracekitError(f"ncu ID {lid} is '{kernel}' in the raw export but "
                                        f"'{by_id.at[lid, 'kernel']}' in the Speed-of-Light export: "
                                        "they come from different runs")
                out.at[i, "verdict"] = by_id.at[lid, "sol_verdict"]
    return out


def _short_name(name: str) -> str:
    """``copy(const float *, int)`` -> ``copy``; ``void ns::k<int>(...)`` -> ``ns::k<int>``."""
    s = str(name).split("(", 1)[0].strip()
    return s.split(" ")[-1] if " " in s else s


def model_frame(analysis, target) -> pd.DataFrame:
    """The model side: one row per trace launch with the same quantities."""
    width = int(target.simd.width)
    rows = []
    for r in analysis.launches:
        geo = r.geometry
        row = {"launch": r.launch, "kernel": r.kernel,
               "grid": tuple(int(v) for v in geo.groups_per_dim),
               "block": tuple(int(v) for v in geo.local_size), "error": r.error}
        sites = r.memory.per_site if r.memory is not None else pd.DataFrame()
        row["sectors_per_request"] = _ratio(sites, "global", "load", "transactions")
        row["store_sectors_per_request"] = _ratio(sites, "global", "store", "transactions")
        row["shared_wavefronts_per_request"] = _ratio(sites, "local", "load", "local_cycles")
        row["shared_store_wavefronts_per_request"] = _ratio(sites, "local", "store", "local_cycles")
        caches = {c.level: c.to_dict() for c in (r.memory.memory.caches if r.memory else ())}
        row["l1_hit_rate"] = caches.get("L1", {}).get("load_hit_rate", np.nan)
        mem = r.memory.memory if r.memory is not None else None
        dram_read = float(mem.dram_bytes - mem.dram_bytes_written) if mem is not None else 0.0
        row["l2_hit_rate"] = _absorbing_hit_rate(caches.get("L2", {}), target, dram_read)
        row["l2_load_hit_rate"] = counted_load_hit_rate(caches.get("L2", {}), target, dram_read)
        row["threads_per_instruction"] = r.simd.utilization * width if r.simd else np.nan
        row["instructions_per_warp"] = _issues_per_wave(r, width)
        row["verdict"] = r.verdict
        row["time_ns"] = r.time_estimates.get("total_s", np.nan) * 1e9 if r.bound else np.nan
        row["dram_bytes"] = _dram_bytes(r, target)
        rows.append(row)
    return pd.DataFrame(rows)


def _dram_bytes(r, target) -> float:
    """DRAM bytes of the whole launch as Nsight Compute counts them: within the launch.

    The replay writes every dirty line back at the end; a write-back last level still
    holds part of that when the launch ends, and the device writes it later, outside
    ncu's window (the time model leaves the same bytes out).
    """
    from dataclasses import replace

    from analyzers.timing import resident_dirty_bytes

    if r.memory is None:
        return np.nan
    scale = float(r.geometry.sample_scale)
    total = float(r.memory.memory.dram_bytes) * scale
    written = float(r.memory.memory.dram_bytes_written) * scale
    traffic = replace(r.memory.traffic, dram_bytes=total, dram_bytes_written=written)
    return total - resident_dirty_bytes(traffic, target)


def _issues_per_wave(r, width: int) -> float:
    """The launch's instructions (scaled to the whole grid) over its waves: the issues the ALU
    model prices, after the target's role factors (machine instructions per IR instruction of
    address arithmetic and loop control, docs/model.md), where it has them."""
    geo = r.geometry
    if r.alu is None or r.alu.per_site.empty:
        return np.nan
    groups = geo.total_groups or geo.num_groups
    waves = groups * -(-int(np.prod(geo.local_size)) // width)
    issues = r.alu.instructions or float(r.alu.per_site["issues"].sum())
    return issues / waves if waves else np.nan


def _absorbing_hit_rate(level: dict, target, dram_read_bytes: float = 0.0) -> float:
    """Hit rate as Nsight Compute counts it for a write-back L2.

    * Every store sector is a hit: the L2 takes a full-sector store without fetching anything,
      so ``lts__t_sector_hit_rate`` counts it as one; the replay counts a store to an absent
      sector as a miss.  Loads keep their replayed outcome.
    * Where the level is split in partitions (``partition_copy_share`` s of the target), the
      other partition looks up s of the store sectors again (hits) and s of the sectors filled
      from DRAM (``dram_read_bytes``, misses); the counters see those lookups too.

    Only the recorded work-groups are replayed, so reuse between work-groups that were not
    recorded is missing from both figures.
    """
    if not level:
        return np.nan
    spec = next((c for c in target.caches if c.name == level.get("level")), None)
    total = float(level.get("hits", 0) + level.get("misses", 0))
    if spec is None or spec.write_policy != "write_back" or total <= 0:
        return level.get("hit_rate", np.nan)
    loads = float(level.get("load_hits", 0) + level.get("load_misses", 0))
    share = float(getattr(spec, "partition_copy_share", 0.0))
    stores = (total - loads) * (1.0 + share)
    fills = 0.0  # only the last level fills from DRAM
    if spec is target.caches[-1]:
        fills = dram_read_bytes / float(spec.sector_bytes or spec.line_bytes) * share
    return (float(level.get("load_hits", 0)) + stores) / (loads + stores + fills)


def counted_load_hit_rate(level: dict, target, dram_read_bytes: float = 0.0) -> float:
    """Load hit rate as the device's counters give it (``lts__t_sector_op_read_hit_rate``).

    Where the level is split in partitions (``partition_copy_share`` s), the other partition
    looks up s of the sectors filled from DRAM again, and misses: those lookups are read
    lookups too.  Otherwise the replay's own load hit rate.
    """
    if not level:
        return np.nan
    spec = next((c for c in target.caches if c.name == level.get("level")), None)
    loads = float(level.get("load_hits", 0) + level.get("load_misses", 0))
    share = float(getattr(spec, "partition_copy_share", 0.0)) if spec is not None else 0.0
    if loads <= 0:
        return level.get("load_hit_rate", np.nan)
    fills = 0.0
    if spec is not None and spec is target.caches[-1] and share > 0:
        fills = dram_read_bytes / float(spec.sector_bytes or spec.line_bytes) * share
    return float(level.get("load_hits", 0)) / (loads + fills)


def _ratio(sites: pd.DataFrame, space: str, op: str, col: str) -> float:
    if sites.empty or col not in sites.columns:
        return np.nan
    s = sites[(sites["space"] == space) & (sites["op"] == op)]
    req = float(s["requests"].sum())
    return float(s[col].sum()) / req if req > 0 else np.nan


def match_launches(measured: pd.DataFrame, model: pd.DataFrame) -> list[int | None]:
    """For each measured row, the index of its model row (or None)."""
    used: set[int] = set()
    out = []
    for _, m in measured.iterrows():
        same_kernel = [i for i in model.index if model.at[i, "kernel"] == m["kernel"] and i not in used]
        shape = (_dims(m["grid"]), _dims(m["block"]))
        shaped = [i for i in same_kernel
                  if (_dims(model.at[i, "grid"]), _dims(model.at[i, "block"])) == shape]
        pick = (shaped or same_kernel or [None])[0]
        if pick is not None:
            used.add(pick)
        out.append(pick)
    return out


def _dims(v) -> tuple | None:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return None
    return tuple(int(x) for x in v) + (1,) * (3 - len(tuple(v)))


@dataclass
class Calibration:
    """``frame``: one row per (measured launch, quantity); ``stats``: error statistics per quantity."""

    frame: pd.DataFrame
    stats: pd.DataFrame
    target: str

    def wide(self) -> pd.DataFrame:
        """One row per measured launch, ``<quantity>_model`` / ``<quantity>_hw`` columns side by side."""
        f = self.frame
        first = f.groupby("ncu_id", sort=True)[["launch", "kernel"]].first()
        model = f.pivot(index="ncu_id", columns="quantity", values="model")
        hw = f.pivot(index="ncu_id", columns="quantity", values="measured")
        cols = {}
        for q in QUANTITIES:
            cols[f"{q}_model"] = model[q]
            cols[f"{q}_hw"] = hw[q]
        return first.join(pd.DataFrame(cols)).reset_index()

    def _repr_html_(self) -> str:
        return self.stats.to_html() + self.wide().to_html()


def compare(measured: pd.DataFrame, model: pd.DataFrame, target_name: str = "") -> Calibration:
    """Set the two sides against each other and compute error statistics."""
    picks = match_launches(measured, model)
    rows = []
    for (_, m), pick in zip(measured.iterrows(), picks, strict=True):
        mod = model.loc[pick] if pick is not None else None
        for q in QUANTITIES:
            hw = m[q]
            mv = None if mod is None else mod[q]
            rows.append({"ncu_id": int(m["ncu_id"]), "launch": None if pick is None else int(mod["launch"]),
                         "kernel": m["kernel"], "quantity": q, "model": mv, "measured": hw,
                         **_agreement(q, mv, hw)})
    frame = pd.DataFrame(rows)
    return Calibration(frame, _stats(frame), target_name)


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def _agreement(q: str, model, hw) -> dict:
    if _missing(model) or _missing(hw):
        return {"error": np.nan, "agree": None}
    if q == "verdict":
        return {"error": np.nan, "agree": bool(model == hw)}
    err = float(model) - float(hw)
    a, rel = TOLERANCE[q]
    return {"error": err, "agree": bool(abs(err) <= a + rel * abs(float(hw)))}


def _stats(frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for q in QUANTITIES:
        f = frame[(frame["quantity"] == q) & frame["agree"].notna()]
        err = f["error"].astype(float).abs()
        rows.append({"quantity": q, "launches": len(f),
                     "mean_abs_error": float(err.mean()) if q != "verdict" and len(f) else np.nan,
                     "max_abs_error": float(err.max()) if q != "verdict" and len(f) else np.nan,
                     "agreement": float(f["agree"].astype(bool).mean()) if len(f) else np.nan})
    return pd.DataFrame(rows)


def calibrate(measured: str | os.PathLike, trace, target="nvidia-h200", *,
              sol: str | os.PathLike | None = None) -> Calibration:
    """Replay ``trace`` on ``target`` and compare with the ncu export ``measured``.

    ``sol`` is the ``--page details`` export with the SOLBottleneck rule; without
    it the verdict column has no hardware side.
    """
    from analyzers.analyze import analyze
    from tracekit.targets import load_target

    raw = read_ncu_raw(measured)
    sol_frame = read_ncu_sol(sol) if sol is not None else None
    tgt = load_target(target) if isinstance(target, (str, os.PathLike)) else target
    analysis = analyze(trace, tgt)
    name = getattr(tgt, "name", str(target))
    return compare(measured_frame(raw, sol_frame), model_frame(analysis, tgt), name)


def default_sol_path(measured: str | os.PathLike) -> Path | None:
    """``ncu_raw.csv`` -> ``ncu_sol.csv`` beside it, when that file exists."""
    p = Path(measured)
    cand = p.with_name(p.name.replace("raw", "sol")) if "raw" in p.name else None
    return cand if cand is not None and cand.exists() and cand != p else None
