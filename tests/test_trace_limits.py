"""Limits on what a trace may declare (tracekit.trace.limits, docs/trace-format.md "Limits").

A small file can declare millions of launches or kernel names, or compressed data that
inflates to gigabytes.  Each is refused by every command with exit 2 and a message
naming the file, what it declares and the limit, before the time or memory is spent.
"""

from __future__ import annotations

import base64
import json
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import access_pattern, launches_for, sites_for

from tracekit.trace import limits
from tracekit.trace.store import META_PREFIX, conform, write_trace

COMMANDS = (("info",), ("info", "--json"), ("validate",), ("analyze", "-t", "adreno-640", "-f", "json"))


def _launches(n: int, names: int, path, layout: str = "parquet"):
    """A trace of ``n`` one-access launches, kernels named ``k0``..``k{names-1}`` in turn."""
    kernel = np.char.add("k", (np.arange(n) % names).astype(str))
    acc = conform(pa.table({
        "kernel": pa.array(kernel).dictionary_encode(), "launch": np.arange(n, dtype=np.int32),
        "group": np.zeros(n, np.int64), "item": np.zeros(n, np.int32), "site": np.zeros(n, np.int32),
        "seq": np.zeros(n, np.int64), "space": pa.array(np.full(n, "global")).dictionary_encode(),
        "op": pa.array(np.full(n, "load")).dictionary_encode(),
        "address": (0x10000 + 4 * np.arange(n)).astype(np.uint64), "size": np.full(n, 4, np.uint16),
        "buffer": np.zeros(n, np.int32)}), "accesses")
    dims = pa.array([[1, 1, 1]] * n, pa.list_(pa.int64(), 3))
    launches = conform(pa.table({"kernel": kernel, "launch": np.arange(n, dtype=np.int32),
                                 "global_size": dims, "local_size": dims,
                                 "local_mem_bytes": np.zeros(n, np.int64)}), "launches")
    return write_trace(path, acc, launches=launches, layout=layout)


def _output(command, tmp_path) -> list:
    return ["-o", tmp_path / "r.json"] if command[0] == "analyze" else []


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_more_kernel_names_than_the_limit_are_refused(run_cli, tmp_path, command):
    trace = _launches(limits.MAX_KERNEL_NAMES + 1, limits.MAX_KERNEL_NAMES + 1, tmp_path / "names.parquet")
    r = run_cli(command[0], trace, *command[1:], *_output(command, tmp_path))
    assert r.code == 2, r.text
    assert f"declares {limits.MAX_KERNEL_NAMES + 1:,} distinct kernel names" in r.text
    assert f"{limits.MAX_KERNEL_NAMES:,}" in r.text and "Traceback" not in r.text


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_more_launches_than_the_limit_are_refused(run_cli, tmp_path, monkeypatch, command):
    monkeypatch.setattr(limits, "MAX_LAUNCHES", 20)
    trace = _launches(21, 3, tmp_path / "many.tkt", layout="tkt")
    r = run_cli(command[0], trace, *command[1:], *_output(command, tmp_path))
    assert r.code == 2, r.text
    assert "declares 21 launches, more than the 20 a trace may hold" in r.text


def test_launches_only_the_accesses_start_count_too(run_cli, tmp_path, monkeypatch):
    """A launches table within the limit does not hide the launches the accesses start."""
    monkeypatch.setattr(limits, "MAX_LAUNCHES", 20)
    full = _launches(30, 3, tmp_path / "full.parquet")
    from tracekit.formats import open_trace
    t = open_trace(full)
    monkeypatch.setattr(limits, "MAX_LAUNCHES", 1000)
    short = write_trace(tmp_path / "short.parquet", t.accesses, launches=t.launches.slice(0, 5))
    monkeypatch.setattr(limits, "MAX_LAUNCHES", 20)
    r = run_cli("info", short)
    assert r.code == 2 and "more than the 20 a trace may hold" in r.text, r.text


def test_info_lists_many_launches_in_a_bounded_table(run_cli, tmp_path):
    """Thousands of launches: the text summary lists the first few hundred and says how many more;
    the JSON lists them all, each with its recorded work-groups counted."""
    from tracekit.cli.trace import LISTED_LAUNCHES
    n = LISTED_LAUNCHES + 1800
    trace = _launches(n, 40, tmp_path / "many.parquet")
    r = run_cli("info", trace)
    assert r.code == 0, r.text
    assert f"... and {n - LISTED_LAUNCHES:,} more launch(es)" in r.text
    assert "k39, ... (40 in all)" not in r.text  # 40 names fit the list
    r = run_cli("info", trace, "--json")
    rows = json.loads(r.out)["launches"]
    assert len(rows) == n and all(row["groups_recorded"] == 1 for row in rows)


def test_work_groups_are_counted_per_launch_across_batches(tmp_path):
    from tracekit.formats import open_trace
    from tracekit.trace.summary import summarize
    parts = [access_pattern("vector_add", global_size=64 * g, local_size=64, launch=k)
             for k, g in enumerate((3, 5, 2))]
    acc = pa.concat_tables(parts)
    path = write_trace(tmp_path / "t.parquet", acc, launches=launches_for(acc, global_size=64, local_size=64),
                       sites=sites_for(acc))
    s = summarize(open_trace(path), batch_size=100)
    assert [r["groups_recorded"] for r in s.launch_rows] == [3, 5, 2]


# -- compressed data that inflates -------------------------------------------------------------


def _sampled_with_footprint(tmp_path, buffer_size: int, bitmap: str):
    acc = access_pattern("vector_add", global_size=256, local_size=64)
    meta = {"layout": {"alignment": 4096},
            "sampling": {"mode": "first", "total_groups": 16, "groups_recorded": 4},
            "footprint": {"granule_bytes": 32, "encoding": "zlib+base64, little-endian bit order",
                          "buffers": [{"base": 0x10000, "size": buffer_size, "read_granules": 1,
                                       "written_granules": 0, "read": bitmap, "written": bitmap}]}}
    launches = launches_for(acc, global_size=1024, local_size=64, metadata=meta)
    return write_trace(tmp_path / "sampled.tkt", acc, launches=launches, sites=sites_for(acc))


def test_a_footprint_that_inflates_past_its_buffer_is_refused(run_cli, tmp_path):
    bomb = base64.b64encode(zlib.compress(b"\xff" * (64 << 20), 9)).decode()
    assert len(bomb) < 200_000  # 64 MiB of flags in a few dozen kilobytes
    trace = _sampled_with_footprint(tmp_path, 1 << 20, bomb)
    r = run_cli("analyze", trace, "-t", "adreno-640", "-f", "json", "-o", tmp_path / "r.json")
    assert r.code == 2, r.text
    assert "inflates past 4,160 bytes, where the buffer's 32,768 granules need 4,096" in r.text
    assert not (tmp_path / "r.json").exists()


def test_a_footprint_of_more_granules_than_the_limit_is_refused(run_cli, tmp_path):
    small = base64.b64encode(zlib.compress(b"\x01")).decode()
    trace = _sampled_with_footprint(tmp_path, 32 * (limits.MAX_FOOTPRINT_GRANULES + 1), small)
    r = run_cli("analyze", trace, "-t", "adreno-640", "-f", "json", "-o", tmp_path / "r.json")
    assert r.code == 2, r.text
    assert f"more than the {limits.MAX_FOOTPRINT_GRANULES:,} a launch's footprint may describe" in r.text


def test_a_column_that_declares_more_than_its_values_can_take_is_refused(run_cli, tmp_path, monkeypatch):
    """Launch metadata of 8 MiB that compresses to a few kilobytes: over the text limit, the
    file is refused from its footer, before the column is inflated."""
    acc = access_pattern("vector_add")
    note = {"layout": {"alignment": 4096}, "note": "x" * (8 << 20)}
    trace = write_trace(tmp_path / "big.tkt", acc, sites=sites_for(acc),
                        launches=launches_for(acc, global_size=256, local_size=64, metadata=note))
    assert (trace / "launches.parquet").stat().st_size < 100_000
    monkeypatch.setattr(limits, "MAX_TEXT_BYTES", 1 << 20)
    for command in COMMANDS[:3]:
        r = run_cli(*command[:1], trace, *command[1:])
        assert r.code == 2, r.text
        assert "column 'metadata'" in r.text and "refused before inflating it" in r.text


def test_launch_metadata_longer_than_the_limit_is_refused(run_cli, tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_METADATA_BYTES", 1000)
    acc = access_pattern("vector_add")
    note = {"layout": {"alignment": 4096}, "note": "x" * 2000}
    trace = write_trace(tmp_path / "long.parquet", acc,
                        launches=launches_for(acc, global_size=256, local_size=64, metadata=note))
    r = run_cli("info", trace)
    assert r.code == 2 and "more than the 1,000 a launch's metadata may take" in r.text, r.text


def test_a_compressed_table_in_the_file_footer_is_refused(run_cli, tmp_path):
    """The single-file layout keeps its small tables as Arrow IPC in the footer, uncompressed;
    a compressed body could inflate to anything and is refused without inflating it."""
    acc = access_pattern("vector_add")
    path = write_trace(tmp_path / "t.parquet", acc,
                       launches=launches_for(acc, global_size=256, local_size=64))
    pf = pq.ParquetFile(path)
    meta = dict(pf.metadata.metadata)
    launches = conform(pa.Table.from_pylist(launches_for(acc, global_size=256, local_size=64).to_pylist()),
                       "launches")
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, launches.schema, options=pa.ipc.IpcWriteOptions(compression="zstd")) as w:
        w.write_table(launches)
    meta[META_PREFIX + b"launches"] = base64.b64encode(sink.getvalue().to_pybytes())
    table = pf.read().replace_schema_metadata(meta)
    pq.write_table(table, tmp_path / "z.parquet")
    r = run_cli("info", tmp_path / "z.parquet")
    assert r.code == 2, r.text
    assert "'launches' table in the file metadata" in r.text and "compressed" in r.text
