"""GEN-IMAGE-FILTER: bilinear interpolation by hand over a buffer, where a filtering sampler would do it."""

from analyzers.dataflow import interpolation
from analyzers.rules.image_facts import buffer_2d_reads, lines_of
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.images import FilteredImage


@rule(id="GEN-IMAGE-FILTER", what_if="filter-image",
      title="Bilinear interpolation computed by hand where a linear-filtering sampler would do it",
      vendors=("powervr", "adreno", "intel"),
      inputs=("dataflow", "sites.row_pitch_bytes", "sites.item_rows"),
      citation={"adreno": C("adreno", "7.1.5.3 Image object vs. buffer object"),
                "intel": C("intel", "Using Buffers and Images Appropriately"),
                "powervr": C("pvr", "Texture Processing Unit")},
      thresholds={"rows": Threshold(2, "a bilinear sample reads a 2x2 block of texels: two rows of the "
                                       "buffer per work-item")},
      fix="""Put the input in an image (or an image view of the buffer) and read it with read_imagef,
      a sampler with CLK_FILTER_LINEAR and the fractional coordinate: the texture unit fetches the four
      neighbours, computes the weights and blends them, so the gathers, their address arithmetic, the
      weight computation and the weighted sum all leave the kernel.  The texture unit's weights have
      fewer fractional bits than a hand-written fixed-point blend; check the output tolerance.""")
def check(f, t):
    g = getattr(f.result, "dataflow", None)
    if g is None:
        return None
    reads = buffer_2d_reads(f)
    reads = reads[reads["item_rows"] >= t.rows]
    if not len(reads):
        return None
    executed = set(int(s) for s in f.ops["site"]) if len(f.ops) else set()
    loads = f.space("global", "load")
    for buffer in reads.groupby("buffer")["accesses"].sum().sort_values(ascending=False, kind="stable").index:
        mine = loads[loads["buffer"] == buffer]
        found = interpolation(g, mine["site"].astype(int))
        if found is None:
            continue
        removed = tuple(s for s in found.removed if s in executed)
        tables = tuple(s for s in found.tables if s in executed)
        weights = [s for s in found.weights if s in executed]
        share = f.ops.loc[f.ops["site"].isin(removed), "issues"].sum() / max(f.ops["issues"].sum(), 1.0)
        ev = {"buffer": int(buffer), "gathers_per_item": len(found.loads),
              "row_pitch_bytes": int(reads.loc[reads["buffer"] == buffer, "row_pitch_bytes"].max()),
              "weight_lines": lines_of(f, weights) or "none found",
              "blend_lines": lines_of(f, found.blend) or "none found",
              "weight_table_lookups": len(tables),
              "instruction_share_removed": round(float(share), 4)}
        return Hit(ev, sites=list(found.loads), change=FilteredImage(int(buffer), removed, tables))
    return None
