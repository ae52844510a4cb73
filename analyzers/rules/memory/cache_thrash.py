"""GEN-CACHE-THRASH: DRAM traffic far above what the launch touches: lines fetched again and again."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.swizzle import Swizzle

#: Work-groups on a side of the tiles the replay launches the grid in (16 groups per tile: about
#: the groups a mobile GPU keeps in flight, team choice).
TILE = 4


@rule(id="GEN-CACHE-THRASH", title="DRAM traffic far above the data footprint (cache thrashing)",
      vendors=("powervr", "adreno", "intel"), inputs=("memory.dram_bytes", "patterns.footprint_bytes"),
      what_if="swizzle",
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
    # priced by replay: the grid walked in square tiles of work-groups (a 1-D grid has no such order:
    # the item stays a note without a gain)
    return Hit({"dram_bytes": int(dram), "footprint_bytes": int(foot), "ratio": round(dram / foot, 2)},
               change=Swizzle(TILE))
