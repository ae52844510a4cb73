"""GEN-ATOMIC-HOT: many atomics update one address and serialise."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="GEN-ATOMIC-HOT", title="Many atomics on one address", vendors=("powervr", "adreno", "intel"),
      inputs=("sites.max_accesses_one_address",),
      citation={"powervr": C("pvr", "Use Shared/Local Memory Sensibly"),
                "adreno": C("adreno", "7.3 Atomic functions in OpenCL 1.x"),
                "intel": C("intel", "Kernel Memory Access Optimization Summary")},
      thresholds={"same_address": Threshold(32, "adreno §7.3: 32 or more atomics on one address serialise "
                                                "at least a wave's worth of updates (team choice of the "
                                                "count)")},
      fix="""Reduce within the group first (local atomics or a sub-group reduction), then let one item
      per group apply a single global atomic, so updates to the shared counter stop serialising.""")
def check(f, t):
    df = f.sites[f.sites["op"] == "atomic"]
    df = df[df["max_accesses_one_address"] >= t.same_address]
    if not len(df):
        return None
    df = df.sort_values(["max_accesses_one_address", "site"], ascending=[False, True])
    ev = {"sites": f.rows(df.head(5), ["site", "accesses", "max_accesses_one_address"]),
          "space": str(df["space"].iloc[0])}
    return Hit(ev, sites=list(df["site"]))
