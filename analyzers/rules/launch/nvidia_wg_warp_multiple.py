"""NV-WG-WARP-MULTIPLE: a block size that leaves the last warp of every block part empty."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.changes import WorkGroupSize


@rule(id="NV-WG-WARP-MULTIPLE", what_if="work-group",
      title="Block size is not a multiple of the 32-thread warp",
      vendors=("nvidia",), inputs=("launch.local_size", "target.simd.width"),
      citation=C("cuda", "Thread and Block Heuristics"),
      fix="""Use a work-group size that is a multiple of the warp width so the last warp of every
      group is full; 128 to 256 items is a good first choice.""")
def check(f, t):
    if f.group_size % f.width == 0:
        return None
    ev = f.idle_lanes()
    shape = f.whole_wave_group()
    if shape is not None:
        ev["suggested_local_size"] = list(shape)
    return Hit(ev, gain_s=f.gain_filling_lanes(ev["lane_fill"]),
               change=WorkGroupSize(shape) if shape is not None else None)
