"""Take the replay's numbers from an analysis result into a RuleContext.

``result`` may be an ``AnalysisResult`` (the launch is picked by number) or one
``LaunchResult``.  What the result has replaces the fallback's value: times and
verdict, occupancy, DRAM bytes, SIMD utilisation, and per site the requests,
transactions, bytes moved and local conflict numbers.  Pattern facts the replay
does not compute (ideal transactions, alignment, adjacency, re-reads, reuse)
stay as measured from the accesses.
"""

from __future__ import annotations

_LIMITER = {"grid_size": "dataset"}
_SITE_COLUMNS = ("requests", "transactions", "bytes_moved", "transactions_per_request", "local_cycles",
                 "conflict_degree_mean")


def _launch_result(result, launch: int):
    if hasattr(result, "launches"):
        for r in result.launches:
            if r.launch == launch:
                return r
        return None
    return result


def apply_result(ctx, result) -> None:
    lr = _launch_result(result, ctx.launch.launch)
    if lr is None or getattr(lr, "error", None):
        return
    ctx.result = lr
    te = dict(lr.time_estimates or {})
    if te:
        ctx.times = {"alu_s": float(te.get("alu_s", 0.0)), "memory_s": float(te.get("memory_s", 0.0)),
                     "latency_s": float(te.get("latency_s", 0.0)), "total_s": float(te.get("total_s", 0.0)),
                     "verdict": lr.verdict, "memory_levels_s": te.get("memory_levels_s", {})}
    occ = getattr(lr, "occupancy", None)
    if occ is not None:
        ctx.metrics.update({"resident_waves_per_cu": occ.waves_per_cu,
                            "occupancy_fraction": float(occ.occupancy),
                            "occupancy_limiter": _LIMITER.get(occ.limiting_factor, occ.limiting_factor)})
    d = lr.to_dict()
    mem = d.get("memory") or {}
    if "dram_bytes" in mem:
        dram = mem["dram_bytes"]
        if isinstance(dram, dict):
            dram = sum(v for v in dram.values() if isinstance(v, (int, float)))
        ctx.metrics["dram_bytes"] = float(dram)
        ctx.metrics["cache_modelled"] = True
    simd = d.get("simd") or {}
    if "utilization" in simd:
        ctx.metrics["simd_utilization"] = float(simd.get("partial_wave_utilization", simd["utilization"]))
    ps = getattr(lr, "per_site", None)
    if ps is None or ps.empty or "space" not in ps:
        return
    mem_sites = ps[ps["space"].notna()].drop_duplicates("site").set_index("site")
    s = ctx.sites.set_index("site")
    common = s.index.intersection(mem_sites.index)
    for col in _SITE_COLUMNS:
        if col in mem_sites and len(common):
            s.loc[common, col] = mem_sites.loc[common, col].astype(float).to_numpy()
    ctx.sites = s.reset_index()
