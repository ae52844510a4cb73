"""INTEL-WG-PLAIN-32: a kernel without barriers or SLM uses a group size other than 32."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="INTEL-WG-PLAIN-32", title="Kernel without barriers or SLM uses a work-group size other than 32",
      vendors=("intel",), inputs=("launch.local_size", "launch.has_barrier", "patterns.local_stores"),
      citation=C("intel", "Work-Group Size Recommendations Summary"),
      thresholds={"items": Threshold(32, "intel Work-Group Size Recommendations Summary: 32 items for "
                                         "kernels without barriers or SLM")},
      fix="""For a kernel that never synchronises, start from 32 items per group (or let the runtime
      choose) and keep another size only if a measurement prefers it.""")
def check(f, t):
    want = int(t.items)
    if f.launch.has_barrier or f.uses_local or f.group_size == want:
        return None
    return Hit({"work_group_size": f.group_size, "suggested": want})
