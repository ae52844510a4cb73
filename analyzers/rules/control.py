"""Control flow: lanes of a wave taking different paths."""

from __future__ import annotations

from analyzers.rules.base import Citation as C
from analyzers.rules.base import Hit, rule


@rule(id="GEN-DIVERGENCE", title="Divergent branches leave lanes idle",
      metrics=("simd.site_utilization", "instructions.issues"), severity="medium",
      citation={"powervr": C("pvr", "Divergence - Dynamic Branching"),
                "adreno": C("adreno", "8.5 Avoid branch divergence"),
                "intel": C("intel", "Using Specialization in Branching"),
                "nvidia": C("cuda", "Branching and Divergence")},
      fix="""Make lanes of a wave agree: turn short if/else bodies into select(), min/max/clamp or
      arithmetic on the comparison result, and regroup work so items that take the same path sit in the
      same wave.""")
def gen_divergence(ctx):
    o = ctx.ops
    if not len(o):
        return None
    o = o[o["opclass"] != "barrier"].copy()
    o["cycles"] = o["issues"] * o["opclass"].map(lambda c: ctx.cycles(c) or 1.0)
    total = float(o["cycles"].sum())
    low = o[(o["utilization"] < ctx.t("divergence_utilization"))]
    per = low.groupby("site").agg(cycles=("cycles", "sum"), issues=("issues", "sum"),
                                  utilization=("utilization", "mean"))
    per = per[per["cycles"] >= ctx.t("min_site_share") * total]
    if not len(per) or not total:
        return None
    per = per.sort_values(["cycles"], ascending=False, kind="stable")
    wasted = float((low["cycles"] * (1 - low["utilization"])).sum())
    ev = {"divergent_cycle_share": round(float(per["cycles"].sum()) / total, 4),
          "sites": [{"site": int(s), "utilization": round(float(r.utilization), 4), "issues": int(r.issues)}
                    for s, r in per.head(5).iterrows()]}
    return Hit(ev, sites=[int(s) for s in per.index], gain_s=ctx.gain_alu(ctx.alu_seconds(wasted)))
