"""GEN-LOW-OCCUPANCY: few waves resident per compute unit to hide latency with."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule

_LIMITER = {"grid_size": "dataset"}


@rule(id="GEN-LOW-OCCUPANCY", title="Few waves resident per compute unit",
      inputs=("occupancy.waves_per_cu", "occupancy.occupancy", "occupancy.limiting_factor"),
      citation={"powervr": C("pvr", "Maximise Utilisation and Occupancy"),
                "adreno": C("adreno", "3.2.3 Latency hiding"),
                "intel": C("intel", "Optimizing Utilization of Execution Units"),
                "nvidia": C("cuda", "Occupancy")},
      thresholds={"fraction": Threshold(0.25, "team choice: fewer than a quarter of the resident-wave slots "
                                              "filled")},
      fix="""Relieve the resource named as the limiter: less local memory or fewer registers per item,
      or a work-group size that packs more groups per compute unit, so stalled waves can be swapped out.""")
def check(f, t):
    occ = f.occupancy
    if occ is None:
        return None
    frac = float(occ.occupancy)
    limiter = _LIMITER.get(occ.limiting_factor, occ.limiting_factor)
    if limiter == "dataset" or frac >= t.fraction:
        return None
    return Hit({"resident_waves_per_cu": occ.waves_per_cu,
                "max_waves_per_cu": f.target.occupancy.max_waves_per_cu,
                "occupancy_fraction": round(frac, 4), "limiter": limiter})
