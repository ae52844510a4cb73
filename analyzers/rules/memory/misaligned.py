"""GEN-MISALIGNED: contiguous requests that straddle one transaction boundary more than needed."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.changes import Align


@rule(id="GEN-MISALIGNED", what_if="align", title="Contiguous accesses straddle transaction boundaries",
      inputs=("sites.misaligned_requests", "sites.transactions"),
      citation={"powervr": C("pvr", "System Memory Access"),
                "adreno": C("adreno", "7.2.2 Vectorized load/store"),
                "intel": C("intel", "__global Memory and __constant Memory"),
                "nvidia": C("cuda", "Effects of Misaligned Accesses")},
      thresholds={"fraction": Threshold(0.25, "team choice: a quarter of a site's requests need one "
                                              "transaction more than their contiguous span would aligned")},
      fix="""Align buffer bases and per-group offsets to the transaction size (pad row pitches to
      it); for a neighbour read such as a[i+1], load the aligned block and shift in registers or
      local memory.""")
def check(f, t):
    df = f.space("global")
    df = df[(df["requests"] > 0) & (df["misaligned_requests"] >= t.fraction * df["requests"])]
    df = f.hot(df, "bytes_moved")
    if not len(df):
        return None
    saved = sum(f.site_memory_s(s) * m / n for s, m, n in
                zip(df["site"], df["misaligned_requests"], df["transactions"], strict=False) if n)
    ev = {"sites": f.rows(df.head(5), ["site", "requests", "misaligned_requests", "transactions"]),
          "transaction_bytes": int(f.target.transaction_bytes)}
    return Hit(ev, sites=list(df["site"]), gain_s=f.gain_memory(saved), change=Align(int(df["site"].iloc[0])))
