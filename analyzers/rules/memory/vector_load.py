"""GEN-VECTOR-LOAD: one work-item loads neighbouring words one at a time."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.changes import VectorLoads


@rule(id="GEN-VECTOR-LOAD", what_if="vector-loads", title="Adjacent scalar loads where one 128-bit load fits",
      vendors=("powervr", "adreno", "intel"), inputs=("sites.access_size", "sites.adjacent", "ops.issues"),
      citation={"powervr": C("pvr", "Group Memory Access Together"),
                "adreno": C("adreno", "7.2.2 Vectorized load/store"),
                "intel": C("intel", "Loading and Storing Data in Greatest Chunks")},
      thresholds={"run": Threshold(2, "adreno §7.2.2 / intel Loading and Storing Data in Greatest Chunks: "
                                      "two or more adjacent narrow loads by one work-item could be one "
                                      "wider load"),
                  "vector_bytes": Threshold(16, "adreno §7.2.2 and intel Granularity: 128 bits is the widest "
                                                "single access both guides recommend")},
      fix="""Fetch the neighbouring values with one vload4 (or a float4/uint4 pointer) instead of
      separate scalar loads, and shrink the global size if each item now handles more elements.""")
def check(f, t):
    df = f.space("global", "load")
    df = df[df["access_size"] < t.vector_bytes]
    n, adj = float(df["accesses"].sum()), float(df["adjacent"].sum())
    if not n or adj / n < 1 - 1 / t.run:
        return None
    run = n / max(n - adj, 1.0)
    size = float((df["access_size"] * df["accesses"]).sum() / n)
    width = min(t.vector_bytes, run * size)
    sites = list(df.loc[df["adjacent"] > 0].sort_values("site")["site"])
    runs = list(df.loc[df["site"].isin(sites), "site"])
    o = f.ops
    load_issues = float(o.loc[o["site"].isin(runs + sites) & (o["opclass"] == "load"), "issues"].sum()) \
        if len(o) else 0
    saved = f.alu_seconds(load_issues * (1 - size / width) * f.cycles("load"))
    ev = {"adjacent_fraction": round(adj / n, 4), "mean_run": round(run, 2), "access_size": round(size, 2),
          "suggested_width_bytes": int(width)}
    return Hit(ev, sites=sites, gain_s=f.gain_alu(saved), change=VectorLoads(int(t.vector_bytes)))
