"""GEN-SAMPLER-BORDERS: coordinates clamped at the borders by hand, where a sampler would clamp."""

from analyzers.rules.image_facts import border_clamp_sites, buffer_2d_reads, image_reads, lines_of
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.images import SamplerBorders


@rule(id="GEN-SAMPLER-BORDERS", what_if="sampler-borders",
      title="Borders clamped by compare and select where a sampler would clamp",
      vendors=("adreno", "intel"),
      inputs=("sites.opcode", "sites.line", "sites.item_rows", "sites.item_columns", "ops.issues"),
      citation={"adreno": C("adreno", "8.6 Handle image boundaries"),
                "intel": C("intel", "Avoiding Handling Edge Conditions in Kernels")},
      thresholds={"reach": Threshold(2, "a work-item reading two or more rows or columns around its own "
                                        "reaches past the border at the edges, which is what the clamps "
                                        "guard (adreno §8.6)")},
      fix="""Read the input through an image with a sampler whose address mode clamps
      (CLK_ADDRESS_CLAMP_TO_EDGE) and drop the clamp, min/max or compare-and-select on the
      coordinates; where the data must stay a buffer, pad it by the stencil's reach so no read
      falls outside and the clamps can go the same way.""")
def check(f, t):
    buf = buffer_2d_reads(f)
    buf = buf[(buf["item_rows"] >= t.reach) | (buf["item_columns"] >= t.reach)]
    img = image_reads(f)
    reads = list(buf["site"]) + list(img["site"])
    if not reads:
        return None
    clamps = border_clamp_sites(f, reads)
    if not clamps:
        return None
    o = f.ops
    clamp_issues = float(o.loc[o["site"].isin(clamps), "issues"].sum()) if len(o) else 0.0
    read_issues = float(o.loc[o["site"].isin(reads), "issues"].sum()) if len(o) else 0.0
    modes = sorted({str(m) for m in img["sampler_addressing"].dropna()})
    per_read = round(clamp_issues / read_issues, 3) if read_issues else None
    ev = {"clamp_lines": lines_of(f, clamps), "clamp_instructions_per_read": per_read,
          "reads": "image" if len(img) and not len(buf) else "buffer",
          "sampler_addressing": ", ".join(modes) if modes else None}
    return Hit(ev, sites=sorted(clamps), change=SamplerBorders(tuple(clamps)))
