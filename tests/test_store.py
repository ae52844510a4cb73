"""Trace v1 on disk: round trips in both layouts, atomic publishing, streaming reads, size budget."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest
from conftest import access_pattern, launches_for, sites_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracekit import open_trace
from tracekit.errors import TraceFormatError
from tracekit.trace import schema
from tracekit.trace.store import TraceWriter, conform, write_trace


@st.composite
def access_tables(draw):
    """Random but canonical accesses tables (sorted by launch, group, item, seq)."""
    n = draw(st.integers(1, 60))
    ints = lambda lo, hi: st.lists(st.integers(lo, hi), min_size=n, max_size=n)  # noqa: E731
    launch = sorted(draw(ints(0, 2)))
    group, item = draw(ints(0, 5)), draw(ints(0, 7))
    keys = sorted(zip(launch, group, item, range(n), strict=True))
    return conform(pa.table({
        "kernel": [f"k{lid}" for lid, *_ in keys],
        "launch": pa.array([k[0] for k in keys], pa.int32()),
        "group": pa.array([k[1] for k in keys], pa.int64()),
        "item": pa.array([k[2] for k in keys], pa.int32()),
        "site": pa.array(draw(ints(0, 40)), pa.int32()),
        "seq": pa.array([k[3] for k in keys], pa.int64()),
        "space": draw(st.lists(st.sampled_from(schema.SPACES), min_size=n, max_size=n)),
        "op": draw(st.lists(st.sampled_from(schema.OPS), min_size=n, max_size=n)),
        "address": pa.array(draw(ints(0, 2**64 - 1)), pa.uint64()),
        "size": pa.array(draw(ints(1, 65535)), pa.uint16()),
        "buffer": pa.array(draw(st.lists(st.one_of(st.none(), st.integers(0, 9)), min_size=n, max_size=n)),
                           pa.int32()),
    }), "accesses")


def _same(a: pa.Table, b: pa.Table) -> bool:
    """Equal values, column by column (dictionary columns compared as strings)."""
    def plain(t):
        return {c: t[c].cast(pa.string()).to_pylist() if pa.types.is_dictionary(t[c].type)
                else t[c].to_pylist() for c in t.column_names}
    return plain(a) == plain(b)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(acc=access_tables(), layout=st.sampled_from(["tkt", "parquet"]))
def test_round_trip_keeps_every_value(tmp_path_factory, acc, layout):
    path = tmp_path_factory.mktemp("rt") / f"t.{layout}"
    launches = launches_for(acc, global_size=64, local_size=8)
    write_trace(path, acc, launches=launches, sites=sites_for(acc), layout=layout)
    t = open_trace(path)
    assert t.accesses.schema.equals(schema.ACCESSES)
    assert _same(t.accesses, acc)
    assert _same(t.launches, launches)
    assert t.sites.num_rows == sites_for(acc).num_rows
    streamed = pa.Table.from_batches(list(t.iter_batches(batch_size=7)))
    assert _same(streamed, acc)


@pytest.mark.parametrize("layout", ["tkt", "parquet"])
def test_small_tables_and_metadata_survive_both_layouts(make_trace, layout):
    path = make_trace("local_tile", layout=layout)
    t = open_trace(path)
    assert t.layout == layout
    assert t.launches.num_rows == 1
    assert t.launch_metadata(0) == {"layout": {"alignment": 4096}}
    assert t.sites["line"].to_pylist() == [10, 11, 12, 13]
    assert t.num_accesses == 1024


def test_failed_write_leaves_previous_trace_intact(make_trace, tmp_path):
    path = make_trace("vector_add", name="keep")
    before = sorted(p.name for p in path.iterdir())
    with pytest.raises(RuntimeError):
        with TraceWriter(path) as w:
            w.write_accesses(access_pattern("strided"))
            raise RuntimeError("killed half-way")
    assert sorted(p.name for p in path.iterdir()) == before
    assert open_trace(path).num_accesses == 768
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_successful_write_replaces_destination(make_trace):
    path = make_trace("vector_add", name="swap")
    write_trace(path, access_pattern("strided"))
    t = open_trace(path)
    assert t.num_accesses == 512
    assert set(t.accesses["kernel"].cast(pa.string()).to_pylist()) == {"strided"}


def test_conform_names_the_column_it_cannot_cast():
    bad = pa.table({c: access_pattern()[c] for c in schema.ACCESS_REQUIRED})
    bad = bad.set_column(bad.schema.get_field_index("address"), "address", pa.array(["x"] * bad.num_rows))
    with pytest.raises(TraceFormatError, match="column 'address'"):
        conform(bad, "accesses")


def test_iter_batches_streams_in_stored_order_with_canonical_types(make_trace):
    t = open_trace(make_trace("vector_add", global_size=1024))
    batches = list(t.iter_batches(batch_size=1000, columns=["group", "address"]))
    assert [b.num_rows for b in batches] == [1000, 1000, 1000, 72]
    assert batches[0].schema.field("address").type == pa.uint64()
    groups = np.concatenate([b["group"].to_numpy() for b in batches])
    assert (np.diff(groups) >= 0).all()


def test_raw_batches_keep_stored_types(tmp_path):
    acc = access_pattern().to_pandas()
    acc["address"] = acc["address"].astype(float)
    path = tmp_path / "floaty.parquet"
    pa.parquet.write_table(pa.Table.from_pandas(acc, preserve_index=False), path)
    t = open_trace(path)
    raw = next(t.iter_batches(cast=False))
    assert raw.schema.field("address").type == pa.float64()
    assert next(t.iter_batches()).schema.field("address").type == pa.uint64()


@pytest.mark.parametrize("pattern", ["vector_add", "strided", "local_tile"])
def test_sample_patterns_fit_the_four_bytes_per_access_budget(make_trace, pattern):
    path = make_trace(pattern, global_size=1 << 16, local_size=64)
    on_disk = sum(p.stat().st_size for p in path.iterdir())
    assert on_disk / open_trace(path).num_accesses <= 4.0


def test_manifest_records_rows(make_trace):
    path = make_trace("strided")
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["version"] == schema.FORMAT_VERSION
    assert manifest["rows"]["accesses"] == 512


@pytest.mark.parametrize("first,second", [("parquet", "tkt"), ("tkt", "parquet")])
def test_a_layout_can_replace_the_other_at_the_same_path(tmp_path, first, second):
    path = tmp_path / "either"
    write_trace(path, access_pattern("vector_add"), layout=first)
    write_trace(path, access_pattern("strided"), layout=second)
    t = open_trace(path)
    assert (t.layout, t.num_accesses) == (second, 512)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["either"]


def test_launch_ids_come_from_row_group_statistics_and_mixed_groups_are_read(tmp_path, monkeypatch):
    """Row groups of one launch are answered by their statistics; a row group holding two
    launches is decoded; the answer matches a full scan either way."""
    path = tmp_path / "three.tkt"
    a, b, c = (access_pattern("vector_add", global_size=128, launch=i) for i in (0, 1, 2))
    with TraceWriter(path) as w:
        w.write_accesses(a)                                 # row group of launch 0 only
        w.write_accesses(pa.concat_tables([b, c]))          # one row group with launches 1 and 2
        w.set_launches(conform(pa.concat_tables([launches_for(t, global_size=128, local_size=64)
                                                 for t in (a, b, c)]), "launches"))
    t = open_trace(path)
    decoded = []
    real = type(t._pf).read_row_group
    monkeypatch.setattr(type(t._pf), "read_row_group",
                        lambda self, i, **kw: decoded.append(i) or real(self, i, **kw))
    assert t.launch_ids("accesses") == {0, 1, 2}
    assert decoded == [1]
    columns = [x["launch"].to_numpy() for x in t.iter_batches(columns=["launch"])]
    assert set(np.unique(np.concatenate(columns)).tolist()) == {0, 1, 2}
