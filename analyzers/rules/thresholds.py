"""Every threshold a rule compares against, in one place, each with its reason.

A value comes from a guide (the section is named) or is a team choice (said
so, with why).  A target file may override any of them under
``[extra.rule_thresholds]`` (for example ``divergence_utilization = 0.6``); the
rules read them only through :func:`threshold`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Threshold:
    value: float
    source: str


THRESHOLDS: dict[str, Threshold] = {
    # -- reporting floor ---------------------------------------------------------------
    "min_site_share": Threshold(
        0.02, "team choice: a site must carry at least 2% of the launch's accesses or issues to be "
              "named, so a checklist is not flooded with cold lines"),
    # -- global memory -------------------------------------------------------------------
    "uncoalesced_ratio": Threshold(
        1.5, "team choice: transactions per request at least 1.5x the ideal for the bytes the lanes "
             "asked for (the ideal is the guides' coalescing rule, e.g. adreno §3.2.6)"),
    "misaligned_fraction": Threshold(
        0.25, "team choice: a quarter of a site's requests need one transaction more than their "
              "contiguous span would aligned"),
    "vector_run_min": Threshold(
        2, "adreno §7.2.2 / intel Loading and Storing Data in Greatest Chunks: two or more adjacent "
           "narrow loads by one work-item could be one wider load"),
    "vector_bytes": Threshold(
        16, "adreno §7.2.2 and intel Granularity: 128 bits is the widest single access both guides "
            "recommend"),
    "reread_per_item": Threshold(
        2.0, "intel Using Loops: a work-item reading the same global address twice or more on "
             "average re-loads data it could keep in a private variable"),
    "hot_address_items": Threshold(
        0.5, "team choice for intel __global Memory and __constant Memory: one address read by more "
             "than half the work-items of the launch is a hot element"),
    "const_distinct_per_request": Threshold(
        1.5, "adreno §7.1.3: constant memory serves one address per wave at full speed; more than "
             "1.5 distinct addresses per request on average means per-lane indexing"),
    "uniform_request_fraction": Threshold(
        0.9, "adreno §6.4: a buffer read at one address by every lane in 90% of its requests "
             "behaves like constant data"),
    "cache_thrash_ratio": Threshold(
        4.0, "adreno §7.6: DRAM bytes four times the unique footprint means lines are fetched again "
             "and again (team choice of the factor)"),
    "image_rows_min": Threshold(
        3, "adreno §6.2: a work-item reading three or more rows of one buffer is a 2D stencil an "
           "image and sampler would serve"),
    "atomic_same_address": Threshold(
        32, "adreno §7.3: 32 or more atomics on one address serialise at least a wave's worth of "
            "updates (team choice of the count)"),
    # -- local memory --------------------------------------------------------------------
    "bank_conflict_degree": Threshold(
        1.25, "team choice: mean conflict degree above 1.25 (a quarter of requests serialised "
              "twice); the degree itself follows the target's bank rules"),
    "local_reads_per_word": Threshold(
        1.0, "powervr Use Shared/Local Memory Sensibly and intel __local Memory: a local word read "
             "once on average is staging without reuse"),
    "local_reads_per_word_adreno": Threshold(
        2.0, "adreno §7.1.2: local memory pays off only for data read more than twice"),
    "single_loader_fraction": Threshold(
        0.125, "intel Applying Shared Local Memory: local stores from at most one item in eight "
               "mean a few items fill the tile while the rest wait"),
    "intel_slm_bytes": Threshold(
        4096, "intel Work-Group Size Recommendations Summary: 4 KB of SLM per work-group"),
    # -- execution -----------------------------------------------------------------------
    "divergence_utilization": Threshold(
        0.75, "team choice: a branch-governed site whose lanes are less than 75% busy per issue"),
    "occupancy_fraction": Threshold(
        0.25, "team choice: fewer than a quarter of the resident-wave slots filled"),
    "pvr_items_per_cu": Threshold(
        512, "powervr-maximise-utilisation-and-occupancy.txt Work on Large datasets: about 512 items "
             "per USC"),
    "pvr_task": Threshold(32, "powervr Execution: a task is 32 threads"),
    "pvr_registers": Threshold(
        40, "powervr Reduce Unified Store Usage (Private Memory): 40 scalar values per item keep 512 "
            "threads resident"),
    "pvr_min_instructions": Threshold(
        20, "powervr Optimisation Strategy Cheat Sheet: aim for a few tens to a few hundreds of "
            "instructions per item"),
    "pvr_async_min_group": Threshold(
        17, "powervr System Memory Access: the work-group burst to the common store needs 17 or "
            "more items"),
    "intel_wg_min": Threshold(64, "intel Work-Group Size Recommendations Summary: 64 to 256 items"),
    "intel_wg_max": Threshold(256, "intel Work-Group Size Recommendations Summary: 64 to 256 items"),
    "intel_wg_plain": Threshold(
        32, "intel Work-Group Size Recommendations Summary: 32 items for kernels without barriers "
            "or SLM"),
    "intel_global_multiple": Threshold(
        8, "intel Avoiding Handling Edge Conditions in Kernels: global sizes a multiple of 8"),
    "adreno_min_waves": Threshold(
        4, "adreno §4.4.4 SDP: static code analysis: fewer than 4 waves is flagged"),
    "adreno_kernel_time_s": Threshold(
        0.03, "adreno §3.3.2 Limit kernel/workgroup execution time on GPU: tens of milliseconds, "
              "with UI frames every ~30 ms"),
    "int64_fraction": Threshold(
        0.01, "team choice: 64-bit integer ops at least 1% of executed instructions"),
    "int_div_alu_share": Threshold(
        0.01, "team choice: integer division at least 1% of the ALU cycles"),
    "int_arith_fraction": Threshold(
        0.5, "team choice for powervr Tweak Work for the Graphics Core / intel Using Floating Point "
             "for Calculations: integer add/mul half or more of the arithmetic"),
    "unfused_fraction": Threshold(
        0.1, "team choice: separate fp32 mul and add pairs at least 10% of float arithmetic"),
}


def threshold(ctx, name: str) -> float:
    """The value of ``name`` for this context's target (target file override, else default)."""
    extra = getattr(ctx.target, "extra", None) or {}
    overrides = extra.get("rule_thresholds", {}) if isinstance(extra, dict) else {}
    if name in overrides:
        return float(overrides[name])
    return THRESHOLDS[name].value
