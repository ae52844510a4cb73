"""The --arg mini-language (no Oclgrind needed)."""

from __future__ import annotations

import numpy as np
import pytest

from tracekit.errors import RecordError
from tracekit.recorder.argspec import parse_arg
from tracekit.recorder.kernel import parse_dims
from tracekit.recorder.runner import check_sample


def test_buffers():
    z = parse_arg("float[8]", 0)
    assert (z.kind, z.type, z.nbytes, z.data) == ("buffer", "float", 32, None)
    c = parse_arg("int[4]=7", 0)
    assert c.data.tolist() == [7, 7, 7, 7] and c.data.dtype == np.int32
    r = parse_arg("int[4]=range:10:3", 0)
    assert r.data.tolist() == [10, 13, 16, 19]
    assert parse_arg("uchar[3]=range", 0).data.tolist() == [0, 1, 2]
    f3 = parse_arg("float3[2]", 0)
    assert f3.nbytes == 2 * 16  # a float3 occupies four floats in memory


def test_seeded_random_is_reproducible_and_bounded():
    a = parse_arg("float[100]=rand:4:2:3", 0).data
    b = parse_arg("float[100]=rand:4:2:3", 1).data
    assert (a == b).all() and a.min() >= 2 and a.max() < 3
    i = parse_arg("int[1000]=rand:1:5:9", 0).data
    assert set(np.unique(i)) <= {5, 6, 7, 8}
    assert not (parse_arg("float[100]=rand:5", 0).data == parse_arg("float[100]=rand:6", 0).data).all()


def test_npy_files(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(6, dtype=np.int16).reshape(2, 3))
    v = parse_arg("@x.npy", 0, tmp_path)
    assert (v.type, v.nbytes, v.data.tolist()) == ("short", 12, [0, 1, 2, 3, 4, 5])
    cast = parse_arg("float[6]=@x.npy", 0, tmp_path)
    assert cast.data.dtype == np.float32 and cast.data.tolist() == [0, 1, 2, 3, 4, 5]
    with pytest.raises(RecordError, match="holds 6 values, expected 8"):
        parse_arg("float[8]=@x.npy", 0, tmp_path)
    with pytest.raises(RecordError, match="cannot read the NumPy file"):
        parse_arg("@missing.npy", 0, tmp_path)


def test_scalars_and_local():
    s = parse_arg("uint:42", 2)
    assert (s.kind, s.nbytes, s.data.tobytes()) == ("scalar", 4, (42).to_bytes(4, "little"))
    v = parse_arg("float4:1,2,3,4", 0)
    assert v.nbytes == 16 and v.data.tolist() == [1, 2, 3, 4]
    assert parse_arg("float2:0.5", 0).data.tolist() == [0.5, 0.5]
    assert parse_arg("local:4096", 0).nbytes == 4096
    assert parse_arg("local:float[256]", 0).nbytes == 1024


@pytest.mark.parametrize("text,needle", [
    ("float[64", "not a buffer, scalar or local-memory argument"),
    ("quad[4]", "unknown element type 'quad'"),
    ("float4:1,2", "needs 4 values, got 2"),
    ("int:abc", "is not a int value"),
    ("int[]", "give the element count"),
    ("local:lots", "local:BYTES or local:TYPE[COUNT]"),
    ("uchar:300", "does not fit in uchar"),
])
def test_bad_args_name_the_argument(text, needle):
    with pytest.raises(RecordError) as e:
        parse_arg(text, 3)
    assert needle in str(e.value) and f"--arg 3 '{text}'" in str(e.value)


def test_dims_and_sampling_specs():
    assert parse_dims("64,32", "global") == (64, 32) and parse_dims("8x8", "local") == (8, 8)
    for bad in ("0", "1,2,3,4", "a"):
        with pytest.raises(RecordError):
            parse_dims(bad, "global")
    assert check_sample("random:4") == "random:4:0" and check_sample("every:2") == "every:2"
    with pytest.raises(RecordError, match="first:N, every:K"):
        check_sample("some")
