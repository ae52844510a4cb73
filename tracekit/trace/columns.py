"""Vectorised checks that turn one column of a batch into a canonical integer or vocabulary column.

Ingest (which raises on the first problem) and validation (which counts every
problem) share these checks, so both describe a bad value the same way: the
position of the first offending row inside the batch, the value as written, and
what was expected.  Nothing here loops over rows in Python; low-cardinality
string columns are checked through their dictionary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tracekit.trace.arrow_numpy import from_numpy, scalar, strings, to_numpy

#: Whole numbers as decimal or 0x-prefixed hexadecimal (simulators often print addresses in hex).
_INT_RE = r"^\s*([+-]?[0-9]+|0[xX][0-9a-fA-F]+)\s*$"
_FLOAT_RE = r"^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$"
_NAN_WORDS = ("nan", "-nan", "+nan", "na", "n/a", "null", "none")


@dataclass(frozen=True)
class Bad:
    """The first bad value of a column inside one batch, and how many there are."""

    index: int  # 0-based position in the batch
    value: str
    reason: str  # what is wrong, e.g. "negative address"
    count: int = 1


def first_true(mask: pa.Array | pa.ChunkedArray) -> int | None:
    """Index of the first true entry (nulls count as false), or None."""
    arr = to_numpy(mask)
    if arr.dtype == object:
        arr = np.asarray([bool(x) for x in arr])
    idx = np.flatnonzero(arr)
    return int(idx[0]) if len(idx) else None


def _bad_where(mask: pa.Array, values: pa.Array, reason: str) -> Bad | None:
    mask = pc.fill_null(mask, scalar(False, pa.bool_()))
    n = pc.sum(mask).as_py() or 0
    if not n:
        return None
    i = first_true(mask)
    return Bad(i, _show(values[i].as_py()), reason, n)


def _show(v) -> str:
    if isinstance(v, str):
        return repr(v)
    return str(v)


def _range_of(t: pa.DataType) -> tuple[int, int]:
    if pa.types.is_unsigned_integer(t):
        return 0, 2 ** t.bit_width - 1
    return -(2 ** (t.bit_width - 1)), 2 ** (t.bit_width - 1) - 1


def check_nulls(arr: pa.Array) -> Bad | None:
    """Empty cells (nulls) in a column that must always have a value."""
    if not arr.null_count:
        return None
    mask = pc.is_null(arr)
    i = first_true(mask)
    return Bad(i, "''", "empty value", arr.null_count)


def to_integer(arr: pa.Array, target: pa.DataType, *, what: str,
               minimum: int | None = None) -> tuple[pa.Array | None, Bad | None]:
    """Cast ``arr`` (string, float or integer) to the integer type ``target``.

    Returns ``(array, None)`` or ``(None, Bad)`` describing the first value that is
    empty, NaN, not a number, not whole, below ``minimum`` (defaults to the type's
    range, e.g. 0 for addresses) or too large.  ``what`` names the quantity in the
    reason ("address", "size", ...).
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
    bad = check_nulls(arr)
    if bad:
        return None, Bad(bad.index, bad.value, f"empty {what}", bad.count)
    lo, hi = _range_of(target)
    if minimum is not None:
        lo = max(lo, minimum)
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return _string_to_integer(arr, target, what, lo, hi)
    if pa.types.is_floating(t):
        bad = (_bad_where(pc.is_nan(arr), arr, f"NaN {what}")
               or _bad_where(pc.is_inf(arr), arr, f"infinite {what}")
               or _bad_where(pc.not_equal(arr, pc.floor(arr)), arr, f"non-integer {what}"))
        if bad:
            return None, bad
    elif not pa.types.is_integer(t) and not pa.types.is_boolean(t):
        return None, Bad(0, str(t), f"{what} column has type {t}, expected integers")
    bad = _range_bad(arr, what, lo, hi)
    if bad:
        return None, bad
    return arr.cast(target, safe=False), None


def _range_bad(arr: pa.Array, what: str, lo: int, hi: int) -> Bad | None:
    if not len(arr):
        return None
    mm = pc.min_max(arr)
    mn, mx = mm["min"].as_py(), mm["max"].as_py()
    if mn is not None and mn < lo:
        mask = to_numpy(arr) < lo
        reason = {0: f"negative {what}", 1: f"{what} of 0 or less (must be at least 1)"}.get(
            lo, f"{what} below {lo}")
        return _bad_where(from_numpy(mask), arr, reason)
    if mx is not None and mx > hi:
        mask = to_numpy(arr) > hi
        return _bad_where(from_numpy(mask), arr, f"{what} too large (largest allowed {hi})")
    return None


def _string_to_integer(arr: pa.Array, target: pa.DataType, what: str, lo: int, hi: int):
    try:  # fast path: clean decimal text parses in one pass
        ints = pc.cast(arr, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        ints = None
    if ints is not None:
        bad = _range_bad(ints, what, lo, hi)
        return (None, bad) if bad else (ints.cast(target, safe=False), None)
    trimmed = pc.utf8_trim_whitespace(arr)
    is_int = pc.match_substring_regex(trimmed, _INT_RE)
    if not pc.all(is_int).as_py():
        not_int = pc.invert(is_int)
        i = first_true(not_int)
        value = trimmed[i].as_py()
        if value == "":
            reason = f"empty {what}"
        elif value.lower() in _NAN_WORDS:
            reason = f"NaN {what}"
        elif pc.match_substring_regex(strings([value]), _FLOAT_RE)[0].as_py():
            reason = f"non-integer {what}" if float(value) >= 0 or lo < 0 else f"negative {what}"
        else:
            reason = f"{what} is not a number"
        return None, Bad(i, repr(value), reason, len(arr) - (pc.sum(is_int).as_py() or 0))
    neg = pc.starts_with(trimmed, "-")
    if lo >= 0 and pc.any(neg).as_py():
        # "-0" is harmless; anything else below zero is not.
        nonzero = pc.and_(neg, pc.invert(pc.match_substring_regex(trimmed, r"^-0+$")))
        bad = _bad_where(nonzero, trimmed, f"negative {what}")
        if bad:
            return None, bad
        trimmed = pc.replace_substring_regex(trimmed, r"^-", "")
    wide = pa.uint64() if lo >= 0 else pa.int64()
    try:
        ints = pc.cast(trimmed, wide)
    except pa.ArrowInvalid:
        return None, _overflow_bad(trimmed, what, hi)
    bad = _range_bad(ints, what, lo, hi)
    if bad:
        return None, bad
    return ints.cast(target, safe=False), None


def _overflow_bad(trimmed: pa.Array, what: str, hi: int) -> Bad:
    lengths = pc.utf8_length(pc.replace_substring_regex(trimmed, r"^[+-]?0*", ""))
    mask = pc.greater(lengths, scalar(len(str(hi)) - 1, lengths.type))
    i = first_true(mask) or 0
    return Bad(i, repr(trimmed[i].as_py()), f"{what} too large (largest allowed {hi})")


def as_text(arr: pa.Array | pa.ChunkedArray, what: str) -> tuple[pa.Array | None, Bad | None]:
    """``arr`` as a string (or dictionary-of-string) array, or why it cannot be text.

    Numbers and booleans become their decimal text; lists, bytes that are not UTF-8
    and other types that have no text form are reported.
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type.value_type if pa.types.is_dictionary(arr.type) else arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return arr, None
    try:
        return arr.cast(pa.string()), None
    except pa.ArrowException:
        return None, Bad(0, str(arr.type), f"{what} column has type {arr.type}, expected text", len(arr))


def normalise_vocabulary(arr: pa.Array, allowed: Iterable[str], *, what: str,
                         aliases: dict[str, str] | None = None,
                         canonicalise: Callable[[str], str] | None = None
                         ) -> tuple[pa.Array | None, Bad | None]:
    """Map a string column onto a fixed vocabulary through its dictionary.

    Each distinct value is trimmed and lower-cased (or passed to
    ``canonicalise``), then looked up in ``aliases``; the result must be in
    ``allowed``.  Returns a dictionary array of canonical strings, or the first
    value outside the vocabulary.
    """
    arr, bad = as_text(arr, what)
    if bad:
        return None, bad
    bad = check_nulls(arr)
    if bad:
        return None, Bad(bad.index, bad.value, f"empty {what}", bad.count)
    if not pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_encode()
    allowed = tuple(allowed)
    allowed_set = set(allowed)
    aliases = aliases or {}
    canon = canonicalise or (lambda s: s.strip().lower())
    mapped, bad_codes = [], []
    for code, raw in enumerate(arr.dictionary.to_pylist()):
        key = canon(str(raw))
        value = aliases.get(key, key)
        mapped.append(value if value in allowed_set else None)
        if value not in allowed_set:
            bad_codes.append(code)
    if bad_codes:
        mask = pc.is_in(arr.indices, value_set=from_numpy(bad_codes, arr.indices.type))
        i = first_true(mask)
        if i is not None:
            n = pc.sum(mask).as_py()
            return None, Bad(i, repr(arr[i].as_py()),
                             f"unknown {what} (allowed: {', '.join(allowed)})", n)
        # Unknown values that only the dictionary holds, used by no row: harmless, dropped.
    uniq = sorted({m for m in mapped if m is not None})
    remap = np.array([uniq.index(m) if m is not None else 0 for m in mapped], dtype=np.int32)
    indices = to_numpy(arr.indices)  # no nulls (checked above); none at all when remap is empty
    indices = remap[indices] if len(remap) else indices
    return pa.DictionaryArray.from_arrays(from_numpy(indices, pa.int32()), strings(uniq)), None


def first_unordered(keys: list[np.ndarray], previous: tuple | None = None, *,
                    strict: bool = True) -> int | None:
    """Index of the first row whose key tuple is not above the row before it.

    ``keys`` are equal-length arrays compared lexicographically (first array most
    significant); ``previous`` is the last key of the batch before, so order is
    checked across batch boundaries too.  ``strict`` also rejects equal keys
    (duplicates).
    """
    n = len(keys[0])
    if n == 0:
        return None
    if previous is not None:
        keys = [np.concatenate([np.asarray([p], dtype=k.dtype), k])
                for p, k in zip(previous, keys, strict=True)]
    greater = np.zeros(len(keys[0]) - 1, dtype=bool)
    equal = np.ones(len(keys[0]) - 1, dtype=bool)
    for k in keys:
        a, b = k[:-1], k[1:]
        greater |= equal & (b > a)
        equal &= b == a
    ok = greater if strict else (greater | equal)
    bad = np.flatnonzero(~ok)
    if not len(bad):
        return None
    return int(bad[0]) + (0 if previous is not None else 1)
