"""GEN-UNCOALESCED-LOAD: a wave's loads take more transactions than their bytes need."""

from analyzers.rules.gather_facts import is_gather
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.scatter import first_unit_bytes, saved_fraction, scattered
from analyzers.whatif.changes import Coalesce
from analyzers.whatif.regroup import SortWork

COALESCE = {"powervr": C("pvr", "Access Memory in Row-Major Order"),
            "adreno": C("adreno", "7.2.1 Coalesced memory load/store"),
            "intel": C("intel", "__global Memory and __constant Memory"),
            "nvidia": C("cuda", "Coalesced Access to Global Memory")}
RATIO = Threshold(1.5, "team choice: transactions per request at least 1.5x the ideal for the bytes the "
                       "lanes asked for (the ideal is the guides' coalescing rule, e.g. adreno §3.2.6)")


def uncoalesced(f, op: str, ratio: float):
    """Hit for the hot sites of ``op`` whose requests take ``ratio`` times the units they need,
    in transactions or in lines of the first cache (:mod:`analyzers.scatter`).

    Two patterns that take more than the ideal are not scattered and are left to other
    rules: a contiguous request that straddles one boundary more than it needs (a neighbour
    read such as ``a[i-1]``: its extra unit is counted as misaligned and is GEN-MISALIGNED's),
    and a load that moves fewer bytes than its lanes ask for (lanes sharing addresses, a
    broadcast: nothing is wasted that a layout could save)."""
    df = f.space("global", op)
    df = df[(df["requests"] > 0) & scattered(df, f.target, ratio)]
    df = f.hot(df, "bytes_moved")
    if not len(df):
        return None
    share = saved_fraction(df, f.target)
    saved = sum(f.site_memory_s(s) * float(x) for s, x in zip(df["site"], share, strict=True))
    df = df.assign(cache_units_per_request=df["cache_units"] / df["requests"].clip(lower=1),
                   ideal_cache_units_per_request=df["ideal_cache_units"] / df["requests"].clip(lower=1))
    ev = {"sites": f.rows(df.head(5), ["site", "requests", "transactions_per_request", "ideal_per_request",
                                       "cache_units_per_request", "ideal_cache_units_per_request",
                                       "misaligned_requests", "bytes_requested", "bytes_moved"]),
          "transaction_bytes": int(f.target.transaction_bytes),
          "cache_unit_bytes": first_unit_bytes(f.target)}
    buffer = int(df["buffer"].iloc[0])
    site = int(df["site"].iloc[0])
    if is_gather(f, site):
        # no layout puts a data-dependent gather in wave order: the change a programmer can make is
        # to sort the work (or renumber the data) by what it gathers
        ev["gather"] = True
        return Hit(ev, sites=list(df["site"]), change=SortWork(site))
    change = Coalesce(buffer) if buffer >= 0 else None
    return Hit(ev, sites=list(df["site"]), gain_s=f.gain_memory(saved), change=change)


@rule(id="GEN-UNCOALESCED-LOAD", what_if="coalesce", title="Uncoalesced global loads",
      inputs=("sites.transactions", "sites.ideal_transactions", "sites.misaligned_requests",
              "sites.cache_units", "sites.ideal_cache_units", "sites.bytes_requested", "sites.bytes_moved"),
      citation=COALESCE, thresholds={"ratio": RATIO},
      fix="""Index so that neighbouring items of dimension 0 read neighbouring addresses (swap the
      roles of row and column, or store the data as separate arrays per field); where they already do
      but a 2-D work-group's rows are too short to fill a cache line, widen its first dimension. Then
      each wave's loads fall into as few transactions and lines as its bytes allow.  A gather through
      an index array has no such layout: sort the work (or renumber the data) by the index instead.""")
def check(f, t):
    return uncoalesced(f, "load", t.ratio)
