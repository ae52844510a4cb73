"""GEN-CACHE-THRASH: DRAM traffic far above what the launch touches: lines fetched again and again."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="GEN-CACHE-THRASH", title="DRAM traffic far above the data footprint (cache thrashing)",
      vendors=("powervr", "adreno", "intel"), inputs=("memory.dram_bytes", "patterns.footprint_bytes"),
      citation={"powervr": C("pvr", "Access Memory in Row-Major Order"),
                "adreno": C("adreno", "7.6 Improve the GPU’s L1/L2 cache usage"),
                "intel": C("intel", "Kernel Memory Access Optimization Summary")},
      thresholds={"ratio": Threshold(4.0, "adreno §7.6: DRAM bytes four times the unique footprint means "
                                          "lines are fetched again and again (team choice of the factor)")},
      fix="""Shrink the working set each group touches at once (smaller or squarer tiles, a traversal
      order that finishes with a line before moving on, fewer groups in flight over distant data) so lines
      are used fully before they are evicted.""")
def check(f, t):
    if not f.cache_modelled:
        return None
    foot = float(f.patterns.footprint_bytes) * f.sampling_scale
    dram = f.dram_bytes
    if not foot or dram < t.ratio * foot:
        return None
    # DRAM's own time shrinks to the footprint's; the launch gains only where DRAM binds
    return Hit({"dram_bytes": int(dram), "footprint_bytes": int(foot), "ratio": round(dram / foot, 2)},
               gain_s=f.gain_level("DRAM", f.memory_levels.get("DRAM", 0.0) * (1 - foot / dram)))
