"""Work-group shape and dataset size: idle lanes, packing, sizes the guides recommend."""

from __future__ import annotations

import math

from analyzers.rules.base import Citation as C
from analyzers.rules.base import Hit, rule, vendor_key


def _idle(ctx) -> dict:
    size, w = ctx.launch.group_size, ctx.width
    waves = math.ceil(size / w)
    return {"work_group_size": size, "wave_width": w, "waves_per_group": waves,
            "idle_lanes_per_group": waves * w - size, "lane_fill": round(size / (waves * w), 4)}


def _idle_gain(ctx, fill: float) -> float:
    return ctx.gain_alu(float(ctx.times.get("alu_s", 0.0)) * (1.0 - fill))


@rule(id="PVR-WG-MULTIPLE", title="Work-group size is not a multiple of the 32-thread task",
      vendors=("powervr",), metrics=("launch.local_size", "simd.width"), severity="medium",
      citation=C("pvr", "Aim for a Work-Group Size of 32"),
      fix="""Pick a work-group size of 32 or a multiple of 32 up to 512 so every task the group is
      split into runs full; pad the global size and guard the extra items instead of shrinking groups.""")
def pvr_wg_multiple(ctx):
    size = ctx.launch.group_size
    task = int(ctx.t("pvr_task"))
    packable = size in (4, 8,
            16) and not (ctx.launch.has_barrier and ctx.launch.reqd_work_group_size is not True)
    if size % task == 0 or packable:
        return None
    ev = _idle(ctx)
    return Hit(ev, gain_s=_idle_gain(ctx, ev["lane_fill"]))


@rule(id="PVR-WG-PACK-BARRIER", title="Small work-groups with barriers run one group per task",
      vendors=("powervr",), metrics=("launch.local_size", "instructions.barrier",
              "launch.reqd_work_group_size"),
      severity="high", citation=C("pvr", "Execution"),
      fix="""Groups of 4, 8 or 16 items share a task only when the compiler knows the size: declare
      reqd_work_group_size on the kernel, or use groups of 32 so barriers do not leave most of each
      task empty.""")
def pvr_wg_pack_barrier(ctx):
    size = ctx.launch.group_size
    if size not in (4, 8, 16) or not ctx.launch.has_barrier or ctx.launch.reqd_work_group_size is True:
        return None
    task = int(ctx.t("pvr_task"))
    fill = size / task
    ev = {"work_group_size": size, "task": task, "lane_fill": round(fill, 4),
          "reqd_work_group_size": ctx.launch.reqd_work_group_size}
    return Hit(ev, gain_s=_idle_gain(ctx, fill))


@rule(id="PVR-REQD-WG-SIZE", title="Kernel with barriers and local memory does not fix its work-group size",
      vendors=("powervr",), metrics=("launch.source", "instructions.barrier", "accesses.local"),
      severity="low", citation=C("pvr", "Tell the Compiler the Work-Group Size"),
      fix="""Add __attribute__((reqd_work_group_size(X, Y, Z))) so the compiler can size the common
      store and schedule barriers for the group it will really get; build one variant per size you use.""")
def pvr_reqd_wg_size(ctx):
    lf = ctx.launch
    if not (lf.has_barrier and lf.uses_local) or lf.reqd_work_group_size is not False:
        return None
    return Hit({"work_group_size": lf.group_size, "local_mem_bytes": lf.local_mem_bytes})


@rule(id="PVR-DATASET-MULTIPLE-32", title="Global size is not a multiple of 32",
      vendors=("powervr",), metrics=("launch.global_size",), severity="low",
      citation=C("pvr", "Aim for a dataset Size that is a Multiple of 32"),
      fix="""Round the global size up to a multiple of 32 and let the surplus items return early
      after a bounds check, so the last tasks are not partly empty.""")
def pvr_dataset_multiple(ctx):
    n = ctx.launch.work_items
    task = int(ctx.t("pvr_task"))
    if n % task == 0:
        return None
    return Hit({"work_items": n, "padded": math.ceil(n / task) * task})


@rule(id="ADR-WG-WAVE-MULTIPLE", title="Work-group dimension 0 is not a whole number of waves",
      vendors=("adreno",), metrics=("launch.local_size", "simd.width"), severity="medium",
      citation=C("adreno", "6.1.5 Workgroup size and shape tuning"),
      fix="""Make the first local dimension a multiple of the wave size (pad the global size to match)
      so no wave starts with lanes switched off; this matters most when the kernel also branches.""")
def adr_wg_wave_multiple(ctx):
    x = ctx.launch.local_size[0]
    if x % ctx.width == 0:
        return None
    ev = _idle(ctx)
    ev["local_size_x"] = x
    return Hit(ev, gain_s=_idle_gain(ctx, ev["lane_fill"]))


@rule(id="NV-WG-WARP-MULTIPLE", title="Block size is not a multiple of the 32-thread warp",
      vendors=("nvidia",), metrics=("launch.local_size", "simd.width"), severity="medium",
      citation=C("cuda", "Thread and Block Heuristics"),
      fix="""Use a work-group size that is a multiple of the warp width so the last warp of every
      group is full; 128 to 256 items is a good first choice.""")
def nv_wg_warp_multiple(ctx):
    if ctx.launch.group_size % ctx.width == 0:
        return None
    ev = _idle(ctx)
    return Hit(ev, gain_s=_idle_gain(ctx, ev["lane_fill"]))


@rule(id="INTEL-WG-BARRIER-SIZE", title="Work-group size outside 64..256 for a kernel with barriers or SLM",
      vendors=("intel",), metrics=("launch.local_size", "instructions.barrier", "accesses.local"),
      severity="medium", citation=C("intel", "Work-Group Size Recommendations Summary"),
      fix="""Kernels that synchronise or share SLM are limited in how many groups a subslice holds;
      use a power-of-two group of 64 to 256 items so each resident group brings enough hardware threads.""")
def intel_wg_barrier_size(ctx):
    lf = ctx.launch
    if not (lf.has_barrier or lf.uses_local):
        return None
    size = lf.group_size
    lo, hi = ctx.t("intel_wg_min"), ctx.t("intel_wg_max")
    if lo <= size <= hi and size & (size - 1) == 0:
        return None
    return Hit({"work_group_size": size, "recommended_min": int(lo), "recommended_max": int(hi),
                "has_barrier": lf.has_barrier, "uses_local": lf.uses_local})


@rule(id="INTEL-WG-PLAIN-32", title="Kernel without barriers or SLM uses a work-group size other than 32",
      vendors=("intel",), metrics=("launch.local_size", "instructions.barrier", "accesses.local"),
      severity="info", citation=C("intel", "Work-Group Size Recommendations Summary"),
      fix="""For a kernel that never synchronises, start from 32 items per group (or let the runtime
      choose) and keep another size only if a measurement prefers it.""")
def intel_wg_plain(ctx):
    lf = ctx.launch
    want = int(ctx.t("intel_wg_plain"))
    if lf.has_barrier or lf.uses_local or lf.group_size == want:
        return None
    return Hit({"work_group_size": lf.group_size, "suggested": want})


@rule(id="INTEL-GLOBAL-MULTIPLE-8", title="Global size is not a multiple of 8",
      vendors=("intel",), metrics=("launch.global_size",), severity="low",
      citation=C("intel", "Avoiding Handling Edge Conditions in Kernels"),
      fix="""Dispatch a global size that is a multiple of 8 (the narrowest SIMD width) and handle the
      remaining items separately, so the last hardware thread of each row is not partly idle.""")
def intel_global_multiple(ctx):
    m = int(ctx.t("intel_global_multiple"))
    x = ctx.launch.global_size[0]
    if x % m == 0:
        return None
    return Hit({"global_size_x": x, "multiple": m, "rounded_down": x - x % m})


@rule(id="GEN-DATASET-SMALL", title="Too few work-items to fill the GPU",
      metrics=("launch.global_size", "target.compute_units", "occupancy.max_waves_per_cu"),
      severity="high",
      citation={"powervr": C("pvr-uo", "Work on Large datasets"),
                "adreno": C("adreno", "3.2.3 Latency hiding"),
                "intel": C("intel", "Optimizing Utilization of Execution Units"),
                "nvidia": C("cuda", "Occupancy")},
      fix="""Give the launch more independent work (a larger problem per dispatch, several dispatches
      merged, or smaller pieces of work per item) so every compute unit holds enough waves to hide memory
      latency; very small jobs may be better left on the CPU.""")
def gen_dataset_small(ctx):
    t, lf = ctx.target, ctx.launch
    waves = ctx.metrics["total_waves"]
    if vendor_key(t) == "powervr":
        need_items = int(ctx.t("pvr_items_per_cu")) * t.compute_units
        if lf.work_items >= need_items:
            return None
        return Hit({"work_items": lf.work_items, "needed_items": need_items,
                    "compute_units": t.compute_units})
    per_cu = ctx.t("adreno_min_waves") if vendor_key(t) == "adreno" else t.occupancy.max_waves_per_cu
    need = int(per_cu * t.compute_units)
    if waves >= need:
        return None
    return Hit({"work_items": lf.work_items, "waves": waves, "waves_needed": need,
                "compute_units": t.compute_units})
