"""Arrow <-> NumPy conversions that leave pandas unloaded.

pyarrow reaches for pandas (when it is installed) on paths that have nothing to do
with DataFrames: ``Array.to_numpy`` goes through the Arrow-to-pandas converter,
which imports pandas to set itself up, and turning any Python value into Arrow
(``pa.array``, ``pa.scalar``, a Python number handed to a compute function) asks
pandas whether the value is one of its own.  Importing pandas costs a tenth of a
second or more, most of what ``tracekit validate`` and ``tracekit info`` would
otherwise spend, and a good part of what recording adds to a small program.  The
functions here read and build the Arrow buffers directly for the types the trace
format uses (integers, floats, booleans, text, dictionaries of text, and the lists,
fixed-size lists and structs of the launches and machine-code tables); anything
else goes through pyarrow's own conversion, with the same result, at the price of
the import.
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


def valid_values(arr: pa.Array | pa.ChunkedArray) -> np.ndarray | None:
    """The non-null values of an integer or float column, in its own dtype (None for other types).

    Unlike :func:`to_numpy`, nulls are dropped rather than turned into NaN, so integers
    stay exact: what a minimum or a range check needs.
    """
    if isinstance(arr, pa.ChunkedArray):
        parts = [valid_values(c) for c in arr.chunks]
        if any(p is None for p in parts):
            return None
        return np.concatenate(parts) if parts else np.empty(0, _dtype(arr.type) or np.int64)
    dtype = _dtype(arr.type)
    if dtype is None:
        return None
    if not len(arr):
        return np.empty(0, dtype)
    values = np.frombuffer(arr.buffers()[1], dtype, count=len(arr), offset=arr.offset * dtype.itemsize)
    return values[valid_mask(arr)] if arr.null_count else values


def filled(arr: pa.Array | pa.ChunkedArray, fill: int | float) -> np.ndarray:
    """A number column as NumPy with ``fill`` where it is null (``fill_null`` without the compute
    functions, which take tens of milliseconds to load)."""
    if isinstance(arr, pa.ChunkedArray):
        parts = [filled(c, fill) for c in arr.chunks]
        return np.concatenate(parts) if parts else to_numpy(pa.nulls(0, arr.type))
    dtype = _dtype(arr.type)
    if dtype is None:
        return to_numpy(arr.fill_null(scalar(fill, arr.type)))  # other types: pyarrow's own
    if not arr.null_count:
        return to_numpy(arr)
    out = np.frombuffer(arr.buffers()[1], dtype, count=len(arr), offset=arr.offset * dtype.itemsize).copy()
    out[~valid_mask(arr)] = fill
    return out


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


def _validity(valid: np.ndarray | None) -> pa.Buffer | None:
    return None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))


def _nulls(valid: np.ndarray | None, n: int) -> int:
    return 0 if valid is None else n - int(np.count_nonzero(valid))


def from_numpy(values: np.ndarray | Sequence, type: pa.DataType | None = None,  # noqa: A002
               valid: np.ndarray | None = None) -> pa.Array:
    """An Arrow array of integers, floats or booleans holding ``values``.

    ``type`` defaults to the one matching the NumPy dtype; values are converted to it
    as NumPy's ``astype`` would.  ``valid`` (booleans) marks the rows that hold a
    value; the others are null.
    """
    values = np.asarray(values)
    if type is None:
        type = pa.from_numpy_dtype(values.dtype)  # noqa: A001
    if pa.types.is_boolean(type):
        data = np.packbits(values.astype(bool), bitorder="little")
    elif _dtype(type) is not None:
        data = np.ascontiguousarray(values.astype(_dtype(type), copy=False))
    else:
        raise TypeError(f"from_numpy makes integer, float or boolean arrays, not {type}")
    return pa.Array.from_buffers(type, len(values), [_validity(valid), pa.py_buffer(data)],
                                 null_count=_nulls(valid, len(values)))


def strings(values: Sequence[str | None], valid: np.ndarray | None = None) -> pa.StringArray:
    """An Arrow string array holding ``values`` (None, or False in ``valid``, for a null)."""
    if valid is None and any(v is None for v in values):
        valid = np.fromiter((v is not None for v in values), bool, count=len(values))
    encoded = [b"" if v is None else str(v).encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [_validity(valid), pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))],
                                 null_count=_nulls(valid, len(values)))


def _fits(data: np.ndarray, t: pa.DataType) -> bool:
    """Whether NumPy's reading of the Python values holds exactly what Arrow stores as ``t``."""
    if pa.types.is_boolean(t):
        return data.dtype.kind == "b"
    if pa.types.is_floating(t):
        return data.dtype.kind in "iuf"
    if data.dtype.kind not in "iu":
        return False
    info = np.iinfo(_dtype(t))
    return int(data.min()) >= info.min and int(data.max()) <= info.max


def array(values: Sequence, type: pa.DataType) -> pa.Array:  # noqa: A002
    """Python values (None for a null) as an Arrow array of ``type``, as ``pa.array`` makes it.

    Numbers, booleans and text, and lists, fixed-size lists, structs and text
    dictionaries of those, are built here; values of other types, or values Arrow
    must check itself (a float for an integer column, a number out of range), go to
    ``pa.array``, which reports them in its own words.
    """
    n = len(values)
    if n == 0:
        return pa.nulls(0, type)
    valid = np.fromiter((v is not None for v in values), bool, count=n)
    mask = None if valid.all() else valid
    if pa.types.is_string(type):
        if all(isinstance(v, str) for v in values if v is not None):
            return strings(values, mask)
    elif _dtype(type) is not None or pa.types.is_boolean(type):
        fill = False if pa.types.is_boolean(type) else 0
        data = np.array([fill if v is None else v for v in values])
        if _fits(data, type):
            return from_numpy(data, type, mask)
    elif pa.types.is_dictionary(type) and pa.types.is_string(type.value_type):
        return array(values, type.value_type).dictionary_encode().cast(type)
    elif pa.types.is_fixed_size_list(type) or pa.types.is_list(type):
        return _list_array(values, type, mask)
    elif pa.types.is_struct(type):
        if all(isinstance(v, dict) for v in values if v is not None):
            children = [array([None if v is None else v.get(f.name) for v in values], f.type) for f in type]
            return pa.StructArray.from_arrays(children, fields=list(type), mask=_null_mask(mask))
    return pa.array(values, type)  # anything else: pyarrow's own conversion and checks


def _null_mask(valid: np.ndarray | None) -> pa.Array | None:
    return None if valid is None else from_numpy(~valid)


def _list_array(values: Sequence, type: pa.DataType, valid: np.ndarray | None) -> pa.Array:  # noqa: A002
    fixed = pa.types.is_fixed_size_list(type)
    if not all(v is None or (isinstance(v, (list, tuple, np.ndarray))
                             and (not fixed or len(v) == type.list_size)) for v in values):
        return pa.array(values, type)
    empty = [None] * type.list_size if fixed else []
    lists = [empty if v is None else v for v in values]
    child = array([x for v in lists for x in v], type.value_type)
    if fixed:
        return pa.FixedSizeListArray.from_arrays(child, type=type, mask=_null_mask(valid))
    offsets = np.zeros(len(lists) + 1, np.int32)
    np.cumsum([len(v) for v in lists], out=offsets[1:])
    return pa.ListArray.from_arrays(from_numpy(offsets), child, type=type, mask=_null_mask(valid))


def table_from_rows(rows: Sequence[dict], schema: pa.Schema) -> pa.Table:
    """A table of ``schema`` from one dict per row (a missing key is a null), as
    ``pa.Table.from_pylist`` makes it."""
    columns = [array([r.get(f.name) for r in rows], f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


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
