"""OpenCL math built-ins by what a faster form can do for them.

The recorder names a call to a built-in ``math_<name>`` whatever the built-in
costs, so the checklist has to know which names relaxed math or a ``native_``
version can speed up, and which are a plain ALU instruction or two on every GPU
(an absolute value is a source modifier, a minimum a compare-and-select): advice
about the latter would point at work that is already as cheap as it gets.
"""

from __future__ import annotations

from analyzers.whatif.changes import NATIVE_BUILTINS

#: Built-ins every target runs as a few plain ALU instructions (the Adreno guide's class A,
#: "ALU instructions only", §8.3 Table 8-1, plus the integer and common functions that
#: are ALU operations by definition): neither relaxed math nor a native_ version changes them.
ALU_BUILTINS = frozenset({
    "ceil", "copysign", "fabs", "fdim", "floor", "fmax", "fmin", "fract", "frexp", "ilogb", "mad", "maxmag",
    "minmag", "modf", "nan", "nextafter", "rint", "round", "trunc", "signbit",
    "abs", "abs_diff", "add_sat", "sub_sat", "hadd", "rhadd", "clamp", "clz", "max", "min", "mul24", "mad24",
    "popcount", "rotate", "upsample", "sign", "step", "select", "bitselect",
})


def builtin(opclass: str) -> str | None:
    """The built-in a ``math_<name>`` class calls (None for other classes and for the
    ``native_``/``half_`` forms, which are already the fast ones)."""
    if not opclass.startswith("math_") or opclass.startswith(("math_native_", "math_half_")):
        return None
    return opclass[len("math_"):]


def is_costly_math(opclass: str) -> bool:
    """A full-precision built-in that relaxed math can shorten (not a plain ALU built-in)."""
    name = builtin(opclass)
    return name is not None and name not in ALU_BUILTINS


def has_native(opclass: str) -> bool:
    """A full-precision built-in with a ``native_`` version in OpenCL C (cos, divide, exp, exp2,
    exp10, log, log2, log10, powr, recip, rsqrt, sin, sqrt, tan)."""
    return builtin(opclass) in NATIVE_BUILTINS
