"""GEN-ITEM-COARSEN: one narrow element per work-item, where neighbouring items read a row.

An image kernel that gives each work-item one 8-bit pixel (or one float) spends one load,
one store and the whole index computation per element: on GPUs whose memory instructions
move up to 16 bytes each, three quarters or more of each instruction's width is unused, and
the address arithmetic and loop control run once per element.  Handling a few neighbouring
elements per item, read and written as one vector, divides all of that by the number of
elements.

Whether it pays depends on what bounds the launch: a kernel that already streams at the DRAM
rate gains nothing, one whose loads and index arithmetic bound it gains most, and fewer
items also means fewer waves to hide latency.  So the rule only proposes the change
(``speculative``): the what-if replays the coarsened kernel and the finding stands only
with the gain that replay measures.
"""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.coarsen import Coarsen


@rule(id="GEN-ITEM-COARSEN", what_if="coarsen", title="One narrow element per work-item",
      vendors=("powervr", "adreno", "intel"), inputs=("sites.access_size", "sites.lane_stride"),
      citation={"powervr": C("pvr", "Group Memory Access Together"),
                "adreno": C("adreno", "10.3.3 Vectorized load/store optimization"),
                "intel": C("intel", "Optimizing Utilization of Execution Units")},
      thresholds={"element_bytes": Threshold(8, "adreno §10.3.3 (four pixels per item read as half4 "
                                                "vectors): elements narrower than a quarter of a 128-bit "
                                                "access leave most of each load unused"),
                  "vector_bytes": Threshold(16, "adreno §7.2.2 and intel Granularity: 128 bits is the widest "
                                                "single access both guides recommend"),
                  "share": Threshold(0.5, "team choice: such row accesses carry at least half of the "
                                          "launch's global accesses")},
      fix="""Give each work-item several neighbouring elements along x (4 pixels of 8-bit data, for
      example): read them with one vload4/vload16 or a uchar4/float4 pointer, compute the results
      together and store them with one vector store, and divide the global size along x by the
      same number.""")
def check(f, t):
    df = f.space("global")
    total = float(df["accesses"].sum())
    if not total:
        return None
    stride = df["lane_stride"].abs()
    rows = df[(df["access_size"] <= t.element_bytes) & (stride > 0) & (stride <= t.element_bytes)]
    if float(rows["accesses"].sum()) < t.share * total:
        return None
    step = int(stride.loc[rows.index].max())
    n = 1
    while n * 2 * step <= t.vector_bytes and n < 4:
        n *= 2
    if n < 2:
        return None
    if int(f.launch.global_size[0]) < n * int(f.launch.local_size[0]):
        return None
    hot = f.hot(rows)
    ev = {"element_bytes": round(float((rows["access_size"] * rows["accesses"]).sum()
                                       / rows["accesses"].sum()), 2),
          "lane_stride_bytes": step, "elements_per_item": n,
          "row_access_share": round(float(rows["accesses"].sum()) / total, 3)}
    return Hit(ev, sites=list(hot["site"]) or list(rows["site"]), change=Coarsen(n))
