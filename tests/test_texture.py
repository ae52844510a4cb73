"""The texture path: tiled image addresses, the texture caches, row pitches of 2-D buffers,
and the guides' claim on the sample kernels (images through the texture L1 on Adreno)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import analyzers
from analyzers.replay.memory import replay_memory
from analyzers.replay.texture import TextureCaches, tiled_addresses
from analyzers.replay.texture_whatif import row_pitches
from tracekit.targets import list_targets, load_target
from tracekit.targets.model import TextureCacheLevel, TextureSpec

SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"
PAIRS = [("conv3x3_buffer", "conv3x3_image"), ("resize_bilinear_buffer", "resize_bilinear_image")]


def test_tiled_address_hand_computed():
    """Adreno tiles of 64 bytes, 4 rows: 4 x 4 texels of 4 bytes, 1 x 4 of 16 bytes."""
    spec = load_target("adreno-640").texture
    base = 0x1000_0000
    # 4-byte texel (5, 6) of a 64 x 16 image: tile column 1, tile row 1 of 16 tiles a row -> tile 17;
    # inside it row 2, column 1 -> texel 9 of the tile
    a = tiled_addresses(spec, [5], [6], [0], [4], [base], [64], [16])
    assert a[0] == base + 17 * 64 + 9 * 4
    # 16-byte texels: tiles of 1 x 4; (5, 6) is tile (5, 1) of 64 tiles a row, row 2 inside it
    b = tiled_addresses(spec, [5], [6], [0], [16], [base], [64], [16])
    assert b[0] == base + (1 * 64 + 5) * 64 + 2 * 16
    # a slice of a 3-D image comes after all rows of tiles of the one before: 16 / 4 rows x 16 tiles
    c = tiled_addresses(spec, [0], [0], [1], [4], [base], [64], [16])
    assert c[0] == base + 4 * 16 * 64
    # the 4 x 4 texels of one tile share one line, the next column of texels is the next tile
    x, y = np.meshgrid(np.arange(8), np.arange(4))
    lines = tiled_addresses(spec, x.ravel(), y.ravel(), np.zeros(32), np.full(32, 4), np.full(32, base),
                            np.full(32, 64), np.full(32, 16)) // 64
    assert sorted(set(lines.tolist())) == [base // 64, base // 64 + 1]
    assert (lines.reshape(4, 8)[:, :4] == base // 64).all()


def test_square_tiles_of_powervr_and_gobs_of_nvidia():
    pvr = load_target("powervr-g6400").texture       # 128-byte square tiles: 8 x 4 texels of 4 bytes
    a = tiled_addresses(pvr, [9], [5], [0], [4], [0], [32], [32])
    assert a[0] == (1 * 4 + 1) * 128 + (1 * 8 + 1) * 4
    nv = load_target("nvidia-h200").texture          # 128 bytes of 2 rows: 16 x 2 texels of 4 bytes
    b = tiled_addresses(nv, [17], [3], [0], [4], [0], [64], [8])
    assert b[0] == (1 * 4 + 1) * 128 + (1 * 16 + 1) * 4


def _caches(levels, cus=4):
    t = load_target("adreno-640")
    spec = TextureSpec(tile_bytes=64, tile_rows=4, caches=tuple(levels))
    return TextureCaches.for_target(dataclasses.replace(t, texture=spec, compute_units=cus))


def test_texture_cache_lru_hand_computed():
    # 2 sets x 2 ways of 64-byte lines: lines 0, 2, 4 share set 0
    tc = _caches([TextureCacheLevel("T", "compute_unit", 256, 64, 2)])
    lines = np.array([0, 2, 0, 4, 2, 0, 1, 1]) * 64
    level, stats = tc.lookup(lines, 0)
    # 0 miss, 2 miss, 0 hit, 4 miss (evicts 2), 2 miss (evicts 0), 0 miss, 1 miss (set 1), 1 hit
    assert level.tolist() == [-1, -1, 0, -1, -1, -1, -1, 0]
    assert stats.tolist() == [[2, 6]]
    # another compute unit has its own instance: line 1 misses there
    assert tc.lookup(np.array([64]), 1)[0].tolist() == [-1]


def test_two_texture_levels_and_shared_instances():
    small = TextureCacheLevel("L1", "compute_unit", 128, 64, 2)            # one set of two ways
    big = TextureCacheLevel("L2", "compute_unit", 1024, 64, 4, compute_units_per_instance=2)
    tc = _caches([small, big])
    level, _ = tc.lookup(np.array([0, 1, 2, 0]) * 64, 0)
    # lines 0, 1, 2 miss both; 0 was evicted from L1 by 2 but is still in L2
    assert level.tolist() == [-1, -1, -1, 1]
    # compute unit 1 shares the L2 with unit 0 but has its own L1; unit 2 has neither
    assert tc.lookup(np.array([64]), 1)[0].tolist() == [1]
    assert tc.lookup(np.array([64]), 2)[0].tolist() == [-1]


def _sample(width: int, height: int, local=(16, 16), reads=lambda x, y: [y * 64 + x]):
    rows = []
    ngx = width // local[0]
    for gy in range(height):
        for gx in range(width):
            group = (gy // local[1]) * ngx + gx // local[0]
            item = (gy % local[1]) * local[0] + gx % local[0]
            for idx in reads(gx, gy):
                rows.append((group, item, 0, "global", "load", 0x1000 + 4 * idx, 4, 0))
            rows.append((group, item, 1, "global", "store", 0x9000 + 4 * (gy * width + gx), 4, 1))
    df = pd.DataFrame(rows, columns=["group", "item", "site", "space", "op", "address", "size", "buffer"])
    return df.sort_values(["group", "item"], kind="stable").reset_index(drop=True)


def test_row_pitch_is_found_from_work_items_one_row_apart():
    df = _sample(32, 32, reads=lambda x, y: [max(y - 1, 0) * 64 + x, y * 64 + x, (y + 1) * 64 + x])
    rows = row_pitches(df, (16, 16, 1), (2, 2, 1), {0: 0x1000})
    assert list(rows) == [0] and rows[0].pitch == 256 and rows[0].base == 0x1000
    assert rows[0].agreement > 0.9
    # the output buffer is written: never a candidate
    assert 1 not in rows
    # a 1-D launch, or a buffer read at one place by every row, has no pitch
    assert row_pitches(df, (16, 1, 1), (64, 1, 1), {}) == {}
    flat = _sample(32, 32, reads=lambda x, y: [x])
    assert row_pitches(flat, (16, 16, 1), (2, 2, 1), {}) == {}


@pytest.mark.parametrize("buffer_trace, image_trace", PAIRS)
def test_adreno_reads_images_through_the_texture_l1(buffer_trace, image_trace):
    """Adreno guide §6.2, §7.1.5.3, Table 7-2: read-only images go through the texture processor's
    L1, buffers straight to L2.  The image version of the same kernel hits in the TP L1 and asks the
    L2 for fewer lines; the buffer version never touches the TP L1.  The TP L1 is the 1 KiB that
    ArchProbe published for Adreno 6xx (tests/data/mobile/archprobe), so about half the reads of a
    3x3 window hit there."""
    buf = analyzers.analyze(SAMPLES / f"{buffer_trace}.tkt", "adreno-640").launches[0]
    img = analyzers.analyze(SAMPLES / f"{image_trace}.tkt", "adreno-640").launches[0]
    bm, im = buf.memory.memory, img.memory.memory
    assert [c.level for c in im.texture_caches] == ["TPL1"]
    assert bm.texture_caches[0].hits + bm.texture_caches[0].misses == 0
    assert im.texture_caches[0].hit_rate > 0.5
    breads = buf.per_site[buf.per_site["op"] == "load"]
    ireads = img.per_site[img.per_site["op"] == "load"]
    assert set(ireads["space"]) == {"image"} and (breads["texture_lookups"] == 0).all()
    assert (ireads["texture_hit_rate"] > 0.5).all()
    # L2 lines asked for by the reads: texture misses only, well under the buffer version's
    assert ireads["cache_lookups"].sum() * 1.5 < breads["cache_lookups"].sum()
    assert (ireads["cache_lookups"] == ireads["texture_fills"]).all()
    l2_buf = bm.caches[0].hits + bm.caches[0].misses
    l2_img = im.caches[0].hits + im.caches[0].misses
    assert l2_img * 1.5 < l2_buf
    # the why, in the result: the texture level is a level of the time model, serving most loads
    assert "TPL1" in img.bound.memory_levels_s and img.bound.evidence["load_served_by"]["TPL1"] > 0.5
    # the L2 term falls with the lines; whether the whole launch is faster depends on the TP L1's
    # bandwidth and latency, which no public source gives (assumed in the target file)
    assert img.bound.memory_levels_s["L2"] < buf.bound.memory_levels_s["L2"]
    # what the image sites read with, for rules about samplers and formats
    facts = ireads.iloc[0]
    assert facts["image_format"] == "r:float" and facts["sampler_addressing"] == "clamp_to_edge"
    assert facts["sampler_filter"] == ("nearest" if image_trace.startswith("conv") else "linear")
    # image writes take the data path
    writes = img.per_site[img.per_site["op"] == "store"]
    assert (writes["texture_lookups"] == 0).all() and (writes["cache_lookups"] > 0).all()


@pytest.mark.parametrize("buffer_trace, image_trace", PAIRS)
def test_buffer_whatif_predicts_the_image_version(buffer_trace, image_trace):
    """The what-if replays the buffer version's reads as image reads: it finds the row pitch and
    lands on the hit rate and L2 line count the image version actually has."""
    for target in ("adreno-640", "intel-hd530", "powervr-g6400"):
        buf = replay_memory(_open(buffer_trace), load_target(target))
        img = replay_memory(_open(image_trace), load_target(target))
        breads = buf.per_site[(buf.per_site["op"] == "load") & (buf.per_site["space"] == "global")]
        ireads = img.per_site[img.per_site["op"] == "load"]
        assert (breads["row_pitch_bytes"] == 256).all()
        # 16-wide work-groups: a wave of 64 (Adreno) spans 4 rows, of 32 (PowerVR) 2, of 16 (Intel) 1
        # (a little less at the clamped top and bottom edges); the 1.5x upscale reads fewer
        rows = breads["whatif_rows"].sum() / breads["requests"].sum()
        wave_rows = load_target(target).simd.width / 16
        if buffer_trace.startswith("conv"):
            assert rows == pytest.approx(wave_rows, rel=0.05)
        else:
            assert 1 <= rows <= wave_rows and (rows > 1) == (wave_rows > 1)
        predicted = breads["whatif_texture_hits"].sum() / breads["whatif_texture_lookups"].sum()
        actual = ireads["texture_hits"].sum() / ireads["texture_lookups"].sum()
        assert abs(predicted - actual) < 0.1, (target, predicted, actual)
        assert breads["whatif_cache_lookups"].sum() == pytest.approx(ireads["cache_lookups"].sum(), rel=0.25)
        assert breads["whatif_cache_lookups"].sum() * 1.5 < breads["cache_lookups"].sum()


def _open(name):
    from tracekit.formats import open_trace
    return open_trace(SAMPLES / f"{name}.tkt")


@pytest.mark.parametrize("target", list_targets())
def test_every_target_analyses_the_image_samples(target):
    for pair in PAIRS:
        for name in pair:
            res = analyzers.analyze(SAMPLES / f"{name}.tkt", target)
            assert not res.errors, res.errors
            r = res.launches[0]
            assert r.verdict in ("alu", "memory", "latency") and r.bound.time_s > 0
            reads = r.per_site[r.per_site["op"] == "load"]
            if name.endswith("image"):
                assert set(reads["space"]) == {"image"}
                assert (reads["texture_tiles"] >= reads["texture_tiles_min"]).all()
                shared = load_target(target).texture.shared_with
                rate = reads["texture_hit_rate"]
                assert rate.isna().all() if shared else (rate > 0.5).all()
            assert res.to_json()  # the new numbers serialise


def test_image_rows_without_coordinates_keep_linear_addresses():
    """An image access in a trace without texel columns (an older or foreign trace) still goes
    through the texture cache, at its recorded address."""
    n = 64
    t = pa.table({"kernel": ["k"] * n, "launch": pa.array([0] * n, pa.int32()),
                  "group": pa.array([0] * n, pa.int64()), "item": pa.array(np.arange(n), pa.int32()),
                  "site": pa.array([0] * n, pa.int32()), "seq": pa.array([0] * n, pa.int64()),
                  "space": ["image"] * n, "op": ["load"] * n,
                  "address": pa.array(0x1000_0000 + 4 * np.arange(n), pa.uint64()),
                  "size": pa.array([4] * n, pa.uint16())})
    rep = replay_memory(t, load_target("adreno-640"))
    site = rep.per_site.iloc[0]
    assert site["texture_lookups"] == 4 and site["texture_fills"] == 4  # 256 linear bytes: 4 lines
    assert rep.texture_caches[0].misses == 4


def test_images_fewer_rows_than_a_tile_stay_dense():
    """ArchProbe's 1D image chase on the Adreno 640 steps at the buffer's L2 footprint, so a one-row
    image is stored densely; a two-row image folds its 4-row tiles to 2 rows, twice as wide."""
    spec = load_target("adreno-640").texture  # 64-byte tiles, 4 rows: 1 x 4 texels of 16 bytes
    x = np.arange(8)
    one_row = tiled_addresses(spec, x, np.zeros(8), np.zeros(8), np.full(8, 16), np.zeros(8), np.full(8, 8),
                              np.ones(8))
    assert one_row.tolist() == (x * 16).tolist()
    xs, ys = np.array([0, 1, 0, 2]), np.array([0, 0, 1, 0])
    two_rows = tiled_addresses(spec, xs, ys, np.zeros(4), np.full(4, 16), np.zeros(4), np.full(4, 8),
                               np.full(4, 2))
    assert two_rows.tolist() == [0, 16, 32, 64]   # 2 x 2 texels a tile
    tall = tiled_addresses(spec, xs, ys, np.zeros(4), np.full(4, 16), np.zeros(4), np.full(4, 8),
                           np.full(4, 64))
    assert tall.tolist() == [0, 64, 16, 128]      # 1 x 4 texels a tile, as the target gives
