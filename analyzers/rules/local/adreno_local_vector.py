"""ADR-LOCAL-VECTOR: local memory read and written one scalar at a time."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="ADR-LOCAL-VECTOR", title="Scalar local-memory accesses", vendors=("adreno",),
      inputs=("sites.local.access_size",), citation=C("adreno", "6.5 Local memory"),
      thresholds={"vector_bytes": Threshold(16, "adreno §7.2.2: 128 bits is the widest single access the "
                                                "guide recommends")},
      fix="""Read and write local memory in 128-bit, 32-bit-aligned vectors (float4/uint4) instead of
      single words.""")
def check(f, t):
    df = f.hot(f.space("local")[lambda d: d["access_size"] < t.vector_bytes])
    if not len(df):
        return None
    return Hit({"sites": f.rows(df.head(5), ["site", "accesses", "access_size"])}, sites=list(df["site"]))
