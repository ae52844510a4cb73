"""GEN-IMAGE-2D: a work-item reads a 2D neighbourhood of a buffer that an image would cache."""

import math

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="GEN-IMAGE-2D", title="2D neighbourhood read through a buffer where an image would serve",
      inputs=("patterns.stencils",), covered_by=("GEN-BUFFER-AS-IMAGE", "GEN-IMAGE-FILTER"),
      citation={"powervr": C("pvr", "Access Memory in Row-Major Order"),
                "adreno": C("adreno", "6.2 Use image objects instead of buffer objects"),
                "intel": C("intel", "Using Buffers and Images Appropriately"),
                "nvidia": C("cuda", "Texture Memory")},
      thresholds={"rows": Threshold(3, "adreno §6.2: a work-item reading three or more rows of one buffer "
                                       "is a 2D stencil an image and sampler would serve"),
                  "cols": Threshold(1.2, "team choice: a neighbourhood reads more than one element in "
                                         "some of its rows (a 3x3 box 3 per row, a 5-point cross 5/3, a "
                                         "7-point 3-D stencil 7/5); a column walk (a matrix product's "
                                         "column, a transpose) reads exactly one per row, which 2D texture "
                                         "caching does not help and the coalescing and layout rules "
                                         "address")},
      fix="""Store the read-only 2D input as an image and sample it: the texture path caches 2D
      neighbourhoods, clamps borders in hardware and converts formats, removing bounds checks from
      the kernel.""")
def check(f, t):
    st = f.patterns.stencils
    if st is None or not len(st):
        return None
    cols = st["cols"] if "cols" in st else math.inf
    st = st[(st["rows"] >= t.rows) & (cols >= t.cols)]
    if not len(st):
        return None
    best = st.sort_values(["rows", "buffer"], ascending=[False, True]).iloc[0]
    df = f.space("global", "load")
    if not math.isnan(float(best["buffer"])) and best["buffer"] >= 0:
        df = df[df["buffer"] == best["buffer"]]
    ev = {"buffer": int(best["buffer"]), "rows_per_item": float(best["rows"]),
          "elements_per_row": float(best["cols"]),
          "row_pitch_bytes": float(best["pitch"]) if best["pitch"] == best["pitch"] else None}
    return Hit(ev, sites=list(f.hot(df)["site"]))
