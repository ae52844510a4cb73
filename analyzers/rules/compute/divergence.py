"""GEN-DIVERGENCE: lanes of a wave take different branches and idle while the others run."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.regroup import Regroup


@rule(id="GEN-DIVERGENCE", title="Divergent branches leave lanes idle",
      inputs=("ops.utilization", "ops.issues", "ops.cycles"), what_if="regroup",
      citation={"powervr": C("pvr", "Divergence - Dynamic Branching"),
                "adreno": C("adreno", "8.5 Avoid branch divergence"),
                "intel": C("intel", "Using Specialization in Branching"),
                "nvidia": C("cuda", "Branching and Divergence")},
      thresholds={"utilization": Threshold(0.75, "team choice: a branch-governed site whose lanes are less "
                                                 "than 75% busy per issue"),
                  "share": Threshold(0.02, "team choice: the divergent sites named carry at least 2% of the "
                                           "launch's issue cycles")},
      fix="""Make lanes of a wave agree: turn short if/else bodies into select(), min/max/clamp or
      arithmetic on the comparison result, and regroup work so items that take the same path sit in the
      same wave.""")
def check(f, t):
    o = f.ops
    if not len(o):
        return None
    o = o[o["opclass"] != "barrier"].copy()
    o["cycles"] = o["issues"] * o["cycles"].where(o["cycles"] > 0, 1.0)
    total = float(o["cycles"].sum())
    low = o[o["utilization"] < t.utilization]
    per = low.groupby("site").agg(cycles=("cycles", "sum"), issues=("issues", "sum"),
                                  utilization=("utilization", "mean"))
    per = per[per["cycles"] >= t.share * total]
    if not len(per) or not total:
        return None
    per = per.sort_values(["cycles"], ascending=False, kind="stable")
    ev = {"divergent_cycle_share": round(float(per["cycles"].sum()) / total, 4),
          "sites": [{"site": int(s), "utilization": round(float(r.utilization), 4), "issues": int(r.issues)}
                    for s, r in per.head(5).iterrows()]}
    sites = [int(s) for s in per.index]
    # priced by replay: the items regrouped by how often they ran the divergent sites, each keeping
    # its own work and addresses (a wave that holds a whole work-group has nothing to regroup)
    return Hit(ev, sites=sites, change=Regroup(tuple(sorted(sites))))
