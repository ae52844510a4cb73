"""One launch's texture path inside the memory replay (:mod:`analyzers.replay.memory`).

:class:`TextureReplay` is built per launch when the target has a texture path and
is fed the replay's chunks: it rewrites image accesses to their tiled addresses,
filters image reads through the texture caches while building the data
hierarchy's input, replays the reads of 2-D read-only buffers as image reads
through a second, private set of texture caches (the what-if: nothing of it
reaches the data hierarchy), and sums per site what the remediation rules need:

* ``cache_lookups``: cache units the site sent to the first data level
  (``caches[0]``, the L2 on Adreno): a buffer request's units, an image read's
  texture misses;
* ``texture_lookups``, ``texture_hits``, ``texture_fills``: image-read lines looked up
  in the first texture level, hits there, and lines every texture level missed;
* ``texture_tiles``, ``texture_tiles_min``: tiles the requests touched, and the
  fewest that could hold their distinct texels; the difference is the tile
  crossings a better-shaped access pattern would save;
* ``row_pitch_bytes``, ``whatif_rows``, ``whatif_texture_lookups``,
  ``whatif_texture_hits``, ``whatif_cache_lookups``: for loads of a read-only
  buffer read in 2-D, its pitch, the distinct rows its requests touched, and its
  reads replayed as image reads (lookups, first-level hits, lines fetched from
  the first data level);
* ``item_rows``, ``item_columns``: the neighbourhood one work-item reads of that
  buffer (distinct rows and columns), which tells a stencil from a walk along
  one dimension.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analyzers.replay.cache import TextureCacheStats
from analyzers.replay.coalescing import distinct_segments
from analyzers.replay.texture import (
    TextureCaches,
    distinct_bytes,
    image_layouts,
    request_cache_units,
    texture_stream,
    tiled_addresses,
    tiles_needed,
)
from analyzers.replay.texture_whatif import SAMPLE_ROWS, BufferRows, row_pitches, whatif_coordinates
from tracekit.targets.model import Target
from tracekit.trace import schema

IMAGE = schema.SPACES.index("image")
LOAD = schema.OPS.index("load")
#: Per-site sums this module adds to the replay's site table (all counts).
SITE_SUMS = ("cache_lookups", "texture_lookups", "texture_hits", "texture_fills", "texture_tiles",
             "texture_tiles_min", "whatif_rows", "whatif_texture_lookups", "whatif_texture_hits",
             "whatif_cache_lookups")
#: Columns of the accesses table the texture path reads besides the replay's own.
COLUMNS = ("buffer", "texel_x", "texel_y", "texel_z")


def add_rates(df: pd.DataFrame) -> pd.DataFrame:
    """Hit rates and tile crossings from the per-site sums (NaN where a site has none)."""
    if "texture_lookups" not in df.columns:
        return df
    look = df["texture_lookups"].where(df["texture_lookups"] > 0)
    df["texture_hit_rate"] = df["texture_hits"] / look
    df["tile_crossings"] = (df["texture_tiles"] - df["texture_tiles_min"]).where(df["texture_tiles"] > 0)
    wlook = df["whatif_texture_lookups"].where(df["whatif_texture_lookups"] > 0)
    df["whatif_texture_hit_rate"] = df["whatif_texture_hits"] / wlook
    return df


class TextureReplay:
    """The texture path of one launch on one target (see the module docstring)."""

    def __init__(self, target: Target, images: dict, buffers: dict[int, BufferRows]):
        self.t = target
        self.spec = target.texture
        self.images = images
        self.buffers = buffers
        self.caches = TextureCaches.for_target(target)
        self.whatif = TextureCaches.for_target(target) if buffers else None
        self._req: dict | None = None
        self._whatif_rows = None
        self._sites: dict[int, np.ndarray] = {}
        self._pitch: dict[int, int] = {}
        self._shape: dict[int, tuple[float, float]] = {}
        lut_n = max(images, default=-1) + 2
        self._img = np.full(lut_n, -1, np.int64)        # argument -> row of the tables below
        self._base = np.array([im.base for im in images.values()] + [0], np.int64)
        self._width = np.array([im.width for im in images.values()] + [1], np.int64)
        self._height = np.array([im.height for im in images.values()] + [1], np.int64)
        for i, arg in enumerate(images):
            self._img[arg] = i

    @classmethod
    def for_launch(cls, trace, target: Target, launch: int) -> TextureReplay | None:
        """The launch's texture path, or None when the target has none (or no data caches)."""
        if target.texture is None or not target.caches:
            return None
        rows = trace.launches.filter(pc.equal(trace.launches["launch"], launch)).to_pylist()
        meta = json.loads(rows[0]["metadata"]) if rows and rows[0].get("metadata") else {}
        images = image_layouts(meta)
        buffers = {}
        if rows and target.texture.caches:
            buffers = _buffer_rows(trace, launch, rows[0], meta)
        return cls(target, images, buffers)

    def fresh(self) -> TextureReplay:
        """The same launch's texture path with empty caches and no counts: another pass over the
        launch needs no second read of its image layouts and buffer row pitches."""
        return TextureReplay(self.t, self.images, self.buffers)

    @property
    def first_line(self) -> int:
        return self.caches.first_line_bytes if self.caches is not None else self.spec.tile_bytes

    # -- per chunk ---------------------------------------------------------------
    def addresses(self, c: dict) -> np.ndarray:
        """The chunk's addresses, image accesses at their tiled addresses (a copy if any)."""
        addr = c["address"]
        space = c["space"]
        # image rows with coordinates (a trace without them keeps the linear addresses)
        img = (space == IMAGE) & (c["texel_x"] >= 0) if "texel_x" in c else np.zeros(len(space), bool)
        self._whatif_rows = None
        self._req = None
        if self.buffers and "buffer" in c:
            sel, x, y, base, width = whatif_coordinates(self.buffers, c["buffer"], addr, c["size"],
                                                        (space != IMAGE) & (c["op"] == LOAD))
            if sel.any():
                # the buffer's row count is not known: taken as tall, so tiles keep their rows
                tall = np.full_like(width, 1 << 30)
                self._whatif_rows = (sel, tiled_addresses(self.spec, x, y, np.zeros_like(x), c["size"][sel],
                                                          base, width, tall), y)
        if not img.any():
            return addr
        out = addr.copy()
        arg = c["buffer"][img]
        known = (arg >= 0) & (arg < len(self._img) - 1)
        row = np.where(known, self._img[np.where(known, arg, 0)], -1)
        x, y, z = c["texel_x"][img], c["texel_y"][img], c["texel_z"][img]
        size = c["size"][img].astype(np.int64)
        width, height = self._width[row], self._height[row]
        base = self._base[row]
        # an image the metadata does not describe: its base from its texel, rows as wide as seen
        unknown = row < 0
        if unknown.any():
            width = np.where(unknown, np.maximum(x.max() + 1, 1), width)
            height = np.where(unknown, np.maximum(y.max() + 1, 1), height)
            base = np.where(unknown, (addr[img] & np.int64((1 << 63) - 1))
                            - ((z * height + y) * width + x) * size, base)
        out[img] = tiled_addresses(self.spec, x, y, z, size, base, width, height)
        return out

    @property
    def chunk_state(self):
        """What :meth:`addresses` keeps of the chunk it last made addresses for (the rows the
        texture what-if rereads as an image), to hand back to :meth:`resume` when the same chunk
        is replayed again with its addresses kept."""
        return self._whatif_rows

    def resume(self, state) -> None:
        """Take up a chunk whose addresses an earlier pass made (``state``: its :attr:`chunk_state`)."""
        self._whatif_rows = state
        self._req = None

    def stream(self, order, req_ptr, addr, size, ex, is_mem, rq_space, rq_op, cu_of_req, units, unit_ptr,
               unit_bytes: int, rq_first) -> tuple | None:
        """The data hierarchy's input with image reads filtered through the texture caches, or
        None when this chunk has no texture reads (the plain stream then serves).  Also runs the
        what-if and keeps the per-request numbers for :meth:`add_sites`."""
        nreq = len(req_ptr) - 1
        self._req = {k: np.zeros(nreq, np.int64) for k in SITE_SUMS}
        self._req["cache_lookups"] = request_cache_units(unit_ptr) * is_mem
        is_read = is_mem & (rq_space == IMAGE) & (rq_op == LOAD)
        if is_read.any():
            tb = self.spec.tile_bytes
            tiles, _, _, _ = distinct_segments(order, req_ptr, addr, size, tb, np.zeros(nreq, np.bool_), tb)
            self._req["texture_tiles"] = tiles * is_read
            texel_bytes = distinct_bytes(order, req_ptr, addr, size, is_read)
            self._req["texture_tiles_min"] = tiles_needed(texel_bytes, tb)
        self._run_whatif(order, req_ptr, size, ex, cu_of_req, rq_first, nreq)
        if self.caches is None or not is_read.any():
            return None
        line = self.caches.first_line_bytes
        _, _, tunits, tunit_ptr = distinct_segments(order, req_ptr, addr, size, line, is_read, line)
        c = self.caches
        look, hits, fills, count = (np.zeros(nreq, np.int64) for _ in range(4))
        tex_far = np.full(nreq, -1, np.int64)
        out = texture_stream(ex, is_mem, is_read, units, unit_ptr, unit_bytes, tunits, tunit_ptr,
                             c.last_line_bytes, rq_op, LOAD, cu_of_req, c.tags, c.stamps, c.clock, c.stats,
                             c.sets, c.ways, c.line_bits, c.per_instance, c.offset, look, hits, fills, count,
                             tex_far)
        self._req.update(texture_lookups=look, texture_hits=hits, texture_fills=fills)
        #: per request: its entries in the returned stream and the farthest texture level it hit
        self.stream_layout = (count, tex_far)
        self._req["cache_lookups"] = np.where(is_read, fills, self._req["cache_lookups"])
        return out

    def _run_whatif(self, order, req_ptr, size, ex, cu_of_req, rq_first, nreq) -> None:
        if self._whatif_rows is None or self.whatif is None:
            return
        sel, waddr, y = self._whatif_rows
        full = np.zeros(len(sel), np.int64)
        full[sel] = waddr
        rows = np.full(len(sel), -1, np.int64)
        rows[sel] = y
        mask = sel[rq_first]
        line = self.whatif.first_line_bytes
        _, _, wunits, wptr = distinct_segments(order, req_ptr, full, size, line, mask, line)
        look, hits, fills = (np.zeros(nreq, np.int64) for _ in range(3))
        w = self.whatif
        empty = np.zeros(1, np.int64)
        texture_stream(ex, mask, mask, empty, np.zeros(nreq + 1, np.int64), 1, wunits, wptr,
                       w.last_line_bytes, np.zeros(nreq, np.int32), 0, cu_of_req, w.tags, w.stamps, w.clock,
                       w.stats, w.sets, w.ways, w.line_bits, w.per_instance, w.offset, look, hits, fills,
                       np.zeros(nreq, np.int64), np.full(nreq, -1, np.int64))
        self._req.update(whatif_texture_lookups=look, whatif_texture_hits=hits, whatif_cache_lookups=fills)
        self._req["whatif_rows"] = _distinct_rows(order, req_ptr, rows, mask)

    def add_sites(self, key: np.ndarray, rq_buffer: np.ndarray | None) -> None:
        """Fold the chunk's per-request numbers into per-site sums (keys as the replay's)."""
        if self._req is None:  # nothing reached the caches in this chunk
            self._req = {k: np.zeros(len(key), np.int64) for k in SITE_SUMS}
        ukey, inv = np.unique(key, return_inverse=True)
        sums = np.stack([np.bincount(inv, weights=self._req[k], minlength=len(ukey)) for k in SITE_SUMS], 1)
        for j, k in enumerate(ukey.tolist()):
            acc = self._sites.get(k)
            self._sites[k] = sums[j].copy() if acc is None else acc + sums[j]
        if rq_buffer is not None and self.buffers:
            for j, k in enumerate(ukey.tolist()):
                if k not in self._pitch:
                    b = int(rq_buffer[np.flatnonzero(inv == j)[0]])
                    if b in self.buffers:
                        self._pitch[k] = self.buffers[b].pitch
                        self._shape[k] = (self.buffers[b].item_rows, self.buffers[b].item_columns)

    def site_frame(self) -> pd.DataFrame:
        """The per-site sums so far (``key`` and :data:`SITE_SUMS`, ``row_pitch_bytes``, ``item_rows``,
        ``item_columns``)."""
        keys = sorted(self._sites)
        df = pd.DataFrame({"key": np.array(keys, np.int64)})
        sums = np.array([self._sites[k] for k in keys]) if keys else np.zeros((0, len(SITE_SUMS)))
        for i, name in enumerate(SITE_SUMS):
            df[name] = sums[:, i].astype(np.int64)
        df["row_pitch_bytes"] = pd.array([self._pitch.get(k) for k in keys], dtype="Int64")
        shape = [self._shape.get(k, (np.nan, np.nan)) for k in keys]
        df["item_rows"] = np.array([s[0] for s in shape], float)
        df["item_columns"] = np.array([s[1] for s in shape], float)
        return df

    def level_stats(self) -> list[TextureCacheStats]:
        """Per texture level: hits, misses, hit rate (empty when the target shares a data cache)."""
        if self.caches is None:
            return []
        return [TextureCacheStats.of(name, lv.scope, hits, misses)
                for name, (hits, misses), lv in zip(self.caches.names, self.caches.stats, self.spec.caches,
                                                    strict=True)]


def _distinct_rows(order, req_ptr, rows, mask):
    """Distinct values of ``rows`` per masked request (distinct "bytes" of size 1)."""
    return distinct_bytes(order, req_ptr, rows, np.ones(len(rows), np.uint16), mask)


def _buffer_rows(trace, launch: int, row: dict, meta: dict) -> dict[int, BufferRows]:
    """Row pitches of the launch's 2-D read-only buffers, from its first rows."""
    local = list(row.get("local_size") or [1, 1, 1])
    glob = list(row.get("global_size") or [1, 1, 1])
    if len(glob) < 2 or int(glob[1]) <= 1:
        return {}
    groups = meta.get("num_groups") or [-(-int(g) // max(int(x), 1))
                                        for g, x in zip(glob, local, strict=False)]
    cols = ["group", "item", "site", "space", "op", "address", "size", "buffer"]
    batches = []
    n = 0
    for b in trace.iter_batches(columns=cols, batch_size=SAMPLE_ROWS, launches=[launch]):
        batches.append(b)
        n += b.num_rows
        if n >= SAMPLE_ROWS:
            break
    if not batches:
        return {}
    sample = pa.Table.from_batches(batches).to_pandas()
    for c in ("space", "op"):
        sample[c] = sample[c].astype(object)   # plain strings: an Arrow string column is slow to compare
    bases = {int(b["arg"]): int(b["base"]) for b in (meta.get("layout") or {}).get("global_buffers", [])
             if "arg" in b and "base" in b}
    return row_pitches(sample, local, groups, bases)


#: Per-site facts of image sites: what the trace says about the images and samplers used.
IMAGE_FACTS = ("image_format", "sampler_addressing", "sampler_filter", "sampler_normalized")


def image_site_facts(trace, launch: int) -> pd.DataFrame:
    """Per image site of a launch: its image format and its reads' sampler (the first value seen;
    a site is one call, so one image and one sampler as a rule).  Empty without image columns."""
    names = [c for c in IMAGE_FACTS if c in trace.access_columns]
    if not names:
        return pd.DataFrame(columns=["site", *IMAGE_FACTS])
    frames = []
    for b in trace.iter_batches(columns=["site", "space", *names], launches=[launch]):
        t = pa.Table.from_batches([b])
        t = t.filter(pc.equal(t["space"].cast(pa.string()), "image"))
        if t.num_rows:
            frames.append(t.drop_columns(["space"]).to_pandas())
    if not frames:
        return pd.DataFrame(columns=["site", *IMAGE_FACTS])
    df = pd.concat(frames, ignore_index=True)
    for c in names:
        if isinstance(df[c].dtype, pd.CategoricalDtype):
            df[c] = df[c].astype(object)
    return df.groupby("site", sort=True)[names].first().reset_index()
