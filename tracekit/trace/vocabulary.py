"""The fixed words of trace format v1: spaces, operations, site roles, instruction classes, image formats.

Kept apart from :mod:`tracekit.trace.schema` (the Arrow schemas) so that code
which only checks a name, such as the target-file loader, does not load pyarrow.
"""

from __future__ import annotations

import re

#: Memory spaces of OpenCL (``image`` covers read_image*/write_image* accesses).
SPACES = ("global", "local", "constant", "private", "image")
#: Kinds of memory operation.
OPS = ("load", "store", "atomic")
#: What a site is for, where the recorder knows (``sites.role``; null: the kernel's work).
ROLES = ("address", "indirect", "loop", "batched")

#: Addressing modes and filters of an OpenCL sampler, as written in ``sampler_addressing``
#: and ``sampler_filter`` (``none`` is also what a read without a sampler uses).
SAMPLER_ADDRESSING = ("none", "clamp_to_edge", "clamp", "repeat", "mirrored_repeat")
SAMPLER_FILTERS = ("nearest", "linear")
#: Channel orders and channel types of an image, written ``ORDER:TYPE`` in ``image_format``
#: (OpenCL's names, lower case, without the ``CL_`` prefix).
CHANNEL_ORDERS = ("r", "a", "rg", "ra", "rgb", "rgba", "bgra", "argb", "intensity", "luminance",
                  "rx", "rgx", "rgbx")
CHANNEL_TYPES = ("snorm_int8", "snorm_int16", "unorm_int8", "unorm_int16", "signed_int8",
                 "signed_int16", "signed_int32", "unsigned_int8", "unsigned_int16", "unsigned_int32",
                 "half_float", "float")

_FLOAT_OPS = ("add", "mul", "fma", "div")
#: Fixed instruction-class vocabulary (see docs/trace-format.md for what maps where).
#: Special functions are written ``math_<builtin>``, e.g. ``math_sin`` or
#: ``math_native_exp``, and are accepted by :func:`is_opclass`.
OPCLASSES = tuple(
    [f"{p}_{o}" for p in ("fp16", "fp32", "fp64") for o in _FLOAT_OPS]
    + ["int_add", "int_mul", "int_div", "int64_add", "int64_mul", "int64_div"]
    + ["bitwise", "convert", "compare", "branch", "barrier"]
    + ["load", "store", "atomic", "other"]
)
_MATH_RE = re.compile(r"^math_[a-z][a-z0-9_]*$")
_OPCLASS_SET = frozenset(OPCLASSES)


def is_opclass(name: str) -> bool:
    """True for a member of :data:`OPCLASSES` or a ``math_<builtin>`` class."""
    return name in _OPCLASS_SET or bool(_MATH_RE.match(name))
