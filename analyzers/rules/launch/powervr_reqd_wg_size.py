"""PVR-REQD-WG-SIZE: a kernel with barriers and local memory leaves its work-group size open."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule


@rule(id="PVR-REQD-WG-SIZE", title="Kernel with barriers and local memory does not fix its work-group size",
      vendors=("powervr",), inputs=("launch.source", "launch.has_barrier", "patterns.local_stores"),
      citation=C("pvr", "Tell the Compiler the Work-Group Size"),
      fix="""Add __attribute__((reqd_work_group_size(X, Y, Z))) so the compiler can size the common
      store and schedule barriers for the group it will really get; build one variant per size you use.""")
def check(f, t):
    if not (f.launch.has_barrier and f.uses_local) or f.launch.work_group_size_declared is not False:
        return None
    return Hit({"work_group_size": f.group_size, "local_mem_bytes": f.launch.local_mem_bytes})
