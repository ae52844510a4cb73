"""PVR-BARRIER-AFTER-LOCAL: a barrier right after a local or constant access stalls on its latency.

The time model has no term for that stall (a barrier waits for the group, not for one
access), so the item is a note without a gain: no replay could measure the fix.
"""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule


@rule(id="PVR-BARRIER-AFTER-LOCAL", title="Barrier directly after a local or constant access",
      vendors=("powervr",), inputs=("ops.barrier", "sites.space"),
      citation=C("pvr-it", "Avoid Barrier Directly after Local or Constant Memory Access"),
      fix="""Move independent arithmetic between the local-memory access and the barrier that follows
      it, so the compiler can hide the common store's index latency.""")
def check(f, t):
    o = f.ops
    if not len(o):
        return None
    barriers = sorted(o.loc[o["opclass"] == "barrier", "site"].unique())
    executed = sorted(set(o["site"]) | set(f.sites["site"]))
    space = dict(zip(f.sites["site"], f.sites["space"], strict=False))
    pairs = []
    for b in barriers:
        before = [s for s in executed if s < b and s not in barriers]
        if before and space.get(before[-1]) in ("local", "constant"):
            pairs.append((int(before[-1]), int(b)))
    if not pairs:
        return None
    sites = [s for p in pairs for s in p]
    return Hit({"access_then_barrier": [list(p) for p in pairs]}, sites=sites)
