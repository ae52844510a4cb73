"""INTEL-SUB32-ACCESS: 8- or 16-bit global accesses."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.coarsen import Coarsen


@rule(id="INTEL-SUB32-ACCESS", title="8- or 16-bit global accesses", vendors=("intel",),
      inputs=("sites.access_size", "ops.issues"), citation=C("intel", "Granularity"), what_if="coarsen",
      covered_by=("GEN-ITEM-COARSEN",),
      fix="""Move narrow data in 32-bit (or wider) aligned units, e.g. char4 or uint instead of char,
      and unpack in registers.""")
def check(f, t):
    df = f.hot(f.space("global")[lambda d: d["access_size"] < 4])
    if not len(df):
        return None
    size = float(df["access_size"].min())
    ev = {"sites": f.rows(df.head(5), ["site", "accesses", "access_size"])}
    # priced by replay: neighbouring items' narrow elements moved as one 32-bit unit by one item
    # (a candidate: fewer items also means fewer waves, so only the replay can say it pays)
    return Hit(ev, sites=list(df["site"]), change=Coarsen(max(2, int(4 // max(size, 1.0)))))
