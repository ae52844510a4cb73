"""INTEL-SUB32-ACCESS: 8- or 16-bit global accesses."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule


@rule(id="INTEL-SUB32-ACCESS", title="8- or 16-bit global accesses", vendors=("intel",),
      inputs=("sites.access_size", "ops.issues"), citation=C("intel", "Granularity"),
      fix="""Move narrow data in 32-bit (or wider) aligned units, e.g. char4 or uint instead of char,
      and unpack in registers.""")
def check(f, t):
    df = f.hot(f.space("global")[lambda d: d["access_size"] < 4])
    if not len(df):
        return None
    o = f.compiled_ops
    iss = float(o.loc[o["site"].isin(df["site"]) & o["opclass"].isin(["load", "store"]), "issues"].sum()) \
        if len(o) else 0.0
    size = float(df["access_size"].mean())
    ev = {"sites": f.rows(df.head(5), ["site", "accesses", "access_size"])}
    return Hit(ev, sites=list(df["site"]), gain_s=f.gain_alu(f.alu_seconds(
        iss * (1 - size / 4) * f.cycles("load"))))
