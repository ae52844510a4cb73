"""The texture path of the memory replay: tiled image addresses and the texture caches.

GPUs keep images in 2-D tiles (``TextureSpec``): one texture-cache line holds a
block of neighbouring texels in several rows, not a stretch of one row.  For every
``image`` access this module computes the address its texel has in that layout
(:func:`tiled_addresses`), from the recorded texel coordinates and the image's
size in the launch metadata.  Image reads then look their tiles up in the
target's read-only texture caches (Adreno TP L1, Intel sampler L1/L2, PowerVR TPU
cache), per compute unit, in the order the wave requests were issued; a miss
fetches the line from the first level of the data hierarchy, interleaved with the
buffer traffic (:func:`texture_stream`).  Targets whose texture cache is a data
cache (NVIDIA's unified L1) send reads into that hierarchy directly at their tiled
addresses; image writes always take the data path.

For buffer loads the module measures what the guides' advice would change
(:mod:`analyzers.replay.texture_whatif`): whether a read-only buffer is read in a 2-D
pattern, and how the same reads would fare as reads of an image through the
texture caches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from analyzers.replay.intdiv import ADDR_MASK, div, shift_of
from tracekit.targets.model import Target, TextureSpec


@dataclass(frozen=True)
class ImageLayout:
    """Where one image argument lives and how big it is (launch metadata ``images``)."""

    arg: int
    base: int
    width: int
    height: int
    depth: int


def image_layouts(meta: dict) -> dict[int, ImageLayout]:
    """The launch's images by kernel-argument index, from its metadata."""
    out = {}
    for im in meta.get("images") or []:
        if "base" not in im or "arg" not in im:
            continue
        depth = max(int(im.get("depth", 1)), int(im.get("array_size", 1)), 1)
        out[int(im["arg"])] = ImageLayout(int(im["arg"]), int(im["base"]), max(int(im["width"]), 1),
                                          max(int(im.get("height", 1)), 1), depth)
    return out


def tile_shapes(spec: TextureSpec, texel_bytes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tile width and height (texels) for each texel size in ``texel_bytes``."""
    sizes, inv = np.unique(texel_bytes, return_inverse=True)
    shapes = np.array([spec.tile_shape(int(b)) for b in sizes], dtype=np.int64).reshape(-1, 2)
    return shapes[inv, 0], shapes[inv, 1]


def tiled_addresses(spec: TextureSpec, x: np.ndarray, y: np.ndarray, z: np.ndarray, texel_bytes: np.ndarray,
                    base: np.ndarray, width: np.ndarray, height: np.ndarray) -> np.ndarray:
    """Device address of each texel in the tiled layout of its image.

    Tiles of ``spec.tile_bytes`` follow each other along a row of tiles, rows of
    tiles one after another, slices (``z``) after that, from the image's base;
    inside a tile, texels are stored row by row.  All arguments are per texel.
    """
    x, y, z = (np.asarray(a, dtype=np.int64) for a in (x, y, z))
    b = np.asarray(texel_bytes, dtype=np.int64)
    tw, th = tile_shapes(spec, b)
    # An image fewer rows high than a tile (a 1D image, a single row) keeps its texels
    # dense: the tile folds to the largest power-of-two height the image has, and widens.
    # ArchProbe's image chase on the Adreno 640 finds the L2 step of a 1D image at the
    # buffer's footprint (tests/data/mobile/archprobe), not at a quarter of it.
    rows = np.maximum(np.asarray(height, np.int64), 1)
    fit = np.left_shift(np.int64(1), np.floor(np.log2(rows)).astype(np.int64))
    folded = np.minimum(th, fit)
    tw, th = tw * th // folded, folded
    tiles_x = -(-np.asarray(width, np.int64) // tw)
    tiles_y = -(-np.asarray(height, np.int64) // th)
    tile = (z * tiles_y + y // th) * tiles_x + x // tw
    within = ((y % th) * tw + x % tw) * b
    return np.asarray(base, np.int64) + tile * spec.tile_bytes + within


@dataclass
class TextureCaches:
    """State of a target's texture-cache levels for one launch (LRU, read-only)."""

    names: tuple[str, ...]
    sets: np.ndarray          # per level
    ways: np.ndarray
    line_bits: np.ndarray
    per_instance: np.ndarray  # compute units sharing one instance
    offset: np.ndarray        # first entry of each level in ``tags`` / ``stamps``
    tags: np.ndarray
    stamps: np.ndarray
    clock: np.ndarray         # one entry: the LRU clock
    stats: np.ndarray         # per level: hits, misses

    @classmethod
    def for_target(cls, target: Target) -> TextureCaches | None:
        spec = target.texture
        if spec is None or not spec.caches:
            return None
        cus = max(1, int(target.compute_units))
        sets, ways, bits, share, offset = [], [], [], [], [0]
        for lv in spec.caches:
            n = lv.sets * lv.ways * -(-cus // lv.compute_units_per_instance)
            sets.append(lv.sets)
            ways.append(lv.ways)
            bits.append(int(lv.line_bytes).bit_length() - 1)
            share.append(lv.compute_units_per_instance)
            offset.append(offset[-1] + n)
        tc = cls(tuple(lv.name for lv in spec.caches), np.array(sets, np.int64), np.array(ways, np.int64),
                 np.array(bits, np.int64), np.array(share, np.int64), np.array(offset, np.int64),
                 np.empty(offset[-1], np.int64), np.empty(offset[-1], np.int64), np.zeros(1, np.int64),
                 np.zeros((len(sets), 2), np.int64))
        tc.reset()
        return tc

    def reset(self) -> None:
        self.tags.fill(-1)
        self.stamps.fill(-1)
        self.clock[0] = 0
        self.stats.fill(0)

    @property
    def first_line_bytes(self) -> int:
        return 1 << int(self.line_bits[0])

    @property
    def last_line_bytes(self) -> int:
        return 1 << int(self.line_bits[-1])

    def lookup(self, lines: np.ndarray, cus: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Look byte addresses up in order (a test and notebook helper): per access the level
        that hit (-1: a miss everywhere) and the per-level hit and miss counts."""
        lines = np.ascontiguousarray(lines, dtype=np.int64)
        cus = np.ascontiguousarray(np.broadcast_to(cus, lines.shape), dtype=np.int64)
        level = np.empty(len(lines), np.int64)
        for i in range(len(lines)):
            level[i] = _lookup(self.tags, self.stamps, self.clock, self.stats, self.sets, self.ways,
                               self.line_bits, self.per_instance, self.offset, lines[i], cus[i])
        return level, self.stats.copy()


@njit(cache=True)
def _lookup(tags, stamps, clock, stats, sets, ways, line_bits, per_inst, offset, addr, cu):
    """One read of the byte address ``addr`` by compute unit ``cu`` down the texture levels:
    the level that hit, or -1 when every level missed (each missing level installs the line,
    replacing its least recently used way)."""
    for k in range(sets.shape[0]):
        line = addr >> line_bits[k]
        inst = cu // per_inst[k]
        s = line % sets[k]
        base = offset[k] + (inst * sets[k] + s) * ways[k]
        clock[0] += 1
        victim = base
        for w in range(base, base + ways[k]):
            if tags[w] == line:
                stamps[w] = clock[0]
                stats[k, 0] += 1
                return k
            if stamps[w] < stamps[victim]:
                victim = w
        stats[k, 1] += 1
        tags[victim] = line
        stamps[victim] = clock[0]
    return -1


@njit(cache=True)
def texture_stream(ex, is_mem, is_tex, units, unit_ptr, unit_bytes, tunits, tunit_ptr, fill_bytes, rq_op,
                   load_code, cu_of_req, tags, stamps, clock, stats, sets, ways, line_bits, per_inst, offset,
                   req_lookups, req_hits, req_fills, req_count, req_tex_far):
    """The data hierarchy's input in execution order ``ex``, with texture reads filtered.

    A memory request that is not a texture read contributes its cache units
    (``units``, ``unit_bytes`` each) as :func:`analyzers.replay.memory._cache_stream`
    does.  A texture read (``is_tex``) looks each of its texture lines (``tunits``)
    up in the texture caches; only the lines every level missed go on, as loads
    of ``fill_bytes``.  Per request: texture lookups, first-level hits and fills
    (``req_*``, indexed by request), the stream entries each request put out
    (``req_count``) and the farthest texture level a read's hit came from
    (``req_tex_far``, -1: none).  Returns addresses, ops (1: store), lengths and
    compute units of the stream.
    """
    total = 0
    for q in range(ex.shape[0]):
        r = ex[q]
        if is_mem[r]:
            if is_tex[r]:
                total += tunit_ptr[r + 1] - tunit_ptr[r]
            else:
                total += unit_ptr[r + 1] - unit_ptr[r]
    addrs = np.empty(total, np.int64)
    ops = np.empty(total, np.int64)
    lens = np.empty(total, np.int64)
    cus = np.empty(total, np.int64)
    k = 0
    for q in range(ex.shape[0]):
        r = ex[q]
        if not is_mem[r]:
            continue
        cu = cu_of_req[r]
        if is_tex[r]:
            for u in range(tunit_ptr[r], tunit_ptr[r + 1]):
                lv = _lookup(tags, stamps, clock, stats, sets, ways, line_bits, per_inst, offset, tunits[u],
                             cu)
                req_lookups[r] += 1
                if lv == 0:
                    req_hits[r] += 1
                if lv > req_tex_far[r]:
                    req_tex_far[r] = lv
                if lv < 0:
                    req_fills[r] += 1
                    req_count[r] += 1
                    addrs[k] = (tunits[u] // fill_bytes) * fill_bytes
                    ops[k] = 0
                    lens[k] = fill_bytes
                    cus[k] = cu
                    k += 1
            continue
        op = 0 if rq_op[r] == load_code else 1
        for u in range(unit_ptr[r], unit_ptr[r + 1]):
            addrs[k] = units[u]
            ops[k] = op
            lens[k] = unit_bytes
            cus[k] = cu
            k += 1
        req_count[r] += unit_ptr[r + 1] - unit_ptr[r]
    return addrs[:k], ops[:k], lens[:k], cus[:k]


@njit(cache=True)
def distinct_bytes(order, req_ptr, address, size, mask):
    """Per request with ``mask`` set: bytes of distinct texels its lanes touched (lanes reading
    one texel count once); 0 elsewhere."""
    nreq = req_ptr.shape[0] - 1
    out = np.zeros(nreq, np.int64)
    for r in range(nreq):
        if not mask[r]:
            continue
        lo, hi = req_ptr[r], req_ptr[r + 1]
        a = np.empty(hi - lo, np.int64)
        for t in range(lo, hi):
            a[t - lo] = address[order[t]] & ADDR_MASK
        by_address = np.argsort(a, kind="mergesort")   # stable: deterministic for equal addresses
        total = 0
        for j in range(hi - lo):
            t = by_address[j]
            if j == 0 or a[t] != a[by_address[j - 1]]:
                total += max(np.int64(size[order[lo + t]]), np.int64(1))
        out[r] = total
    return out


@njit(cache=True)
def request_cache_units(unit_ptr):
    """Cache units (first data level) each request sent, from the CSR pointer."""
    n = unit_ptr.shape[0] - 1
    out = np.empty(n, np.int64)
    for r in range(n):
        out[r] = unit_ptr[r + 1] - unit_ptr[r]
    return out


@njit(cache=True)
def _ceil_div(a, n):
    sh = shift_of(n)
    return div(a + n - 1, n, sh)


@njit(cache=True)
def tiles_needed(nbytes, tile_bytes):
    """Fewest tiles that can hold ``nbytes`` of texels, per request."""
    out = np.empty(nbytes.shape[0], np.int64)
    for r in range(nbytes.shape[0]):
        out[r] = _ceil_div(nbytes[r], tile_bytes) if nbytes[r] > 0 else 0
    return out
