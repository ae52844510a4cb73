"""PVR-WG-MULTIPLE: a work-group size that leaves the last 32-thread task of every group part empty."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.changes import WorkGroupSize


@rule(id="PVR-WG-MULTIPLE", what_if="work-group",
      title="Work-group size is not a multiple of the 32-thread task",
      vendors=("powervr",), inputs=("launch.local_size", "target.simd.width"),
      citation=C("pvr", "Aim for a Work-Group Size of 32"),
      fix="""Pick a work-group size of 32 or a multiple of 32 up to 512 so every task the group is
      split into runs full; pad the global size and guard the extra items instead of shrinking groups.""")
def check(f, t):
    size = f.group_size
    declared = f.launch.work_group_size_declared
    packable = size in (4, 8, 16) and not (f.launch.has_barrier and declared is not True)
    if size % f.width == 0 or packable:
        return None
    ev = f.idle_lanes()
    shape = f.whole_wave_group()
    if shape is not None:
        ev["suggested_local_size"] = list(shape)
    return Hit(ev, gain_s=f.gain_filling_lanes(ev["lane_fill"]),
               change=WorkGroupSize(shape) if shape is not None else None)
