"""INTEL-SLM-FOOTPRINT: more than 4 KB of SLM per work-group."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="INTEL-SLM-FOOTPRINT", title="More than 4 KB of SLM per work-group",
      vendors=("intel",), inputs=("launch.local_mem_bytes", "target.local_memory.size_bytes"),
      citation=C("intel", "Work-Group Size Recommendations Summary"),
      thresholds={"bytes": Threshold(4096, "intel Work-Group Size Recommendations Summary: 4 KB of SLM per "
                                           "work-group")},
      fix="""Reduce the local memory a group allocates (smaller tiles, narrower types, one buffer
      reused across phases) so more groups fit in a subslice's SLM at once.""")
def check(f, t):
    b = f.launch.local_mem_bytes
    if b <= t.bytes:
        return None
    fit = f.target.local_memory.size_bytes // b
    return Hit({"local_mem_bytes": b, "budget": int(t.bytes), "groups_fitting": int(fit)})
