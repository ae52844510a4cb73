"""The pandas-free Arrow <-> NumPy conversions give what pyarrow's own conversions give."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from tracekit.trace import schema
from tracekit.trace.arrow_numpy import (
    array,
    empty_table,
    filled,
    from_numpy,
    scalar,
    strings,
    table_from_rows,
    to_numpy,
    valid_mask,
    valid_values,
)

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


@pytest.mark.parametrize("arr", [
    pa.array([5, None, -2, 7], pa.int32()), pa.array([5, None, -2, 7], pa.int32()).slice(1),
    pa.array([2**63 + 5, None], pa.uint64()), pa.array([None, None], pa.int16()), pa.array([1.5, None]),
    pa.chunked_array([pa.array([1, None], pa.int8()), pa.array([3], pa.int8())]),
])
def test_valid_values_and_filled_match_the_compute_functions(arr):
    import pyarrow.compute as pc
    kept = valid_values(arr)
    want = pc.drop_null(arr)
    assert kept.dtype == np.dtype(arr.type.to_pandas_dtype()) and kept.tolist() == want.to_pylist()
    fill = scalar(1, arr.type)
    assert filled(arr, 1).tolist() == pc.fill_null(arr, fill).to_pylist()
    assert valid_values(pa.array(["a"])) is None


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


LAUNCH_ROWS = [
    {"kernel": "k", "launch": 0, "global_size": [64, 1, 1], "local_size": [8, 8, 1], "local_mem_bytes": 0,
     "build_options": None, "device": "Oclgrind 21.10", "source": "kernel void k() {}",
     "registers_per_item": None, "metadata": "{}"},
    {"kernel": "k#2", "launch": 1, "global_size": [4096, 2, 1], "local_size": [256, 1, 1],
     "local_mem_bytes": 1024, "build_options": "-DN=4", "registers_per_item": 32},  # device etc. missing
]
MACHINE_ROWS = [
    {"device": "skl", "target": "intel-hd530", "kernel": "k", "build_options": None, "compiler": "ocloc",
     "simd_width": 32, "grf_count": 128, "grf_used": 40, "slm_bytes": 0, "barrier_count": 0,
     "scratch_bytes": 0, "private_memory": False, "line_mapping": "source_line",
     "instructions": [{"pc": 0, "block": 0, "op": "mov", "exec_size": 16, "write_enable": True,
                       "weight": 0.5, "file": "k.cl", "line": 3, "column": None, "text": "mov (16) r1 r2"},
                      {"pc": 16, "block": 0, "op": "send", "bti": None, "weight": 1, "text": "send"}]},
    {"device": "icllp", "kernel": "k", "simd_width": 8, "grf_count": 128, "scratch_bytes": 64,
     "line_mapping": "basic_block", "instructions": []},
]


@pytest.mark.parametrize("table", ["launches", "sites", "machine_code"])
def test_table_from_rows_matches_from_pylist(table):
    rows = {"launches": LAUNCH_ROWS, "machine_code": MACHINE_ROWS,
            "sites": [{"kernel": "k", "site": 0, "opcode": "load", "file": None, "line": 3, "column": 7},
                      {"kernel": "k", "site": 1, "opcode": None, "role": "index", "line": None}]}[table]
    want = pa.Table.from_pylist(rows, schema=schema.TABLES[table])
    got = table_from_rows(rows, schema.TABLES[table])
    assert got.schema == want.schema
    assert got.equals(want) and got.to_pylist() == want.to_pylist()


@pytest.mark.parametrize(("values", "type_"), [
    ([1, None, 3], pa.int16()), ([None, None], pa.int32()), ([0.5, 2, None], pa.float32()),
    ([True, None, False], pa.bool_()), (["a", None, ""], pa.string()), ([], pa.int64()),
    (["x", "y", "x", None], pa.dictionary(pa.int32(), pa.string())),
    ([[1, 2], None, []], pa.list_(pa.int32())), ([{"a": 1}, None, {"b": "z"}],
                                                  pa.struct([("a", pa.int8()), ("b", pa.string())])),
])
def test_array_matches_pa_array(values, type_):
    got, want = array(values, type_), pa.array(values, type_)
    assert got.type == want.type and got.equals(want)


def _outcome(make):
    try:
        return make()
    except (pa.ArrowException, OverflowError, TypeError) as exc:
        return type(exc)


@pytest.mark.parametrize(("values", "type_"), [([300], pa.int8()), ([1.5], pa.int32()), (["1"], pa.int32()),
                                               ([2**70], pa.uint64()), ([1, "a"], pa.string())])
def test_values_arrow_must_check_get_its_answer(values, type_):
    """What NumPy would read differently (a wrap, a truncation, text for a number) is left to pyarrow."""
    got, want = _outcome(lambda: array(values, type_)), _outcome(lambda: pa.array(values, type_))
    assert got == want if isinstance(want, type) else got.equals(want)


PROBE = """
import json, sys
import pyarrow as pa, pyarrow.compute as pc
from tracekit.trace.arrow_numpy import from_numpy, scalar, strings, to_numpy
a = from_numpy([5, 1, 3], pa.int32())
to_numpy(a); to_numpy(pc.greater(a, scalar(2, pa.int32()))); to_numpy(strings(["x"]).dictionary_encode())
to_numpy(pa.chunked_array([a, a])); a.fill_null(scalar(0, pa.int32()))
from tracekit.trace import schema
from tracekit.trace.arrow_numpy import array, table_from_rows
table_from_rows([{"kernel": "k", "site": 0, "line": None}], schema.SITES)
array([[1, 2, 3]], pa.list_(pa.int64(), 3)); array([{"a": 1}], pa.struct([("a", pa.int8())]))
print(json.dumps("pandas" in sys.modules))
"""


def test_conversions_leave_pandas_unloaded():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) is False
