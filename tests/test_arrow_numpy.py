"""The pandas-free Arrow <-> NumPy conversions give what pyarrow's own conversions give."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from tracekit.trace.arrow_numpy import empty_table, from_numpy, scalar, strings, to_numpy, valid_mask

ARRAYS = {
    "int32": pa.array([3, -1, 7, 0], pa.int32()),
    "uint64": pa.array([2**64 - 1, 0, 5], pa.uint64()),
    "uint16": pa.array([1, 65535], pa.uint16()),
    "float32": pa.array([1.5, -0.25, float("nan")], pa.float32()),
    "float64 with nulls": pa.array([1.0, None, 3.0]),
    "int64 with nulls": pa.array([1, None, 3], pa.int64()),
    "bool": pa.array([True, False, True, True, False, False, True, False, True, True]),
    "bool with nulls": pa.array([True, None, False]),
    "string": pa.array(["global", "local", ""]),
    "string with nulls": pa.array(["a", None]),
    "dictionary": pa.array(["load", "store", "load"]).dictionary_encode(),
    "empty int": pa.array([], pa.int32()),
    "empty bool": pa.array([], pa.bool_()),
    "fixed size list (pyarrow's path)": pa.array([[1, 2, 3]], pa.list_(pa.int64(), 3)),
}


def _same(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.dtype == theirs.dtype
    assert ours.shape == theirs.shape
    for a, b in zip(ours.tolist(), theirs.tolist(), strict=True):
        if isinstance(b, float) and np.isnan(b):
            assert isinstance(a, float) and np.isnan(a)
        elif isinstance(b, (list, np.ndarray)):
            assert list(a) == list(b)
        else:
            assert a == b and type(a) is type(b)


@pytest.mark.parametrize("name", list(ARRAYS))
def test_to_numpy_matches_pyarrow(name):
    arr = ARRAYS[name]
    _same(to_numpy(arr), arr.to_numpy(zero_copy_only=False))


@pytest.mark.parametrize("name", ["int32", "bool", "bool with nulls", "float64 with nulls", "string"])
def test_slices_start_at_their_offset(name):
    arr = ARRAYS[name].slice(1)
    _same(to_numpy(arr), arr.to_numpy(zero_copy_only=False))
    assert valid_mask(arr).tolist() == arr.is_valid().to_pylist()


def test_bits_past_the_first_byte():
    values = np.random.default_rng(3).random(37) > 0.5
    arr = pa.array(values.tolist()).slice(11, 19)
    assert to_numpy(arr).tolist() == values[11:30].tolist()


def test_chunked_arrays_are_joined():
    chunked = pa.chunked_array([pa.array([1, 2], pa.int16()), pa.array([3], pa.int16())])
    _same(to_numpy(chunked), chunked.to_numpy())
    _same(to_numpy(pa.chunked_array([], pa.int16())), np.empty(0, np.int16))


def test_from_numpy_round_trips_and_converts():
    arr = from_numpy([1, 2, 300], pa.uint8())  # NumPy's astype: 300 wraps
    assert arr.type == pa.uint8() and arr.to_pylist() == [1, 2, 44]
    assert from_numpy(np.array([True, False, True])).to_pylist() == [True, False, True]
    assert from_numpy(np.arange(3.0)).type == pa.float64()
    with pytest.raises(TypeError, match="not string"):
        from_numpy(["a"], pa.string())


def test_strings_scalar_and_empty_table():
    assert strings(["a", "\u00e9t\u00e9", ""]).to_pylist() == ["a", "\u00e9t\u00e9", ""]
    assert strings([]).to_pylist() == []
    assert scalar(7, pa.int32()).equals(pa.scalar(7, pa.int32()))
    assert scalar(False, pa.bool_()).equals(pa.scalar(False))
    assert scalar("image", pa.string()).equals(pa.scalar("image"))
    assert scalar(1.5, pa.float16()).as_py() == 1.5
    schema = pa.schema([("a", pa.int32()), ("b", pa.list_(pa.int64(), 3))])
    t = empty_table(schema)
    assert t.schema == schema and t.num_rows == 0


PROBE = """
import json, sys
import pyarrow as pa, pyarrow.compute as pc
from tracekit.trace.arrow_numpy import from_numpy, scalar, strings, to_numpy
a = from_numpy([5, 1, 3], pa.int32())
to_numpy(a); to_numpy(pc.greater(a, scalar(2, pa.int32()))); to_numpy(strings(["x"]).dictionary_encode())
to_numpy(pa.chunked_array([a, a])); a.fill_null(scalar(0, pa.int32()))
print(json.dumps("pandas" in sys.modules))
"""


def test_conversions_leave_pandas_unloaded():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) is False
