"""The image columns of recorded accesses, from the plugin's image rows.

The plugin writes one row per texel an image call read or wrote (stream.h): the
texel's byte offset in the image's buffer and, in bits 16-23 of the row's buffer
number, the sampler of a read.  The launch's image arguments (width, height,
depth, texel size, channel format) come with the launch; from them each row gets
its texel coordinates, its image's format and its sampler's addressing mode,
filter and coordinate kind (trace format v1's optional image columns).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from tracekit.trace import schema
from tracekit.trace.arrow_numpy import strings

#: Oclgrind's sampler bits (oclgrind/common.h: CLK_ADDRESS_* are 0, 2, 4, 6, 8 in bits 1-3,
#: CLK_FILTER_LINEAR is 0x20, CLK_NORMALIZED_COORDS_TRUE 0x1) and stream.h's marker of a read.
SAMPLER_SET = 0x80
_ADDRESSING_SHIFT, _LINEAR, _NORMALIZED = 1, 0x20, 0x1
_ADDRESSING = strings(schema.SAMPLER_ADDRESSING)
_FILTERS = strings(schema.SAMPLER_FILTERS)


@dataclass(frozen=True)
class ImageArgument:
    """One image argument of a launch, as the plugin described it."""

    arg: int
    name: str
    buffer: int          # Oclgrind's buffer number of its data
    type: str            # image1d, image2d, image2d_array, image3d, ...
    width: int
    height: int
    depth: int
    array_size: int
    channel_order: str
    channel_type: str
    element_size: int
    access: str

    @property
    def format(self) -> str:
        return f"{self.channel_order}:{self.channel_type}"

    def describe(self, base: int | None) -> dict:
        """The launch-metadata entry (``images``): everything an analysis needs to tile it."""
        out = {"arg": self.arg, "name": self.name, "type": self.type, "width": self.width,
               "height": self.height, "depth": self.depth, "array_size": self.array_size,
               "format": self.format, "element_size": self.element_size, "access": self.access}
        if base is not None:
            out["base"] = base
        return out


def image_arguments(args: list[dict]) -> list[ImageArgument]:
    """The image arguments among a launch's arguments (plugin JSON)."""
    out = []
    for a in args:
        img = a.get("image")
        if not img:
            continue
        out.append(ImageArgument(
            arg=a["index"], name=a["name"], buffer=img["buffer"], type=img["type"], width=img["width"],
            height=img["height"], depth=img["depth"], array_size=img["array_size"],
            channel_order=img["channel_order"], channel_type=img["channel_type"],
            element_size=img["element_size"], access=img["access"]))
    return out


class ImageColumns:
    """Per-launch lookup tables from a buffer number to its image's geometry."""

    def __init__(self, images: list[ImageArgument]):
        self.images = images
        n = max((i.buffer for i in images), default=0) + 2   # the last slot: no image known
        self.width = np.ones(n, np.int64)
        self.rows = np.ones(n, np.int64)                      # height, for the layer/depth split
        self.texel = np.ones(n, np.int64)
        self.fmt = np.full(n, -1, np.int32)
        names = sorted({i.format for i in images})
        self.formats = strings(names)
        for i in images:
            # texel (x, y, z) at ((z * height + y) * width + x) * element_size, the layer of an
            # array as z (a 1-D image has height 1; Oclgrind lays images out so)
            self.width[i.buffer] = max(i.width, 1)
            self.rows[i.buffer] = max(i.height, 1)
            self.texel[i.buffer] = max(i.element_size, 1)
            self.fmt[i.buffer] = names.index(i.format)

    def columns(self, offset: np.ndarray, buf: np.ndarray, size: np.ndarray, is_image: np.ndarray) -> dict:
        """The image columns of a block (nulls on non-image rows); ``buf`` holds the raw buffer word."""
        n = len(offset)
        valid = np.packbits(is_image, bitorder="little")
        number = np.minimum(buf & 0xFFFF, len(self.width) - 1).astype(np.intp)
        known = self.fmt[number] >= 0
        texel_bytes = np.where(known, self.texel[number], np.maximum(size, 1))
        index = offset.astype(np.int64) // texel_bytes
        width, rows = self.width[number], self.rows[number]
        x = np.where(known, index % width, index)
        y = np.where(known, (index // width) % rows, 0)
        z = np.where(known, index // (width * rows), 0)
        sampler = (buf >> 16) & 0xFF
        read = is_image & ((sampler & SAMPLER_SET) != 0)
        rvalid = np.packbits(read, bitorder="little")
        has_fmt = np.packbits(is_image & known, bitorder="little")

        def ints(v: np.ndarray, bits) -> pa.Array:
            return pa.Array.from_buffers(pa.int32(), n, [pa.py_buffer(bits),
                                                         pa.py_buffer(v.astype(np.int32))])

        def codes(v: np.ndarray, bits, dictionary) -> pa.Array:
            idx = pa.Array.from_buffers(pa.int32(), n, [pa.py_buffer(bits), pa.py_buffer(v.astype(np.int32))])
            return pa.DictionaryArray.from_arrays(idx, dictionary)

        addressing = np.minimum((sampler >> _ADDRESSING_SHIFT) & 7, len(_ADDRESSING) - 1)
        normalized = pa.Array.from_buffers(pa.bool_(), n, [pa.py_buffer(rvalid), pa.py_buffer(
            np.packbits((sampler & _NORMALIZED) != 0, bitorder="little"))])
        return {
            "texel_x": ints(x, valid), "texel_y": ints(y, valid), "texel_z": ints(z, valid),
            "image_format": codes(np.maximum(self.fmt[number], 0), has_fmt, self.formats),
            "sampler_addressing": codes(addressing, rvalid, _ADDRESSING),
            "sampler_filter": codes(((sampler & _LINEAR) != 0).astype(np.int32), rvalid, _FILTERS),
            "sampler_normalized": normalized,
        }


def image_call_lanes(opcodes: list, lanes: list) -> np.ndarray:
    """Per site, the count each execution adds: the plugin's vector lanes, except 1 for an
    image built-in call.  A read_image* returns four channels but is one texture instruction
    whatever the image's format; counting it four times (as a float4 load is) would price an
    image read as four loads in the ALU and latency models."""
    out = np.array(lanes, dtype=np.int64)
    for i, op in enumerate(opcodes):
        if op and (op.startswith("call read_image") or op.startswith("call write_image")):
            out[i] = 1
    return out
