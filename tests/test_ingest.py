"""Ingest: column maps and presets, CSV dialects, launch facts, derived seq, out-of-core sorting."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import access_pattern, launches_for, sites_for

from tracekit import open_trace
from tracekit.errors import TraceFormatError, TracekitError
from tracekit.formats import sources as ingest_sources
from tracekit.formats.tabular import ingest, parse_map, read_csv_trace
from tracekit.trace.store import write_trace

FLAT = """kernel,wg,tid,pc,mem,kind,addr,bytes
vadd,0,0,0,global,load,0,4
vadd,0,0,1,global,store,4096,4
vadd,0,1,0,global,read,4,4
vadd,0,1,1,global,write,4100,4
vadd,1,0,0,global,ld,8,4
vadd,1,0,1,global,st,4104,4
"""


def _rows(trace) -> list[tuple]:
    a = trace.accesses
    cols = ["launch", "group", "item", "seq", "site", "address", "size"]
    data = [a[c].to_pylist() for c in cols] + [a[c].cast(pa.string()).to_pylist() for c in ("space", "op")]
    return list(zip(*data, strict=True))


def test_flat_preset_names_and_value_aliases(write_csv):
    t = read_csv_trace(write_csv("flat.csv", FLAT), global_size="4", local_size="2")
    assert _rows(t)[:2] == [(0, 0, 0, 0, 0, 0, 4, "global", "load"),
                            (0, 0, 0, 1, 1, 4096, 4, "global", "store")]
    assert t.accesses["op"].cast(pa.string()).to_pylist() == ["load", "store"] * 3
    assert t.launches.to_pylist()[0]["local_size"] == [2, 1, 1]


def test_explicit_map_wins_over_aliases(write_csv):
    text = "kernel,group,lane,pc,mem,kind,addr,offset,bytes\n" "k,0,1,0,global,load,0,64,4\n"
    t = read_csv_trace(write_csv("m.csv", text), mapping="item=lane,address=offset", kernel="k",
                       global_size="2", local_size="2")
    assert t.accesses["address"].to_pylist() == [64]
    assert t.accesses["item"].to_pylist() == [1]
    assert parse_map("address = addr , item=tid") == {"address": "addr", "item": "tid"}
    with pytest.raises(TraceFormatError, match="unknown column 'adress'"):
        parse_map("adress=addr")


def test_cuda_preset_translates_memory_words_and_sass_ops(write_csv):
    text = ("kernel_name,ctaid,tid,pc,mem_space,opcode,addr,width\n"
            "k,0,0,16,shared,STS,0,4\n"
            "k,0,0,32,local,STL.64,0,8\n"
            "k,0,0,48,global,LDG.E.128,256,16\n"
            "k,0,0,64,global,ATOMG.ADD,512,4\n")
    t = read_csv_trace(write_csv("sass.csv", text), preset="cuda", global_size="32", local_size="32")
    assert [(r[7], r[8]) for r in _rows(t)] == [("local", "store"), ("private", "store"),
                                                ("global", "load"), ("global", "atomic")]
    assert t.accesses["site"].to_pylist() == [16, 32, 48, 64]


def test_per_dimension_ids_are_linearised_dimension_zero_fastest(write_csv):
    text = "kernel,wg_x,wg_y,lid_x,lid_y,pc,mem,op,addr,bytes\nk,1,2,3,1,0,global,load,0,4\n"
    t = read_csv_trace(write_csv("xy.csv", text), global_size="16,12", local_size="4,2")
    # local 4x2: item = 3 + 4*1 = 7; groups 4x6: group = 1 + 4*2 = 9
    assert (t.accesses["item"][0].as_py(), t.accesses["group"][0].as_py()) == (7, 9)


def test_gzip_tsv_and_byte_order_mark_are_read(write_csv):
    tsv = FLAT.replace(",", "\t")
    a = read_csv_trace(write_csv("t.tsv.gz", gzip.compress(b"\xef\xbb\xbf" + tsv.encode())),
                       global_size="4", local_size="2")
    b = read_csv_trace(write_csv("plain.csv", FLAT), global_size="4", local_size="2")
    assert _rows(a) == _rows(b)


def test_sidecar_gives_launches_and_sites(write_csv, tmp_path):
    src = write_csv("vadd.csv.gz", gzip.compress(FLAT.encode()))
    (tmp_path / "vadd.launches.json").write_text(json.dumps({
        "launches": [{"kernel": "vadd", "global_size": [4], "local_size": 2,
                      "metadata": {"sampling": {"mode": "all"}}}],
        "sites": [{"kernel": "vadd", "site": 0, "file": "vadd.cl", "line": 3},
                  {"kernel": "vadd", "site": 1, "file": "vadd.cl", "line": 4}]}))
    result = ingest(src, tmp_path / "out.parquet")
    t = open_trace(result.path)
    assert t.launches.to_pylist()[0]["global_size"] == [4, 1, 1]
    assert t.launch_metadata(0) == {"sampling": {"mode": "all"}}
    assert t.sites["line"].to_pylist() == [3, 4]
    assert any("launches.json" in n for n in result.notes)


def test_sidecar_errors_name_the_key(write_csv, tmp_path):
    src = write_csv("k.csv", FLAT)
    side = tmp_path / "facts.json"
    side.write_text(json.dumps({"launches": [{"kernel": "vadd", "global_size": [4]}]}))
    with pytest.raises(TraceFormatError, match=r"launches\[0\] lacks the required key 'local_size'"):
        read_csv_trace(src, launches_file=side)
    side.write_text(json.dumps({"launches": [{"kernel": "vadd", "global_size": 4, "local_size": 2,
                                              "warp": 32}]}))
    with pytest.raises(TraceFormatError, match="unknown key.*warp"):
        read_csv_trace(src, launches_file=side)


def test_missing_seq_is_numbered_per_work_item_across_batches(write_csv, monkeypatch):
    monkeypatch.setattr(ingest_sources, "BLOCK_BYTES", 64)  # a handful of rows per batch
    lines = ["kernel,wg,tid,pc,mem,op,addr,bytes"]
    for rep in range(5):  # items 0..3 of group 0 interleaved, as a simulator issues them
        lines += [f"k,0,{item},{rep},global,load,{4 * item + 64 * rep},4" for item in range(4)]
    src = write_csv("interleaved.csv", "\n".join(lines) + "\n")
    t = read_csv_trace(src, global_size="4", local_size="4")
    a = t.accesses
    assert a["item"].to_pylist() == [i for i in range(4) for _ in range(5)]
    assert a["seq"].to_pylist() == list(range(5)) * 4
    assert a["site"].to_pylist() == list(range(5)) * 4


def test_unordered_source_is_sorted_out_of_core(tmp_path):
    acc = access_pattern("local_tile", global_size=512, local_size=64)
    rng = np.random.default_rng(7)
    shuffled = acc.take(pa.array(rng.permutation(acc.num_rows)))
    src = tmp_path / "shuffled.parquet"
    pq.write_table(shuffled, src, row_group_size=300)
    (tmp_path / "shuffled.launches.json").write_text(json.dumps({"launches": [
        {"kernel": "local_tile", "global_size": 512, "local_size": 64}]}))
    result = ingest(src, tmp_path / "sorted.tkt", sort_budget_rows=700)
    assert result.resorted
    out = open_trace(result.path).accesses
    assert out["address"].to_pylist() == acc["address"].to_pylist()
    assert out["seq"].to_pylist() == acc["seq"].to_pylist()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no scratch or temporary left


def test_trace_relayout_keeps_every_table(make_trace, tmp_path):
    src = make_trace("vector_add", layout="tkt")
    instr = pa.table({"kernel": ["vector_add"], "launch": pa.array([0], pa.int32()), "group": [0],
                      "item": pa.array([0], pa.int32()), "site": pa.array([0], pa.int32()),
                      "opclass": ["fp32_add"], "count": [1]})
    acc = open_trace(src).accesses
    write_trace(src, acc, instructions=instr, launches=launches_for(acc, global_size=256, local_size=64),
                sites=sites_for(acc))
    out = open_trace(ingest(src, tmp_path / "one.parquet").path)
    assert out.layout == "parquet"
    assert out.num_accesses == 768 and out.sites.num_rows == 3
    assert out.instructions["opclass"].cast(pa.string()).to_pylist() == ["fp32_add"]


def test_refuses_to_write_over_its_source(make_trace):
    src = make_trace("vector_add", layout="parquet")
    with pytest.raises(TracekitError, match="refusing to write the output over the input"):
        ingest(src, src)


def test_missing_kernel_needs_a_name(write_csv):
    src = write_csv("nok.csv", FLAT.replace("kernel,", "").replace("vadd,", ""))
    with pytest.raises(TraceFormatError, match="--kernel"):
        read_csv_trace(src)
    t = read_csv_trace(src, kernel="vadd", global_size="4", local_size="2")
    assert t.kernels == ["vadd"]


def test_launch_without_facts_is_reported_by_row(write_csv, tmp_path):
    text = "kernel,launch,wg,tid,pc,mem,op,addr,bytes\nk,0,0,0,0,global,load,0,4\nk,3,0,0,0,global,load,0,4\n"
    src = write_csv("two.csv", text)
    (tmp_path / "two.launches.json").write_text(json.dumps({"launches": [
        {"kernel": "k", "launch": 0, "global_size": 1, "local_size": 1}]}))
    with pytest.raises(TraceFormatError, match=r"row 2.*launch 3 is not in the launch facts"):
        read_csv_trace(src)


def test_hex_addresses_are_understood(write_csv):
    text = ("kernel,wg,tid,pc,mem,kind,addr,bytes\n"
            "k,0,0,0,global,load,0x7f0000001000,4\n"
            "k,0,1,0,global,load, 0xFFFFFFFFFFFFFFF0 ,4\n")
    t = read_csv_trace(write_csv("hex.csv", text), global_size="2", local_size="2")
    assert t.accesses["address"].to_pylist() == [0x7F0000001000, 0xFFFFFFFFFFFFFFF0]


def test_issue_tags_are_ingested_and_pair_lanes_by_iteration(write_csv):
    """An exported ``issue`` column is kept and drives request formation: lane 1 reads at iterations 1
    and 2, lane 0 at iterations 0 and 1, so iteration 1 is one request of both lanes (by count, lane 1's
    first read would pair with lane 0's first).  Without the column the count pairing is used; a
    negative tag is refused with its row."""
    from analyzers.replay.memory import replay_memory
    from tracekit.targets import load_target

    head = "kernel,wg,tid,pc,mem,kind,addr,bytes,issue\n"
    rows = ["k,0,0,3,local,load,0,4,0", "k,0,0,3,local,load,4,4,1",
            "k,0,1,3,local,load,8,4,1", "k,0,1,3,local,load,12,4,2"]
    t = read_csv_trace(write_csv("tags.csv", head + "\n".join(rows) + "\n"), global_size="2", local_size="2")
    assert t.accesses["issue"].to_pylist() == [0, 1, 1, 2]
    target = load_target("powervr-g6400")
    assert int(replay_memory(t, target).per_site["requests"].sum()) == 3
    plain = "\n".join(",".join(r.split(",")[:-1]) for r in rows) + "\n"
    untagged = read_csv_trace(write_csv("plain.csv", head.replace(",issue", "") + plain), global_size="2",
                              local_size="2")
    assert untagged.accesses["issue"].null_count == 4
    assert int(replay_memory(untagged, target).per_site["requests"].sum()) == 2
    bad = head + "k,0,0,3,local,load,0,4,-1\n"
    with pytest.raises(TraceFormatError, match="issue"):
        read_csv_trace(write_csv("bad.csv", bad), global_size="2", local_size="2")
