"""INTEL-WG-BARRIER-SIZE: a kernel with barriers or SLM outside the recommended group sizes."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule

WHY = "intel Work-Group Size Recommendations Summary: 64 to 256 items"


@rule(id="INTEL-WG-BARRIER-SIZE", title="Work-group size outside 64..256 for a kernel with barriers or SLM",
      vendors=("intel",), inputs=("launch.local_size", "launch.has_barrier", "patterns.local_stores"),
      citation=C("intel", "Work-Group Size Recommendations Summary"),
      thresholds={"min_items": Threshold(64, WHY), "max_items": Threshold(256, WHY)},
      fix="""Kernels that synchronise or share SLM are limited in how many groups a subslice holds;
      use a power-of-two group of 64 to 256 items so each resident group brings enough hardware threads.""")
def check(f, t):
    if not (f.launch.has_barrier or f.uses_local):
        return None
    size = f.group_size
    if t.min_items <= size <= t.max_items and size & (size - 1) == 0:
        return None
    return Hit({"work_group_size": size, "recommended_min": int(t.min_items),
                "recommended_max": int(t.max_items), "has_barrier": f.launch.has_barrier,
                "uses_local": f.uses_local})
