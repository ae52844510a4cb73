"""The optional image columns of trace format v1: old traces stay valid and read with them as
nulls, writers keep them (widening a file that began without them), validation checks them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from conftest import access_pattern, launches_for, sites_for

from tracekit.formats import open_trace
from tracekit.trace import schema
from tracekit.trace.store import TraceWriter, write_trace
from tracekit.trace.validate import validate

SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"


def image_rows(acc: pa.Table) -> pa.Table:
    """``acc`` as image reads: space ``image`` and texel columns from the address."""
    n = len(acc)
    df = acc.to_pandas()
    df["space"] = "image"
    t = pa.Table.from_pandas(df, preserve_index=False)
    idx = (np.asarray(acc["address"]) // 4).astype(np.int32)
    cols = {"texel_x": pa.array(idx % 16), "texel_y": pa.array(idx // 16),
            "texel_z": pa.array(np.zeros(n, np.int32)),
            "image_format": pa.array(["r:float"] * n), "sampler_addressing": pa.array(["clamp"] * n),
            "sampler_filter": pa.array(["nearest"] * n), "sampler_normalized": pa.array([False] * n)}
    for k, v in cols.items():
        t = t.append_column(k, v)
    return t


def test_a_trace_written_before_image_columns_existed_validates_and_reads_them_as_nulls():
    old = SAMPLES / "transpose_tiled.tkt"
    assert "texel_x" not in pq.read_schema(old / "accesses.parquet").names
    t = open_trace(old)
    assert validate(t).ok
    assert "texel_x" not in t.accesses.column_names  # whole-table reads keep the stored columns
    batch = next(t.iter_batches(columns=["address", "texel_x", "sampler_filter"], batch_size=100))
    assert batch.column("texel_x").null_count == len(batch) == 100
    want = schema.ACCESSES_WITH_IMAGES.field("sampler_filter").type
    assert batch.schema.field("sampler_filter").type == want


def test_writer_widens_a_file_that_began_without_image_columns(tmp_path):
    plain = access_pattern("vector_add", global_size=128, local_size=64)
    images = image_rows(access_pattern("vector_add", global_size=128, local_size=64, launch=1))
    out = tmp_path / "mixed.tkt"
    with TraceWriter(out) as w:
        w.write_accesses(plain)          # a launch without images first (as a host program may)
        w.write_accesses(images)
        w.write_accesses(plain.slice(0, 0))
    t = open_trace(out)
    acc = t.accesses
    assert acc.schema == schema.ACCESSES_WITH_IMAGES and len(acc) == 2 * len(plain)
    first, second = acc.slice(0, len(plain)), acc.slice(len(plain))
    assert first.column("texel_x").null_count == len(plain)
    assert second.column("texel_x").to_pylist() == images.column("texel_x").to_pylist()
    assert set(second.column("sampler_addressing").to_pylist()) == {"clamp"}


def _trace(tmp_path, acc: pa.Table):
    path = tmp_path / "img.tkt"
    base = access_pattern("vector_add", global_size=128, local_size=64)
    write_trace(path, acc, launches=launches_for(base, global_size=128, local_size=64), sites=sites_for(base))
    return open_trace(path)


def test_clean_image_columns_validate(tmp_path):
    t = _trace(tmp_path, image_rows(access_pattern("vector_add", global_size=128, local_size=64)))
    report = validate(t)
    assert report.ok, report.lines()


def test_bad_image_values_are_named_by_row_and_column(tmp_path):
    acc = image_rows(access_pattern("vector_add", global_size=128, local_size=64))
    df = acc.to_pandas()
    for c in ("kernel", "space", "op", "image_format", "sampler_addressing", "sampler_filter"):
        df[c] = df[c].astype(str)
    df.loc[5, "sampler_addressing"] = "wrap"
    df.loc[7, "image_format"] = "rgba:double"
    df.loc[9, "space"] = "global"          # texel coordinates on a global row
    df.loc[11, "texel_y"] = -1
    t = _trace(tmp_path, pa.Table.from_pandas(df, preserve_index=False))
    report = validate(t)
    found = {(p.column, p.row) for p in report.errors}
    assert found == {("sampler_addressing", 6), ("image_format", 8), ("texel_x", 10), ("texel_y", 12)}, \
        report.lines()
    text = "\n".join(report.lines())
    assert "unknown sampler addressing mode (expected none, clamp_to_edge" in text
    assert "texel coordinates on a row whose space is not image" in text
