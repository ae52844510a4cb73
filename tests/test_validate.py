"""Validation: every check fires on the row it should, counts span batches, clean traces pass."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import access_pattern, launches_for, sites_for

from tracekit.trace import schema
from tracekit.trace.reader import Trace
from tracekit.trace.store import conform, write_trace
from tracekit.trace.validate import validate


def _with(acc: pa.Table, column: str, rows: list[int], value, typ=None) -> pa.Table:
    """A copy of ``acc`` (as plain pandas-friendly columns) with ``column`` set to ``value`` at ``rows``."""
    df = acc.to_pandas()
    for c in ("kernel", "space", "op"):
        df[c] = df[c].astype(str)
    if typ is not None:
        df[column] = df[column].astype(typ)
    df.loc[rows, column] = value
    table = pa.Table.from_pandas(df.drop(columns=[column]), preserve_index=False)
    # pa.array on the NumPy values keeps NaN as NaN (from_pandas would make it null).
    return table.append_column(column, pa.array(df[column].to_numpy()))


def _write_raw(tmp_path, acc: pa.Table, name="raw.tkt", *, global_size=256) -> Trace:
    """Write accesses as stored (no casting), with canonical small tables, and open it."""
    good = access_pattern(global_size=global_size)
    path = tmp_path / name
    write_trace(path, good, launches=launches_for(good, global_size=global_size, local_size=64),
                sites=sites_for(good))
    pq.write_table(acc, path / "accesses.parquet")
    return Trace(path)


def _only_error(report):
    assert len(report.errors) == 1, report.lines()
    return report.errors[0]


def test_clean_trace_is_valid(make_trace):
    report = validate(make_trace("local_tile"))
    assert report.ok and not report.warnings, report.lines()
    assert report.counts["accesses"] == 1024


@pytest.mark.parametrize("column,value,typ,reason", [
    ("address", -8, "int64", "negative address"),
    ("address", 2.5, "float64", "non-integer address"),
    ("address", float("nan"), "float64", "NaN address"),
    ("size", 0, None, "size of 0 or less"),
    ("space", "shared", None, "unknown space (allowed: global, local, constant, private, image)"),
    ("op", "prefetch", None, "unknown op (allowed: load, store, atomic)"),
    ("item", 64, None, "item 64 is outside launch 0's local size (64 x 1 x 1 = 64 items)"),
    ("group", 4, None, "group 4 is outside launch 0's number of work-groups (4 work-groups)"),
])
def test_bad_value_is_reported_with_row_and_column(tmp_path, column, value, typ, reason):
    acc = _with(access_pattern(), column, [100, 200], value, typ)
    report = validate(_write_raw(tmp_path, acc))
    problem = report.errors[0]
    assert reason in problem.message, report.lines()
    # A changed group or item also breaks the canonical row order; that is reported too.
    assert [p.check for p in report.errors[1:]] == (["order"] if column in ("group", "item") else [])
    assert (problem.row, problem.column, problem.count) == (101, column, 2)


def test_row_numbers_run_across_batches(tmp_path):
    acc = _with(access_pattern(), "address", [700], -1, "int64")
    problem = _only_error(validate(_write_raw(tmp_path, acc), batch_size=256))
    assert problem.row == 701


def test_order_and_duplicates_are_errors(tmp_path):
    acc = access_pattern()
    swapped = acc.take(pa.array([1, 0] + list(range(2, acc.num_rows))))
    problem = _only_error(validate(_write_raw(tmp_path, swapped)))
    assert problem.check == "order" and problem.row == 2
    dup = acc.take(pa.array([0] + list(range(acc.num_rows))))
    assert _only_error(validate(_write_raw(tmp_path, dup, name="dup.tkt"))).row == 2


def test_missing_facts_are_warnings_not_errors(tmp_path):
    acc = access_pattern()
    path = tmp_path / "bare.parquet"
    write_trace(path, acc)
    report = validate(path)
    assert report.ok
    checks = {w.check for w in report.warnings}
    assert checks == {"no-launches", "sites"}


def test_launch_absent_from_launches_table_warns(tmp_path):
    acc = access_pattern()
    extra = access_pattern("strided", launch=1)
    path = tmp_path / "two.tkt"
    both = pa.concat_tables([acc, extra])
    write_trace(path, both, launches=launches_for(acc, global_size=256, local_size=64), sites=sites_for(both))
    report = validate(path)
    assert report.ok
    (w,) = report.warnings
    assert w.check == "unknown-launch" and w.row == acc.num_rows + 1 and w.count == extra.num_rows


def test_kernel_name_disagreeing_with_launches_is_an_error(tmp_path):
    acc = access_pattern(kernel="vadd")
    path = tmp_path / "k.tkt"
    launches = launches_for(access_pattern(kernel="other"), global_size=256, local_size=64)
    write_trace(path, acc, launches=launches, sites=sites_for(acc))
    assert "is kernel 'other' in the launches table but 'vadd'" in _only_error(validate(path)).message


def test_instruction_opclass_vocabulary(tmp_path):
    acc = access_pattern()
    names = ["fp32_fma", "math_native_exp", "int_div", "fp32_sqrt", "barrier"]
    instr = conform(pa.table({"kernel": ["vector_add"] * 5, "launch": pa.array([0] * 5, pa.int32()),
                              "group": [0] * 5, "item": pa.array(range(5), pa.int32()),
                              "site": pa.array([0] * 5, pa.int32()), "opclass": names, "count": [1] * 5}),
                    "instructions")
    path = tmp_path / "i.tkt"
    write_trace(path, acc, instructions=instr, launches=launches_for(acc, global_size=256, local_size=64),
                sites=sites_for(acc))
    problem = _only_error(validate(path))
    assert (problem.table, problem.row, problem.column) == ("instructions", 4, "opclass")
    assert "'fp32_sqrt'" in problem.message and "math_<builtin>" in problem.message


def test_empty_trace_is_an_error(tmp_path):
    path = tmp_path / "empty.tkt"
    write_trace(path, schema.empty("accesses"))
    assert _only_error(validate(path)).check == "empty"


def test_validation_of_a_large_trace_streams(tmp_path):
    """Three-quarters of a million rows in 64k-row batches: the same answer as in one batch."""
    acc = access_pattern("vector_add", global_size=1 << 18, local_size=64)
    bad_rows = np.array([5, 500_003, 786_000])
    addr = acc["address"].to_numpy().astype(np.int64)
    addr[bad_rows] = -4
    acc = acc.set_column(acc.schema.get_field_index("address"), "address", pa.array(addr))
    trace = _write_raw(tmp_path, acc, global_size=1 << 18)
    small = validate(trace, batch_size=1 << 16)
    whole = validate(trace, batch_size=1 << 22)
    assert [(p.row, p.count) for p in small.errors] == [(p.row, p.count) for p in whole.errors] == [(6, 3)]


def test_site_roles_outside_the_vocabulary_are_errors(tmp_path):
    acc = access_pattern()
    sites = sites_for(acc).to_pandas()
    sites["role"] = ["address"] + [None] * (len(sites) - 2) + ["stride"]
    path = tmp_path / "r.tkt"
    write_trace(path, acc, launches=launches_for(acc, global_size=256, local_size=64),
                sites=conform(pa.Table.from_pandas(sites, preserve_index=False), "sites"))
    problem = _only_error(validate(path))
    assert (problem.table, problem.row, problem.column) == ("sites", len(sites), "role")
    assert "'stride'" in problem.message and "address, indirect, loop" in problem.message


def test_negative_compiled_counts_are_errors(tmp_path):
    acc = access_pattern()
    sites = sites_for(acc).to_pandas()
    sites["compiled"] = pd.array([2] + [None] * (len(sites) - 2) + [-1], dtype="Int32")
    path = tmp_path / "c.tkt"
    write_trace(path, acc, launches=launches_for(acc, global_size=256, local_size=64),
                sites=conform(pa.Table.from_pandas(sites, preserve_index=False), "sites"))
    problem = _only_error(validate(path))
    assert (problem.table, problem.row, problem.column) == ("sites", len(sites), "compiled")
    assert "-1" in problem.message


def test_operands_naming_a_missing_site_are_errors(tmp_path):
    acc = access_pattern()
    sites = sites_for(acc).to_pandas()
    last = int(sites["site"].max())
    sites["operands"] = [[]] + [None] * (len(sites) - 2) + [[0, last + 7]]
    path = tmp_path / "o.tkt"
    write_trace(path, acc, launches=launches_for(acc, global_size=256, local_size=64),
                sites=conform(pa.Table.from_pandas(sites, preserve_index=False), "sites"))
    problem = _only_error(validate(path))
    assert (problem.table, problem.row, problem.column) == ("sites", len(sites), "operands")
    assert f"operand {last + 7}" in problem.message
