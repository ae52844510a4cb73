"""INTEL-BARRIER-NO-LOCAL: barriers in a kernel that exchanges nothing through SLM."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.retype import Retype


@rule(id="INTEL-BARRIER-NO-LOCAL", title="Barriers in a kernel that shares no local memory",
      vendors=("intel",), inputs=("ops.barrier", "patterns.local_loads", "patterns.local_stores"),
      what_if="retype",
      citation=C("intel", "Optimizing Utilization of Execution Units"),
      fix="""Remove barriers that protect no local-memory exchange; besides their own cost they cap
      how many groups a subslice runs at once.""")
def check(f, t):
    if not f.launch.has_barrier or f.uses_local:
        return None
    o = f.ops
    b = o[o["opclass"] == "barrier"]
    sites = tuple(sorted(int(s) for s in b["site"].unique()))
    # priced by replay: the barriers gone (their issue cost, and the subslice's barrier slots that
    # capped the resident groups)
    return Hit({"barrier_executions": int(b["executions"].sum())}, sites=list(sites),
               change=Retype("barrier", (), sites))
