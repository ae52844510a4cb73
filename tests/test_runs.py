"""Instruction-count runs (``items``): expansion, reading, validation and the wave reduction."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from exec_model_helpers import make_target

from analyzers.geometry import LaunchGeometry
from analyzers.simd import run_segments, wave_issues, wave_layout
from tracekit.formats import open_trace
from tracekit.trace import schema, store
from tracekit.trace.run_frames import expand_frame
from tracekit.trace.runs import expand_batches, expand_runs, has_runs, run_lengths
from tracekit.trace.validate import validate


def _instr(rows, with_items=True) -> pa.Table:
    """rows: (group, item, site, count[, items])"""
    cols = {
        "kernel": pa.DictionaryArray.from_arrays(pa.array([0] * len(rows), pa.int32()), ["k"]),
        "launch": pa.array([0] * len(rows), pa.int32()),
        "group": pa.array([r[0] for r in rows], pa.int64()),
        "item": pa.array([r[1] for r in rows], pa.int32()),
        "site": pa.array([r[2] for r in rows], pa.int32()),
        "opclass": pa.DictionaryArray.from_arrays(pa.array([r[2] % 2 for r in rows], pa.int32()),
                                                  ["int_add", "fp32_fma"]),
        "count": pa.array([r[3] for r in rows], pa.int64()),
    }
    if with_items:
        cols["items"] = pa.array([r[4] if len(r) > 4 else None for r in rows], pa.int32())
    return pa.table(cols)


def _per_item(runs):
    """The per-item rows a list of run rows stands for, in canonical order."""
    out = []
    for g, i, s, c, n in runs:
        out += [(g, i + k, s, c) for k in range(n)]
    return sorted(out)


def _rows(t: pa.Table):
    return list(zip(*(t[c].to_pylist() for c in ("group", "item", "site", "count")), strict=True))


_ACCESS = pa.table({"kernel": pa.DictionaryArray.from_arrays(pa.array([0], pa.int32()), ["k"]),
                    "launch": pa.array([0], pa.int32()), "group": pa.array([0], pa.int64()),
                    "item": pa.array([0], pa.int32()), "site": pa.array([0], pa.int32()),
                    "seq": pa.array([0], pa.int64()), "space": ["global"], "op": ["load"],
                    "address": pa.array([0], pa.uint64()), "size": pa.array([4], pa.uint16())})
RUNS = [(0, 0, 0, 1, 5), (0, 0, 1, 3, 5), (0, 5, 0, 1, 1), (0, 5, 1, 9, 1), (0, 6, 0, 1, 2), (0, 6, 1, 3, 2),
        (1, 0, 0, 1, 8), (1, 0, 1, 3, 8)]


def test_run_lengths_treat_null_and_missing_as_one():
    assert run_lengths(_instr([(0, 0, 0, 1), (0, 1, 0, 1, 3)])).tolist() == [1, 3]
    assert run_lengths(_instr([(0, 0, 0, 1)], with_items=False)).tolist() == [1]
    assert not has_runs(_instr([(0, 0, 0, 1, 1)])) and has_runs(_instr(RUNS))


def test_expansion_gives_one_row_per_item_in_canonical_order():
    out = expand_runs(_instr(RUNS))
    assert _rows(out) == _per_item(RUNS)
    assert out["items"].null_count == out.num_rows
    assert out["opclass"].to_pylist()[:2] == ["int_add", "fp32_fma"]


def test_per_site_runs_that_interleave_are_re_sorted():
    runs = [(0, 0, 0, 2, 4), (0, 0, 1, 1, 2), (0, 2, 1, 5, 2)]  # site 1 splits where site 0 does not
    assert _rows(expand_runs(_instr(runs))) == _per_item(runs)


def test_frame_expansion_matches_the_table_one():
    """A what-if head keeps runs as a DataFrame; a change that moves items expands it.  Runs that
    start and end at different items per site (a site run over more items than the one before it,
    two opclasses of one site) come out in (group, item, site) order, ties in run order."""
    runs = RUNS + [(2, 0, 3, 1, 6), (2, 0, 4, 2, 2), (2, 2, 4, 7, 4), (2, 3, 1, 5, 3), (2, 3, 1, 6, 1)]
    runs = sorted(runs, key=lambda r: r[:3])
    t = _instr(runs)
    df = t.to_pandas()
    got = expand_frame(df)
    assert "items" not in got.columns
    assert list(zip(*(got[c].tolist() for c in ("group", "item", "site", "count")), strict=True)) == \
        _rows(expand_runs(t))
    assert list(got["opclass"]) == expand_runs(t)["opclass"].to_pylist()
    assert expand_frame(df.drop(columns="items")).equals(df.drop(columns="items"))   # no runs: as it is
    with pytest.raises(ValueError, match="order"):
        expand_frame(df.iloc[::-1])


@pytest.mark.parametrize("batch", [1, 2, 3, 5, 100])
def test_streamed_expansion_keeps_order_across_batch_boundaries(batch):
    t = _instr(RUNS)
    got = pa.Table.from_batches(list(expand_batches(t.to_batches(max_chunksize=batch))))
    assert _rows(got) == _per_item(RUNS)


def test_trace_reader_expands_unless_runs_are_asked_for(tmp_path):
    path = tmp_path / "t.tkt"
    launches = pa.table({"kernel": ["k"], "launch": pa.array([0], pa.int32()),
                         "global_size": [[16, 1, 1]], "local_size": [[8, 1, 1]], "local_mem_bytes": [0]})
    with store.TraceWriter(path) as w:
        w.write_accesses(_ACCESS)
        w.write_instructions(_instr(RUNS))
        w.set_launches(store.conform(launches, "launches"))
    tr = open_trace(path)
    assert _rows(tr.instructions) == _per_item(RUNS)
    raw = pa.Table.from_batches(list(tr.iter_batches("instructions", runs=True)))
    assert raw.num_rows == len(RUNS) and run_lengths(raw).sum() == 32
    some = pa.Table.from_batches(list(tr.iter_batches("instructions", columns=["item", "count"],
                                                      batch_size=3)))
    assert some.column_names == ["item", "count"] and some.num_rows == 32
    assert validate(path).errors == []


def test_validate_rejects_a_run_past_the_work_group_and_a_zero_run(tmp_path):
    launches = pa.table({"kernel": ["k"], "launch": pa.array([0], pa.int32()),
                         "global_size": [[16, 1, 1]], "local_size": [[8, 1, 1]], "local_mem_bytes": [0]})
    for rows, check in (([(0, 4, 0, 1, 5)], "item-range"), ([(0, 0, 0, 1, 0)], "value:items of 0 or less")):
        path = tmp_path / f"{check}.tkt"
        with store.TraceWriter(path) as w:
            w.write_accesses(_ACCESS)
            w.write_instructions(_instr(rows))
            w.set_launches(store.conform(launches, "launches"))
        errors = validate(path).errors
        assert [e.check for e in errors] == [check], errors
        assert errors[0].column in ("item", "items")


def _geo(n, local):
    return LaunchGeometry(kernel="k", launch=0, global_size=(n, 1, 1), local_size=(local, 1, 1))


def test_runs_are_cut_where_they_cross_a_wave():
    lay = wave_layout(_geo(64, 64), make_target(width=16))
    row, wave, lanes = run_segments(np.array([0, 0]), np.array([0, 10]), np.array([10, 30]), lay)
    assert row.tolist() == [0, 1, 1, 1]
    assert wave.tolist() == [0, 0, 1, 2]
    assert lanes.tolist() == [10, 6, 16, 8]


@pytest.mark.parametrize("width,local", [(16, 8), (8, 8), (4, 8), (32, 64)])
def test_wave_issues_from_runs_equal_those_from_expanded_rows(width, local):
    rng = np.random.default_rng(width + local)
    rows = []
    for g in range(3):
        i = 0
        while i < local:  # whole-item runs of random length, with two sites each
            n = int(rng.integers(1, local - i + 1))
            c = int(rng.integers(1, 5))
            rows += [(g, i, 0, c, n), (g, i, 1, 2 * c + 1, n)]
            i += n
    t = _instr(rows)
    lay = wave_layout(_geo(3 * local, local), make_target(width=width))
    got = wave_issues(t, lay)
    want = wave_issues(expand_runs(t), lay)
    cols = ["wave", "site", "issues", "lane_executions"]
    got = got.sort_values(["wave", "site"]).reset_index(drop=True)
    want = want.sort_values(["wave", "site"]).reset_index(drop=True)
    assert got[cols].equals(want[cols])
    assert got["opclass"].astype(str).tolist() == want["opclass"].astype(str).tolist()


def test_schema_marks_items_optional():
    assert schema.INSTRUCTIONS.field("items").nullable
