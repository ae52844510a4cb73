"""INTEL-HOT-ELEMENT: one global address read by most work-items of the launch."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="INTEL-HOT-ELEMENT", title="One global address read by most work-items", vendors=("intel",),
      inputs=("sites.max_items_one_address",),
      citation=C("intel", "__global Memory and __constant Memory"),
      thresholds={"items": Threshold(0.5, "team choice for intel __global Memory and __constant Memory: one "
                                          "address read by more than half the work-items of the launch is a "
                                          "hot element")},
      fix="""Keep small shared coefficients in private variables or copy the table into local memory
      once per group; leave larger lookup tables in global memory.""")
def check(f, t):
    items = f.items_recorded
    df = f.space("global", "load")
    df = f.hot(df[df["max_items_one_address"] > t.items * items])
    if not len(df):
        return None
    ev = {"work_items": items, "sites": f.rows(df.head(5), ["site", "accesses", "max_items_one_address"])}
    return Hit(ev, sites=list(df["site"]))
