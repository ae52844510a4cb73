"""PVR-WG-PACK-BARRIER: small work-groups with barriers cannot share a task."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.declare import DeclareSize


@rule(id="PVR-WG-PACK-BARRIER", title="Small work-groups with barriers run one group per task",
      vendors=("powervr",), what_if="declare-size",
      inputs=("launch.local_size", "launch.has_barrier", "launch.work_group_size_declared"),
      citation=C("pvr", "Execution"),
      fix="""Groups of 4, 8 or 16 items share a task only when the compiler knows the size: declare
      reqd_work_group_size on the kernel, or use groups of 32 so barriers do not leave most of each
      task empty.""")
def check(f, t):
    size = f.group_size
    declared = f.launch.work_group_size_declared
    if size not in (4, 8, 16) or not f.launch.has_barrier or declared is True:
        return None
    fill = size / f.width
    ev = {"work_group_size": size, "task": f.width, "lane_fill": round(fill, 4),
          "reqd_work_group_size": declared}
    return Hit(ev, change=DeclareSize())
