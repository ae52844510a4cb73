"""Image and sampler arguments of ``tracekit record KERNEL.cl --arg ...``.

* images: ``img:ORDER:TYPE:W[,H[,D]][=INIT]``, e.g. ``img:rgba:float:64,64=rand:1`` or
  ``img:r:unorm_int8:640,480=@y.npy``: one, two or three sizes make an image1d, image2d
  or image3d; ORDER and TYPE are OpenCL's channel order and channel type (``CL_`` left
  out, any case; short types ``half``, ``unorm8``, ``uint16``, ``int32`` ... too); INIT is
  a buffer's (a constant, ``range``, ``rand``, ``@file.npy``), giving the channel values
  in row order, W x H x D x channels of them; without INIT the image is zeros.  Whether
  the kernel reads or writes it is the kernel's ``read_only``/``write_only`` qualifier.
* samplers: ``sampler:ADDRESSING,FILTER[,normalized]``, e.g. ``sampler:clamp_to_edge,linear``
  (addressing ``none``, ``clamp_to_edge``, ``clamp``, ``repeat``, ``mirrored_repeat``;
  filter ``nearest`` or ``linear``; coordinates unnormalised unless ``normalized``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tracekit.errors import RecordError
from tracekit.recorder.argvalue import ArgValue
from tracekit.trace import vocabulary

#: Channel types: OpenCL's names and short aliases -> (canonical name, NumPy dtype of a channel).
CHANNEL_TYPES = {
    "float": ("float", np.float32), "half_float": ("half_float", np.float16),
    "unorm_int8": ("unorm_int8", np.uint8), "snorm_int8": ("snorm_int8", np.int8),
    "unorm_int16": ("unorm_int16", np.uint16), "snorm_int16": ("snorm_int16", np.int16),
    "unsigned_int8": ("unsigned_int8", np.uint8), "signed_int8": ("signed_int8", np.int8),
    "unsigned_int16": ("unsigned_int16", np.uint16), "signed_int16": ("signed_int16", np.int16),
    "unsigned_int32": ("unsigned_int32", np.uint32), "signed_int32": ("signed_int32", np.int32),
}
_ALIASES = {"half": "half_float", "unorm8": "unorm_int8", "snorm8": "snorm_int8", "unorm16": "unorm_int16",
            "snorm16": "snorm_int16", "uint8": "unsigned_int8", "int8": "signed_int8",
            "uint16": "unsigned_int16", "int16": "signed_int16", "uint32": "unsigned_int32",
            "int32": "signed_int32"}
CHANNELS = {"r": 1, "a": 1, "intensity": 1, "luminance": 1, "rx": 1, "rg": 2, "ra": 2, "rgx": 2,
            "rgb": 3, "rgbx": 3, "rgba": 4, "bgra": 4, "argb": 4}
IMAGE_TYPES = {1: "image1d", 2: "image2d", 3: "image3d"}
MAX_IMAGE_BYTES = 1 << 30


def channel_type(name: str, where: str) -> tuple[str, np.dtype]:
    key = name.strip().lower().removeprefix("cl_")
    key = _ALIASES.get(key, key)
    if key not in CHANNEL_TYPES:
        raise RecordError(f"{where}: unknown image channel type '{name}'",
                          hint="use " + ", ".join(CHANNEL_TYPES) + " (or half, unorm8, uint16, int32 ...)")
    canon, dtype = CHANNEL_TYPES[key]
    return canon, np.dtype(dtype)


def channel_order(name: str, where: str) -> str:
    key = name.strip().lower().removeprefix("cl_")
    if key not in CHANNELS:
        raise RecordError(f"{where}: unknown image channel order '{name}'",
                          hint="use one of " + ", ".join(CHANNELS))
    return key


def parse_image(text: str, where: str, base_dir: Path, fill):
    """``img:ORDER:TYPE:W[,H[,D]][=INIT]`` -> ArgValue of kind ``image``.

    ``fill(init, dtype, n, where, base_dir)`` is the buffer filler of :mod:`.argspec`.
    """

    spec, _, init = text[len("img:"):].partition("=")
    parts = spec.split(":")
    if len(parts) != 3:
        raise RecordError(f"{where}: an image is img:ORDER:TYPE:W[,H[,D]][=INIT], e.g. img:rgba:float:64,64")
    order = channel_order(parts[0], where)
    ctype, dtype = channel_type(parts[1], where)
    try:
        dims = tuple(int(d) for d in parts[2].replace("x", ",").split(","))
    except ValueError:
        raise RecordError(f"{where}: image sizes '{parts[2]}' are not W[,H[,D]] "
                          "with positive integers") from None
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise RecordError(f"{where}: image sizes '{parts[2]}' are not W[,H[,D]] with positive integers")
    channels = CHANNELS[order]
    n = int(np.prod(dims)) * channels
    if n * dtype.itemsize > MAX_IMAGE_BYTES:
        raise RecordError(f"{where}: {n * dtype.itemsize} bytes is more than the 1 GiB an image may take")
    data = None
    if init:
        data = fill(init, dtype, n, where, base_dir).reshape(-1)
        if data.size != n:
            raise RecordError(f"{where}: the file holds {data.size} values, expected {n} "
                              f"({' x '.join(map(str, dims))} texels x {channels} channel(s))")
    size3 = list(dims) + [1] * (3 - len(dims))
    return ArgValue("image", f"{order}:{ctype}", n * dtype.itemsize, data, text,
                    image_dims=tuple(size3), image_type=IMAGE_TYPES[len(dims)])


def parse_sampler(text: str, where: str):
    """``sampler:ADDRESSING,FILTER[,normalized]`` -> ArgValue of kind ``sampler``."""

    words = [w.strip().lower() for w in text[len("sampler:"):].split(",") if w.strip()]
    if len(words) not in (2, 3) or (len(words) == 3 and words[2] not in ("normalized", "unnormalized")):
        raise RecordError(f"{where}: a sampler is sampler:ADDRESSING,FILTER[,normalized], "
                          "e.g. sampler:clamp_to_edge,nearest")
    addressing, filt = words[0], words[1]
    if addressing not in vocabulary.SAMPLER_ADDRESSING:
        raise RecordError(f"{where}: unknown addressing mode '{addressing}'",
                          hint="use one of " + ", ".join(vocabulary.SAMPLER_ADDRESSING))
    if filt not in vocabulary.SAMPLER_FILTERS:
        raise RecordError(f"{where}: unknown filter '{filt}'", hint="use nearest or linear")
    normalized = len(words) == 3 and words[2] == "normalized"
    return ArgValue("sampler", f"{addressing},{filt},{'normalized' if normalized else 'unnormalized'}", 0,
                    None, text)
