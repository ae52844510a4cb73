"""INTEL-WG-SHAPE-2D: a 2D work-group too narrow in dimension 0 to coalesce row-major data."""

from analyzers.rules.memory.uncoalesced_load import RATIO, uncoalesced
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import rule


@rule(id="INTEL-WG-SHAPE-2D", what_if="coalesce",
      title="2D work-group too narrow in dimension 0 for row-major data",
      vendors=("intel",), inputs=("launch.local_size", "sites.transactions", "sites.ideal_transactions"),
      citation=C("intel", "__global Memory and __constant Memory"),
      thresholds={"ratio": RATIO},
      fix="""Shape the group as rows: make dimension 0 cover at least a cache line of elements per
      hardware thread (e.g. 16x1 for int data) so each SIMD access stays within one line.""")
def check(f, t):
    lx, ly = f.launch.local_size[0], f.launch.local_size[1]
    if ly <= 1 or lx >= f.width:
        return None
    hit = uncoalesced(f, "load", t.ratio)
    if hit is None:
        return None
    hit.evidence.update({"local_size": list(f.launch.local_size), "wave_width": f.width})
    return hit
