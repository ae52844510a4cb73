"""ADR-CONST-PROMOTE: a buffer every lane reads at one address is not declared __constant."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="ADR-CONST-PROMOTE", title="Small buffer read uniformly by every lane is not __constant",
      vendors=("adreno",), inputs=("sites.uniform_requests", "sites.requests", "sites.lanes_per_request"),
      citation=C("adreno", "6.4 Constant memory"),
      thresholds={"uniform": Threshold(0.9, "adreno §6.4: a buffer read at one address by every lane in 90% "
                                            "of its requests behaves like constant data")},
      fix="""Declare the argument __constant with max_constant_size, or pass the few values as
      scalar/vector kernel arguments, so they are broadcast from on-chip constant storage.""")
def check(f, t):
    df = f.space("global", "load")
    df = df[(df["requests"] > 0) & (df["lanes_per_request"] > 1)
            & (df["uniform_requests"] >= t.uniform * df["requests"])]
    df = f.hot(df)
    if not len(df):
        return None
    ev = {"sites": f.rows(df.head(5), ["site", "requests", "uniform_requests", "lanes_per_request"])}
    return Hit(ev, sites=list(df["site"]))
