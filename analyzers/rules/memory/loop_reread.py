"""GEN-LOOP-REREAD: work-items load the same global address again and again."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.changes import KeepInRegister


@rule(id="GEN-LOOP-REREAD", what_if="keep-in-register",
      title="Work-items re-read the same global address (loop re-loads)",
      inputs=("sites.rereads_per_item",),
      citation={"powervr": C("pvr", "Minimise Bandwidth Usage"),
                "adreno": C("adreno", "7.6 Improve the GPU’s L1/L2 cache usage"),
                "intel": C("intel", "Using Loops"),
                "nvidia": C("cuda", "Device Memory Spaces")},
      thresholds={"rereads": Threshold(2.0, "intel Using Loops: a work-item reading the same global address "
                                            "twice or more on average re-loads data it could keep in a "
                                            "private variable")},
      fix="""Load the value into a private variable before the loop, accumulate in a private variable,
      and store once after the loop instead of touching global memory every iteration.""")
def check(f, t):
    df = f.space("global")
    df = f.hot(df[df["rereads_per_item"] >= t.rereads])
    if not len(df):
        return None
    saved = sum(f.site_memory_s(s) * (1 - 1 / r) for s, r in zip(df["site"], df["rereads_per_item"],
                                                                   strict=False))
    ev = {"sites": f.rows(df.head(5), ["site", "accesses", "rereads_per_item"])}
    return Hit(ev, sites=list(df["site"]), gain_s=f.gain_memory(saved),
               change=KeepInRegister(int(df["site"].iloc[0])))
