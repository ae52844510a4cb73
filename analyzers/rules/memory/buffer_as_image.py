"""GEN-BUFFER-AS-IMAGE: a read-only buffer read in 2-D neighbourhoods, where an image's cache would serve."""

from analyzers.rules.image_facts import buffer_2d_reads, has_texture_path, lines_of, subscript_sites
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.images import AsImage


@rule(id="GEN-BUFFER-AS-IMAGE", what_if="as-image",
      title="Read-only buffer read with 2-D locality: make it an image",
      vendors=("adreno", "powervr"), covered_by=("GEN-IMAGE-FILTER",),
      inputs=("sites.row_pitch_bytes", "sites.item_rows", "sites.item_columns", "sites.whatif_texture_hits",
              "sites.whatif_cache_lookups", "sites.cache_lookups"),
      citation={"adreno": C("adreno", "7.1.5.3 Image object vs. buffer object"),
                "powervr": C("pvr", "Texture Processing Unit")},
      thresholds={"rows": Threshold(2, "adreno §7.1.5.3 (the texture L1 serves neighbours in both "
                                       "directions): a work-item reading two or more rows of the buffer "
                                       "shares them with the items above and below"),
                  "columns": Threshold(2, "a work-item reading two or more columns shares them with the "
                                          "items beside it; one column per item is a walk along the slow "
                                          "dimension, which buffers read as well as images (pvr Access "
                                          "Memory in Row-Major Order)")},
      fix="""Hold the read-only 2-D input in an image (clCreateImage, or an image view of the buffer) and
      read it with read_imagef and integer coordinates: the texture unit caches 2-D blocks of texels,
      so neighbourhoods that overlap between work-items hit its cache instead of the L2, and it computes
      each texel's address from the coordinates, so the index arithmetic goes.""")
def check(f, t):
    if not has_texture_path(f):
        return None
    reads = buffer_2d_reads(f)
    reads = reads[(reads["item_rows"] >= t.rows) & (reads["item_columns"] >= t.columns)]
    if not len(reads):
        return None
    per_buffer = reads.groupby("buffer")["accesses"].sum().sort_values(ascending=False, kind="stable")
    buffer = int(per_buffer.index[0])
    mine = reads[reads["buffer"] == buffer]
    sites = list(f.hot(mine)["site"]) or list(mine["site"])
    address = subscript_sites(f, mine["site"])
    look = float(mine["whatif_texture_lookups"].sum())
    ev = {"buffer": buffer, "row_pitch_bytes": int(mine["row_pitch_bytes"].max()),
          "neighbourhood_per_item": f"{mine['item_rows'].max():g} rows x "
                                    f"{mine['item_columns'].max():g} columns",
          "data_cache": f.target.caches[0].name,
          "data_cache_lines_as_buffer": int(mine["cache_lookups"].sum()),
          "data_cache_lines_as_image": int(mine["whatif_cache_lookups"].sum()),
          "texture_hit_rate_as_image": round(float(mine["whatif_texture_hits"].sum()) / look, 4)
          if look else None,
          "address_instructions_dropped": lines_of(f, address) or "none found"}
    return Hit(ev, sites=sites, change=AsImage(buffer, address))
