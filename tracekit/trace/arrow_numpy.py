"""Arrow <-> NumPy conversions that leave pandas unloaded.

pyarrow reaches for pandas (when it is installed) on paths that have nothing to do
with DataFrames: ``Array.to_numpy`` goes through the Arrow-to-pandas converter,
which imports pandas to set itself up, and turning any Python value into Arrow
(``pa.array``, ``pa.scalar``, a Python number handed to a compute function) asks
pandas whether the value is one of its own.  Importing pandas costs a tenth of a
second or more, most of what ``tracekit validate`` and ``tracekit info`` would
otherwise spend.  The functions here build and read the Arrow buffers directly for
the plain types those commands meet (integers, floats, booleans, text, and
dictionaries of those); anything else goes through pyarrow's own conversion, with
the same result, at the price of the import.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa


def _dtype(t: pa.DataType) -> np.dtype | None:
    """NumPy dtype of a fixed-width integer or float type (None for other types)."""
    if pa.types.is_integer(t):
        return np.dtype(f"{'u' if pa.types.is_unsigned_integer(t) else ''}int{t.bit_width}")
    if pa.types.is_floating(t):
        return np.dtype(f"float{t.bit_width}")
    return None


def _bits(buf: pa.Buffer, offset: int, n: int) -> np.ndarray:
    """``n`` bits of an Arrow bitmap (least significant bit first) from bit ``offset``, as bools."""
    raw = np.frombuffer(buf, np.uint8, count=(offset + n + 7) // 8)
    return np.unpackbits(raw, bitorder="little")[offset:offset + n].astype(bool)


def valid_mask(arr: pa.Array) -> np.ndarray:
    """True where ``arr`` holds a value (not null)."""
    if not arr.null_count:
        return np.ones(len(arr), bool)
    if pa.types.is_null(arr.type):
        return np.zeros(len(arr), bool)
    return _bits(arr.buffers()[0], arr.offset, len(arr))


def to_numpy(arr: pa.Array | pa.ChunkedArray | np.ndarray) -> np.ndarray:
    """``arr`` as a NumPy array, as ``arr.to_numpy(zero_copy_only=False)`` gives it.

    Integers and floats without nulls are read-only views of the Arrow data; nulls
    make integers float64 with NaN (and booleans objects with None), as in pyarrow.
    Dictionaries come decoded, text as an object array of ``str``.
    """
    if isinstance(arr, np.ndarray):
        return arr
    if isinstance(arr, pa.ChunkedArray):
        if arr.num_chunks == 1:
            return to_numpy(arr.chunk(0))
        if arr.num_chunks == 0:
            return to_numpy(pa.nulls(0, arr.type))
        return np.concatenate([to_numpy(c) for c in arr.chunks])
    t, n = arr.type, len(arr)
    dtype = _dtype(t)
    if n == 0 and (dtype is not None or pa.types.is_boolean(t)):
        return np.empty(0, dtype if dtype is not None else bool)  # an empty array may have no buffers
    if dtype is not None:
        values = np.frombuffer(arr.buffers()[1], dtype, count=n, offset=arr.offset * dtype.itemsize)
        if not arr.null_count:
            return values
        out = values.astype(np.float64 if dtype.kind in "iu" else dtype)
        out[~valid_mask(arr)] = np.nan
        return out
    if pa.types.is_boolean(t):
        values = _bits(arr.buffers()[1], arr.offset, n)
        if not arr.null_count:
            return values
        out = values.astype(object)
        out[~valid_mask(arr)] = None
        return out
    if pa.types.is_dictionary(t) and not arr.null_count and _plain(t.value_type):
        return to_numpy(arr.dictionary)[to_numpy(arr.indices)]
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        out = np.empty(n, dtype=object)
        out[:] = arr.to_pylist()
        return out
    return arr.to_numpy(zero_copy_only=False)  # other types: pyarrow's own conversion


def _plain(t: pa.DataType) -> bool:
    return (_dtype(t) is not None or pa.types.is_boolean(t) or pa.types.is_string(t)
            or pa.types.is_large_string(t))


def from_numpy(values: np.ndarray | Sequence, type: pa.DataType | None = None) -> pa.Array:  # noqa: A002
    """An Arrow array of integers, floats or booleans holding ``values`` (no nulls).

    ``type`` defaults to the one matching the NumPy dtype; values are converted to it
    as NumPy's ``astype`` would.
    """
    values = np.asarray(values)
    if type is None:
        type = pa.from_numpy_dtype(values.dtype)  # noqa: A001
    if pa.types.is_boolean(type):
        bits = np.packbits(values.astype(bool), bitorder="little")
        return pa.Array.from_buffers(type, len(values), [None, pa.py_buffer(bits)])
    dtype = _dtype(type)
    if dtype is None:
        raise TypeError(f"from_numpy makes integer, float or boolean arrays, not {type}")
    data = np.ascontiguousarray(values.astype(dtype, copy=False))
    return pa.Array.from_buffers(type, len(data), [None, pa.py_buffer(data)])


def strings(values: Sequence[str]) -> pa.StringArray:
    """An Arrow string array holding ``values`` (no nulls)."""
    encoded = [str(v).encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def scalar(value: int | float | bool | str, type: pa.DataType) -> pa.Scalar:  # noqa: A002
    """``value`` as an Arrow scalar of ``type`` (what compute functions take for a constant)."""
    if pa.types.is_string(type):
        return strings([value])[0]
    if _dtype(type) is not None or pa.types.is_boolean(type):
        return from_numpy(np.asarray([value]), type)[0]
    return pa.scalar(value, type)  # other types: pyarrow's own conversion


def empty_table(schema: pa.Schema) -> pa.Table:
    """A table with ``schema`` and no rows."""
    return pa.Table.from_batches([], schema=schema)
