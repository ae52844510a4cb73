"""GEN-DATASET-SMALL: too few work-items to keep every compute unit busy."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule, vendor_key


@rule(id="GEN-DATASET-SMALL", title="Too few work-items to fill the GPU",
      inputs=("launch.global_size", "target.compute_units", "occupancy.hardware_work_groups_per_cu"),
      citation={"powervr": C("pvr-uo", "Work on Large datasets"),
                "adreno": C("adreno", "3.2.3 Latency hiding"),
                "intel": C("intel", "Optimizing Utilization of Execution Units"),
                "nvidia": C("cuda", "Occupancy")},
      thresholds={"powervr_items_per_cu": Threshold(512, "powervr-maximise-utilisation-and-occupancy.txt "
                                                         "Work on Large datasets: about 512 items per USC"),
                  "adreno_waves_per_cu": Threshold(4, "adreno §4.4.4 SDP: static code analysis: fewer than 4 "
                                                      "waves is flagged"),
                  "fill": Threshold(0.5, "team choice (Intel, NVIDIA): the launch has fewer waves than half "
                                         "the slots the kernel can keep resident over all compute units; "
                                         "above that every unit is busy most of the launch")},
      fix="""Give the launch more independent work (a larger problem per dispatch, several dispatches
      merged, or smaller pieces of work per item) so every compute unit holds enough waves to hide memory
      latency; very small jobs may be better left on the CPU.""")
def check(f, t):
    tgt = f.target
    waves = f.total_waves
    if vendor_key(tgt) == "powervr":
        need_items = int(t.powervr_items_per_cu) * tgt.compute_units
        if f.work_items >= need_items:
            return None
        return Hit({"work_items": f.work_items, "needed_items": need_items,
                    "compute_units": tgt.compute_units})
    if vendor_key(tgt) == "adreno":
        need = int(t.adreno_waves_per_cu * tgt.compute_units)
    else:
        # the slots this kernel can fill: its hardware residency limit (registers, local memory,
        # work-group size), not the unit's whole wave pool, which many kernels can never reach
        need = int(t.fill * resident_slots(f) * tgt.compute_units)
    if waves >= need:
        return None
    return Hit({"work_items": f.work_items, "waves": waves, "waves_needed": need,
                "compute_units": tgt.compute_units})


def resident_slots(f) -> int:
    """Waves one compute unit can hold of this kernel (its hardware limit, the grid left out)."""
    occ, pool = f.occupancy, int(f.target.occupancy.max_waves_per_cu)
    if occ is None:
        return pool
    per_group = -(-f.group_size // f.width)
    return max(1, min(pool, int(occ.hardware_work_groups_per_cu) * per_group))
