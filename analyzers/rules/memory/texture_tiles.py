"""GEN-TEXTURE-TILES: a wave's image reads spread over many more tiles than its texels need."""

import math

from analyzers.rules.image_facts import has_texture_path, image_reads
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.changes import WorkGroupSize


@rule(id="GEN-TEXTURE-TILES", what_if="work-group",
      title="Image read pattern defeats the texture cache",
      vendors=("adreno", "powervr"),
      inputs=("sites.texture_tiles", "sites.texture_tiles_min", "sites.texture_hits", "sites.texture_lookups",
              "launch.local_size"),
      citation={"adreno": C("adreno", "7.1.5.3 Image object vs. buffer object"),
                "powervr": C("pvr", "Access Memory in Row-Major Order")},
      thresholds={"tiles": Threshold(2, "team choice: a wave that touches twice the tiles its texels fill "
                                        "pays a texture-cache line for every half-used tile; pvr Access "
                                        "Memory in Row-Major Order asks for square neighbourhoods of "
                                        "texels"),
                  "hit_rate": Threshold(0.5, "adreno §7.1.5.3 (an L1 that thrashes makes the image path the "
                                             "bottleneck): below one hit in two look-ups each fetched tile "
                                             "line serves fewer than two requests; a stencil over 2-D "
                                             "work-groups crosses tiles at its edges but still hits")},
      fix="""Give each wave a square block of texels: use 2-D work-groups whose first dimension is
      about the square root of the wave (8 x 8 items for a wave of 64), and map neighbouring work-items
      to neighbouring texels in both x and y; a kernel that walks an image along its rows per lane
      (one column per wave) reads it across tiles.""")
def check(f, t):
    if not has_texture_path(f):
        return None
    reads = image_reads(f)
    reads = reads[reads["texture_tiles_min"] > 0]
    tiles, needed = float(reads["texture_tiles"].sum()), float(reads["texture_tiles_min"].sum())
    look, hits = float(reads["texture_lookups"].sum()), float(reads["texture_hits"].sum())
    if not needed or not look or tiles < t.tiles * needed or hits / look >= t.hit_rate:
        return None
    ev = {"tiles_per_request": round(tiles / float(reads["requests"].sum()), 3),
          "tiles_needed_per_request": round(needed / float(reads["requests"].sum()), 3),
          "texture_hit_rate": round(hits / look, 4),
          "work_group": "x".join(str(int(v)) for v in f.launch.local_size)}
    shape = square_wave_group(f)
    if shape is None:
        ev["why_no_replay"] = "no 2-D work-group of the same size fits this grid"
        return Hit(ev, sites=list(f.hot(reads)["site"]))
    ev["suggested_work_group"] = "x".join(str(v) for v in shape[:2])
    return Hit(ev, sites=list(f.hot(reads)["site"]), change=WorkGroupSize(shape))


def square_wave_group(f) -> tuple[int, int, int] | None:
    """A work-group of the same size whose waves are as square as the wave allows (its first
    dimension the power of two nearest above the wave's square root); None when the grid is 1-D,
    too small for it, or the launch already has that shape."""
    size = f.group_size
    gx, gy = (int(v) for v in f.launch.global_size[:2])
    lx = 1 << math.ceil(math.log2(math.sqrt(max(f.width, 1))))
    lx = min(lx, size)
    ly = size // lx
    if gy < 2 or lx * ly != size or lx > gx or ly > gy:
        return None
    shape = (lx, ly, 1)
    if tuple(int(v) for v in f.launch.local_size) == shape:
        return None
    return shape
