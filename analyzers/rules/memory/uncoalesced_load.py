"""GEN-UNCOALESCED-LOAD: a wave's loads take more transactions than their bytes need."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.changes import Coalesce

COALESCE = {"powervr": C("pvr", "Access Memory in Row-Major Order"),
            "adreno": C("adreno", "7.2.1 Coalesced memory load/store"),
            "intel": C("intel", "__global Memory and __constant Memory"),
            "nvidia": C("cuda", "Coalesced Access to Global Memory")}
RATIO = Threshold(1.5, "team choice: transactions per request at least 1.5x the ideal for the bytes the "
                       "lanes asked for (the ideal is the guides' coalescing rule, e.g. adreno §3.2.6)")


def uncoalesced(f, op: str, ratio: float):
    """Hit for the hot sites of ``op`` whose transactions exceed ``ratio`` times the ideal.

    Two patterns that take more transactions than the ideal are not scattered and are left
    to other rules: a contiguous request that straddles one boundary more than it needs
    (a neighbour read such as ``a[i-1]``: its extra transaction is counted as misaligned and
    is GEN-MISALIGNED's), and a load that moves fewer bytes than its lanes ask for (lanes
    sharing addresses, a broadcast: nothing is wasted that a layout could save)."""
    df = f.space("global", op)
    scattered = df["transactions"] - df["misaligned_requests"]
    df = df[(df["requests"] > 0) & (scattered >= ratio * df["ideal_transactions"])
            & (df["bytes_moved"] > df["bytes_requested"])]
    df = f.hot(df, "bytes_moved")
    if not len(df):
        return None
    saved = sum(f.site_memory_s(s) * max(0.0, 1 - (i + m) / t) for s, i, m, t in
                zip(df["site"], df["ideal_transactions"], df["misaligned_requests"], df["transactions"],
                    strict=False))
    ev = {"sites": f.rows(df.head(5), ["site", "requests", "transactions_per_request", "ideal_per_request",
                                       "misaligned_requests", "bytes_requested", "bytes_moved"]),
          "transaction_bytes": int(f.target.transaction_bytes)}
    buffer = int(df["buffer"].iloc[0])
    change = Coalesce(buffer) if buffer >= 0 else None
    return Hit(ev, sites=list(df["site"]), gain_s=f.gain_memory(saved), change=change)


@rule(id="GEN-UNCOALESCED-LOAD", what_if="coalesce", title="Uncoalesced global loads",
      inputs=("sites.transactions", "sites.ideal_transactions", "sites.misaligned_requests",
              "sites.bytes_requested", "sites.bytes_moved"),
      citation=COALESCE, thresholds={"ratio": RATIO},
      fix="""Index so that neighbouring items of dimension 0 read neighbouring addresses (swap the
      roles of row and column, or store the data as separate arrays per field); then each wave's loads
      fall into as few memory transactions as its bytes allow.""")
def check(f, t):
    return uncoalesced(f, "load", t.ratio)
