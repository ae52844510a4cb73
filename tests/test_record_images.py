"""Recording image accesses on real Oclgrind: one row per texel of each read_image*/write_image*
call, with its texel coordinates, the image's channel format and the read's sampler."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tracekit.errors import RecordError
from tracekit.formats import open_trace
from tracekit.recorder import record_command, record_kernel, toolchain
from tracekit.recorder.argspec import parse_arg
from tracekit.trace.validate import validate


@pytest.fixture(scope="module", autouse=True)
def built():
    toolchain.plugin_path()
    toolchain.host_path()


def kernel_file(tmp_path: Path, source: str) -> Path:
    p = tmp_path / "k.cl"
    p.write_text(source)
    return p


NEAREST = """
__constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void shift(__read_only image2d_t src, __write_only image2d_t dst, __read_only image2d_t bytes) {
  int x = get_global_id(0), y = get_global_id(1);
  float4 left = read_imagef(src, edge, (int2)(x - 1, y));
  float4 here = read_imagef(src, edge, (int2)(x, y));
  float4 b = read_imagef(bytes, edge, (int2)(x, y));
  write_imagef(dst, (int2)(x, y), left + here + b);
}
"""


def test_nearest_reads_and_writes_land_on_their_texels(tmp_path):
    w, h = 16, 8
    out = tmp_path / "s.tkt"
    r = record_kernel(kernel_file(tmp_path, NEAREST), "shift", global_size=f"{w},{h}", local_size="8,4",
                      args=[f"img:rgba:float:{w},{h}=range", f"img:rgba:float:{w},{h}",
                            f"img:r:unorm8:{w},{h}=rand:3"], out=out)
    assert r.launches == [("shift", "ok")]
    t = open_trace(out)
    a = t.accesses.to_pandas()
    # three reads and one write per work-item, every one a single texel
    assert len(a) == 4 * w * h and set(a["space"]) == {"image"}
    meta = t.launch_metadata(0)
    images = {i["arg"]: i for i in meta["images"]}
    assert images[0]["width"] == w and images[0]["height"] == h and images[0]["access"] == "read_only"
    assert images[1]["access"] == "write_only" and images[2]["format"] == "r:unorm_int8"
    assert images[0]["element_size"] == 16 and images[2]["element_size"] == 1
    gx = (a["group"] % (w // 8)) * 8 + a["item"] % 8
    gy = (a["group"] // (w // 8)) * 4 + a["item"] // 8
    by_seq = {s: a[a["seq"] == s] for s in range(4)}
    left, here, b, wr = (by_seq[s] for s in range(4))
    # x - 1 clamps to the edge at x = 0
    assert (left["texel_x"].to_numpy() == np.maximum(gx[left.index] - 1, 0)).all()
    assert (here["texel_x"].to_numpy() == gx[here.index]).all()
    assert (here["texel_y"].to_numpy() == gy[here.index]).all()
    assert (wr["texel_x"].to_numpy() == gx[wr.index]).all() and (wr["op"] == "store").all()
    assert set(a["texel_z"]) == {0}
    # the address is the texel's first byte in the layout the launch metadata records
    for frame, arg in ((here, 0), (b, 2), (wr, 1)):
        img = images[arg]
        lin = frame["texel_y"].to_numpy() * img["width"] + frame["texel_x"].to_numpy()
        assert (frame["address"].to_numpy() == img["base"] + lin * img["element_size"]).all()
        assert (frame["size"] == img["element_size"]).all() and (frame["buffer"] == arg).all()
    assert set(here["image_format"]) == {"rgba:float"} and set(b["image_format"]) == {"r:unorm_int8"}
    assert set(here["sampler_addressing"]) == {"clamp_to_edge"} and set(here["sampler_filter"]) == {"nearest"}
    assert not here["sampler_normalized"].any()
    # a write has no sampler
    assert wr["sampler_addressing"].isna().all() and wr["sampler_normalized"].isna().all()
    assert validate(t).ok


LINEAR = """
__kernel void sample(__read_only image2d_t src, sampler_t s, __global float4* out, float dx, float dy) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * get_global_size(0) + x] = read_imagef(src, s, (float2)(x + dx, y + dy));
}
"""


def test_linear_filter_reads_each_footprint_texel_once(tmp_path):
    """Oclgrind loads every channel of every footprint texel; the trace keeps one row per texel."""
    out = tmp_path / "l.tkt"
    record_kernel(kernel_file(tmp_path, LINEAR), "sample", global_size="8,8", local_size="8,8",
                  args=["img:rgba:float:8,8=rand:1", "sampler:clamp,linear", "float4[64]",
                        "float:0.25", "float:0.75"], out=out)
    a = open_trace(out).accesses.to_pandas()
    reads = a[a["space"] == "image"]
    assert set(reads["sampler_addressing"]) == {"clamp"} and set(reads["sampler_filter"]) == {"linear"}
    per_item = reads.groupby(["group", "item"])
    # no texel twice within one call
    assert not reads.duplicated(["group", "item", "texel_x", "texel_y"]).any()
    counts = per_item.size()
    x, y = counts.index.get_level_values("item") % 8, counts.index.get_level_values("item") // 8
    # footprint of (x + 0.25, y + 0.75): columns x-1, x (x-1 is the border at x = 0) and rows y, y+1
    # (y+1 is the border at y = 7); border texels are never fetched
    expected = (2 - (x == 0)) * (2 - (y == 7))
    assert (counts.to_numpy() == expected).all()
    one = reads[(reads["item"] == 8 * 3 + 5)]
    assert sorted(zip(one["texel_x"], one["texel_y"], strict=True)) == [(4, 3), (4, 4), (5, 3), (5, 4)]


REPEAT = """
__constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void taps(__read_only image2d_t src, __global float* out) {
  int x = get_global_id(0);
  float s = 0.0f;
  for (int d = -2; d <= 2; d++)
    s += read_imagef(src, edge, (int2)(x + d, 0)).x;
  out[x] = s;
}
"""


def test_separate_calls_reading_one_texel_stay_separate_rows(tmp_path):
    """At the clamped edge, consecutive loop iterations read the same texel: each call is a row."""
    out = tmp_path / "r.tkt"
    record_kernel(kernel_file(tmp_path, REPEAT), "taps", global_size="8", local_size="8",
                  args=["img:r:float:8,1=range", "float[8]"], out=out)
    a = open_trace(out).accesses.to_pandas()
    first = a[(a["item"] == 0) & (a["space"] == "image")]
    assert first["texel_x"].tolist() == [0, 0, 0, 1, 2]
    assert (a[a["space"] == "image"].groupby("item").size() == 5).all()


ONE_THREE = """
__constant sampler_t raw = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
__kernel void dims(__read_only image1d_t line, __read_only image3d_t vol, __write_only image3d_t dst) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  uint4 a = read_imageui(line, raw, x + 4 * y);
  uint4 b = read_imageui(vol, raw, (int4)(x, y, z, 0));
  write_imageui(dst, (int4)(x, y, z, 0), a + b);
}
"""


def test_one_and_three_dimensional_images(tmp_path):
    out = tmp_path / "d.tkt"
    record_kernel(kernel_file(tmp_path, ONE_THREE), "dims", global_size="4,2,3", local_size="4,2,1",
                  args=["img:rg:uint16:8=range", "img:rgba:uint8:4,2,3=range", "img:rgba:uint8:4,2,3"],
                  out=out)
    t = open_trace(out)
    a = t.accesses.to_pandas()
    types = {i["arg"]: i["type"] for i in t.launch_metadata(0)["images"]}
    assert types == {0: "image1d", 1: "image3d", 2: "image3d"}
    z = a["group"].to_numpy()  # one group per z slice
    x, y = a["item"].to_numpy() % 4, a["item"].to_numpy() // 4
    line, vol, dst = a[a["seq"] == 0], a[a["seq"] == 1], a[a["seq"] == 2]
    assert (line["texel_x"].to_numpy() == (x + 4 * y)[line.index]).all() and set(line["size"]) == {4}
    assert set(line["image_format"]) == {"rg:unsigned_int16"}
    for f in (vol, dst):
        assert (f["texel_x"].to_numpy() == x[f.index]).all()
        assert (f["texel_y"].to_numpy() == y[f.index]).all()
        assert (f["texel_z"].to_numpy() == z[f.index]).all()
    assert set(vol["sampler_addressing"]) == {"none"}


HOST = """
import sys
import numpy as np
import pyopencl as cl
src = open(sys.argv[1]).read()
ctx = cl.Context(cl.get_platforms()[0].get_devices())
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, src).build()
fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
mf = cl.mem_flags
data = np.arange(16 * 8 * 4, dtype=np.float32)
a = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(16, 8), hostbuf=data)
b = cl.create_image(ctx, mf.WRITE_ONLY, fmt, shape=(16, 8))
c = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                    cl.ImageFormat(cl.channel_order.R, cl.channel_type.UNORM_INT8), shape=(16, 8),
                    hostbuf=np.zeros(128, np.uint8))
prg.shift(q, (16, 8), (8, 4), a, b, c)
q.finish()
"""


def test_host_program_images_are_recorded(tmp_path):
    host = tmp_path / "host.py"
    host.write_text(HOST)
    src = kernel_file(tmp_path, NEAREST)
    r = record_command([sys.executable, str(host), str(src)], tmp_path / "h.tkt", echo=False)
    assert r.launches == [("shift", "ok")]
    t = open_trace(tmp_path / "h.tkt")
    a = t.accesses.to_pandas()
    assert len(a) == 4 * 16 * 8 and set(a["space"]) == {"image"}
    here = a[a["seq"] == 1]
    gx = (here["group"] % 2) * 8 + here["item"] % 8
    assert (here["texel_x"] == gx).all() and set(here["image_format"]) == {"rgba:float"}
    assert {i["name"] for i in t.launch_metadata(0)["images"]} == {"src", "dst", "bytes"}
    assert validate(t).ok


def test_image_arguments_parse():
    img = parse_arg("img:RGBA:half:4,2=range", 0)
    assert (img.kind, img.type, img.image_dims, img.image_type) == ("image", "rgba:half_float", (4, 2, 1),
                                                                    "image2d")
    assert img.data.dtype == np.float16 and img.data.size == 4 * 2 * 4 and img.nbytes == 64
    assert parse_arg("img:r:unorm_int8:640", 0).image_type == "image1d"
    s = parse_arg("sampler:Mirrored_Repeat,linear,normalized", 0)
    assert (s.kind, s.type) == ("sampler", "mirrored_repeat,linear,normalized")


@pytest.mark.parametrize("text, needle", [
    ("img:rgba:float", "img:ORDER:TYPE:W"),
    ("img:rgbz:float:4,4", "unknown image channel order 'rgbz'"),
    ("img:rgba:double:4,4", "unknown image channel type 'double'"),
    ("img:rgba:float:4,0", "positive integers"),
    ("img:r:float:4,4=@nofile.npy", "cannot read the NumPy file"),
    ("sampler:clamp", "sampler:ADDRESSING,FILTER"),
    ("sampler:wrap,nearest", "unknown addressing mode 'wrap'"),
])
def test_bad_image_arguments_name_the_problem(text, needle, tmp_path):
    with pytest.raises(RecordError, match=needle):
        parse_arg(text, 1, tmp_path)


@pytest.mark.parametrize("args, needle", [
    (["float[128]", "img:rgba:float:16,8", "img:r:unorm8:16,8"],
     "is an image, but --arg 0 gives a buffer"),
    (["img:rgba:float:16", "img:rgba:float:16,8", "img:r:unorm8:16,8"],
     "is an image2d_t, but --arg 0 gives an image1d"),
])
def test_image_argument_mismatch_is_a_clear_error(tmp_path, args, needle):
    with pytest.raises(RecordError, match=needle):
        record_kernel(kernel_file(tmp_path, NEAREST), "shift", global_size="16,8", local_size="8,4",
                      args=args, out=tmp_path / "x.tkt")
