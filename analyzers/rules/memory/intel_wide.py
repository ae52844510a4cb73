"""INTEL-WIDE-ACCESS: global accesses wider than 128 bits per item."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="INTEL-WIDE-ACCESS", title="Global accesses wider than 128 bits per item", vendors=("intel",),
      inputs=("sites.access_size",), citation=C("intel", "Granularity"),
      thresholds={"vector_bytes": Threshold(16, "intel Granularity: 128 bits is the widest single access "
                                                "the guide recommends per work-item")},
      fix="""Split float8/float16-sized accesses into 128-bit pieces on the GPU; keep the wide types
      for CPU builds only.""")
def check(f, t):
    df = f.hot(f.space("global")[lambda d: d["access_size"] > t.vector_bytes])
    if not len(df):
        return None
    return Hit({"sites": f.rows(df.head(5), ["site", "accesses", "access_size"])}, sites=list(df["site"]))
