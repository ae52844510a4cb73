"""ADR-WG-WAVE-MULTIPLE: the first local dimension is not a whole number of waves."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.changes import WorkGroupSize


@rule(id="ADR-WG-WAVE-MULTIPLE", what_if="work-group",
      title="Work-group dimension 0 is not a whole number of waves",
      vendors=("adreno",), inputs=("launch.local_size", "target.simd.width"),
      citation=C("adreno", "6.1.5 Workgroup size and shape tuning"),
      fix="""Make the first local dimension a multiple of the wave size (pad the global size to match)
      so no wave starts with lanes switched off; this matters most when the kernel also branches.""")
def check(f, t):
    x = f.launch.local_size[0]
    if x % f.width == 0:
        return None
    ev = f.idle_lanes()
    ev["local_size_x"] = x
    shape = f.whole_wave_group()
    if shape is not None:
        ev["suggested_local_size"] = list(shape)
    return Hit(ev, gain_s=f.gain_filling_lanes(ev["lane_fill"]),
               change=WorkGroupSize(shape) if shape is not None else None)
