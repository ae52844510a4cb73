"""Occupancy and kernel length: resident waves, registers, local-memory budget, run time."""

from __future__ import annotations

from analyzers.rules.base import Citation as C
from analyzers.rules.base import Hit, rule


@rule(id="GEN-LOW-OCCUPANCY", title="Few waves resident per compute unit",
      metrics=("occupancy.resident_waves_per_cu", "occupancy.occupancy_fraction", "occupancy.limiter"),
      severity="medium",
      citation={"powervr": C("pvr", "Maximise Utilisation and Occupancy"),
                "adreno": C("adreno", "3.2.3 Latency hiding"),
                "intel": C("intel", "Optimizing Utilization of Execution Units"),
                "nvidia": C("cuda", "Occupancy")},
      fix="""Relieve the resource named as the limiter: less local memory or fewer registers per item,
      or a work-group size that packs more groups per compute unit, so stalled waves can be swapped out.""")
def gen_low_occupancy(ctx):
    m = ctx.metrics
    frac = m.get("occupancy_fraction")
    if frac is None or m.get("occupancy_limiter") == "dataset" or frac >= ctx.t("occupancy_fraction"):
        return None
    return Hit({"resident_waves_per_cu": m.get("resident_waves_per_cu"),
                "max_waves_per_cu": ctx.target.occupancy.max_waves_per_cu,
                "occupancy_fraction": round(float(frac), 4), "limiter": m.get("occupancy_limiter")})


@rule(id="PVR-REGISTERS", title="More than 40 registers per item lowers utilisation",
      vendors=("powervr",), metrics=("launch.registers_per_item",), severity="medium",
      citation=C("pvr", "Reduce Unified Store Usage (Private Memory)"),
      fix="""Cut live temporaries and private arrays (recompute cheap values, narrow types, shorter
      unrolled loops) to stay within about 40 scalar registers per item.""")
def pvr_registers(ctx):
    regs = ctx.launch.registers_per_item
    limit = ctx.t("pvr_registers")
    if not regs or regs <= limit:
        return None
    return Hit({"registers_per_item": int(regs), "budget": int(limit)})


@rule(id="ADR-FEW-WAVES", title="Register footprint allows fewer than 4 waves",
      vendors=("adreno",), metrics=("launch.registers_per_item", "occupancy.registers_per_cu"),
      severity="high", citation=C("adreno", "4.4.4 SDP: static code analysis"),
      fix="""Shrink the per-item register footprint: fewer live values, less work per item, 16-bit
      types where precision allows, and 32-bit instead of size_t indices.""")
def adr_few_waves(ctx):
    regs = ctx.launch.registers_per_item
    per_cu = ctx.target.occupancy.registers_per_cu
    if not regs or not per_cu:
        return None
    waves = per_cu // (regs * ctx.width)
    if waves >= ctx.t("adreno_min_waves"):
        return None
    return Hit({"registers_per_item": int(regs), "waves_by_registers": int(waves),
                "minimum": int(ctx.t("adreno_min_waves"))})


@rule(id="INTEL-SLM-FOOTPRINT", title="More than 4 KB of SLM per work-group",
      vendors=("intel",), metrics=("launch.local_mem_bytes", "local_memory.size_bytes"), severity="medium",
      citation=C("intel", "Work-Group Size Recommendations Summary"),
      fix="""Reduce the local memory a group allocates (smaller tiles, narrower types, one buffer
      reused across phases) so more groups fit in a subslice's SLM at once.""")
def intel_slm_footprint(ctx):
    b = ctx.launch.local_mem_bytes
    limit = ctx.t("intel_slm_bytes")
    if b <= limit:
        return None
    fit = ctx.target.local_memory.size_bytes // b
    return Hit({"local_mem_bytes": b, "budget": int(limit), "groups_fitting": int(fit)})


@rule(id="ADR-LONG-KERNEL", title="Estimated kernel time beyond tens of milliseconds",
      vendors=("adreno",), metrics=("time.total_s",), severity="low",
      citation=C("adreno", "3.3.2 Limit kernel/workgroup execution time on GPU"),
      fix="""Split the work over several shorter dispatches so the display and other clients get the
      GPU between them and no watchdog reset is risked.""")
def adr_long_kernel(ctx):
    total = float(ctx.times.get("total_s", 0.0))
    limit = ctx.t("adreno_kernel_time_s")
    if total <= limit:
        return None
    return Hit({"estimated_s": round(total, 6), "limit_s": limit})


@rule(id="PVR-KERNEL-SHORT", title="Very few instructions per work-item",
      vendors=("powervr",), metrics=("instructions.count",), severity="low",
      citation=C("pvr", "Optimisation Strategy Cheat Sheet"),
      fix="""Give each item more work (several outputs per item, or fuse neighbouring kernels) so the
      cost of setting up tasks is spread over a few tens of instructions or more.""")
def pvr_kernel_short(ctx):
    if not len(ctx.ops):
        return None
    items = ctx.launch.groups_recorded * ctx.launch.group_size
    per_item = ctx.ops["executions"].sum() / max(items, 1)
    if per_item >= ctx.t("pvr_min_instructions"):
        return None
    return Hit({"instructions_per_item": round(float(per_item), 2),
                "suggested_min": int(ctx.t("pvr_min_instructions"))})
