"""GEN-CONST-DIVERGENT: lanes of one wave index constant memory at different addresses."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="GEN-CONST-DIVERGENT", title="Lanes of a wave index constant memory differently",
      vendors=("adreno", "intel", "nvidia"), inputs=("sites.distinct_per_request",),
      citation={"adreno": C("adreno", "7.1.3 Constant memory"),
                "intel": C("intel", "__global Memory and __constant Memory"),
                "nvidia": C("cuda", "Constant Memory")},
      thresholds={"distinct": Threshold(1.5, "adreno §7.1.3: constant memory serves one address per wave at "
                                             "full speed; more than 1.5 distinct addresses per request on "
                                             "average means per-lane indexing")},
      fix="""Constant memory is fast only when a wave reads one address; move tables indexed per lane
      to an image or to ordinary global memory, and keep __constant for uniformly read values.""")
def check(f, t):
    df = f.space("constant", "load")
    df = f.hot(df[(df["requests"] > 0) & (df["distinct_per_request"] >= t.distinct)])
    if not len(df):
        return None
    ev = {"sites": f.rows(df.head(5), ["site", "requests", "distinct_per_request"])}
    return Hit(ev, sites=list(df["site"]))
