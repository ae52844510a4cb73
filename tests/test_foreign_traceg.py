"""Accel-Sim .traceg -> trace v1: decoding, canonical order, metadata, and bad input."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import numpy as np
import pytest

from tracekit.errors import TraceFormatError
from tracekit.formats import convert, detect, detect_and_read, open_trace
from tracekit.formats.sass import opclass, space_of
from tracekit.formats.traceg import parse_instruction
from tracekit.formats.traceg_io import read_traceg
from tracekit.trace.validate import validate

DATA = Path(__file__).parent / "data" / "traceg"
SAMPLE = DATA / "kernel-1.traceg"
IN, OUT = 0x7F2A40000000, 0x7F2A40800000


@pytest.fixture(scope="module")
def trace():
    return read_traceg(DATA)


def test_sample_rows_and_lane_addresses(trace):
    a = trace.accesses.to_pandas()
    # 3 full warps and one 16-lane warp, 4 memory instructions each
    assert len(a) == (3 * 32 + 16) * 4 == 448
    assert a.groupby("group").size().to_dict() == {0: 256, 1: 192}
    g0 = a[a.group == 0].set_index(["item", "seq"])
    # base + stride: lane l of warp w loads IN + (w*32 + l) * 4
    assert g0.loc[(33, 0), "address"] == IN + 33 * 4 and g0.loc[(33, 0), "space"] == "global"
    # base + deltas (shared, offsets relative to the block's shared memory): ((l*2) % 48) * 4
    for lane in (0, 1, 23, 24, 31):
        assert g0.loc[(lane, 2), "address"] == ((lane * 2) % 48) * 4
        assert g0.loc[(lane, 2), "space"] == "local" and g0.loc[(lane, 2), "op"] == "load"
    # address list, reversed within the warp
    assert g0.loc[(0, 3), "address"] == OUT + 31 * 4 and g0.loc[(31, 3), "address"] == OUT
    g1 = a[a.group == 1]
    assert g1["item"].max() == 32 + 15  # the half warp's lanes 16..31 never appear
    assert set(a["size"]) == {4}


def test_canonical_order_and_seq(trace):
    a = trace.accesses.to_pandas()
    keys = a[["launch", "group", "item", "seq"]].to_numpy()
    assert (np.lexsort(keys[:, ::-1].T) == np.arange(len(keys))).all()
    assert a.groupby(["group", "item"])["seq"].apply(list).map(lambda s: s == [0, 1, 2, 3]).all()
    report = validate(trace)
    assert not report.errors, report.errors


def test_instruction_mix_follows_masks(trace):
    ins = trace.instructions.to_pandas()
    by_class = ins.groupby("opclass")["count"].sum()
    lanes = 3 * 32 + 16
    assert by_class["fp32_fma"] == 3 * 16 + 8  # even lanes of each warp
    assert by_class["fp32_mul"] == 3 * 16 + 8
    assert by_class["math_exp2"] == 4  # lane 0 of each warp
    assert by_class["barrier"] == lanes and by_class["branch"] == lanes
    assert (ins.groupby(["group", "item", "site"]).size() == 1).all()


def test_launch_and_sites(trace):
    launch = trace.launches.to_pylist()[0]
    assert launch["kernel"] == "_Z13shared_stridePKfPfi"
    assert launch["global_size"] == [128, 1, 1] and launch["local_size"] == [64, 1, 1]
    assert launch["local_mem_bytes"] == 4224 and launch["registers_per_item"] == 16
    assert launch["device"] == "NVIDIA sm_90"
    meta = json.loads(launch["metadata"])
    assert meta["source_format"] == "accelsim-traceg" and "sampling" not in meta
    sites = trace.sites.to_pandas().set_index("site")
    assert sites.loc[0x50 // 16, "opcode"] == "LDG.E" and sites.loc[0x90 // 16, "opcode"] == "LDS"


def test_replay_known_answers(trace):
    from analyzers.analyze import analyze

    res = analyze(trace, "nvidia-h200").launches[0]
    s = res.memory.per_site.set_index("site")
    assert s.loc[5, "transactions"] / s.loc[5, "requests"] == 3.5  # 4,4,4 sectors and 2 for the half warp
    assert s.loc[9, "local_cycles"] == 2 + 2 + 2 + 1  # 2-way conflict on full warps


def test_convert_to_file_and_xz(tmp_path):
    xz = tmp_path / "kernel-1.traceg.xz"
    xz.write_bytes(lzma.compress(SAMPLE.read_bytes()))
    assert detect(xz) == "traceg" and detect(DATA) == "traceg"
    out = convert(xz, tmp_path / "t.tkt")
    disk = open_trace(out)
    mem = detect_and_read(SAMPLE)
    assert disk.accesses.to_pandas().equals(mem.accesses.to_pandas())
    assert disk.instructions.num_rows == mem.instructions.num_rows


def test_subset_of_blocks_is_marked_as_sampled(tmp_path):
    text = SAMPLE.read_text().replace("-grid dim = (2,1,1)", "-grid dim = (8,1,1)")
    p = tmp_path / "kernel-1.traceg"
    p.write_text(text)
    meta = json.loads(read_traceg(p).launches.to_pylist()[0]["metadata"])
    assert meta["sampling"] == {"mode": "subset", "groups_recorded": 2, "total_groups": 8, "scale": 4.0}


def test_old_version_prefix_and_lineinfo():
    ins = parse_instruction("0 0 0 1 17 0050 0000000f 1 R7 LDG.E.64 1 R2 8 1 0x1000 8 0",
                            version=2, lineinfo=True, path="x", line=1)
    assert (ins.pc, ins.mask, ins.line, ins.width) == (0x50, 0xF, 17, 8)
    assert ins.addrs == [0x1000, 0x1008, 0x1010, 0x1018]


def test_sass_classes():
    assert opclass("FFMA") == "fp32_fma" and opclass("HFMA2.MMA") == "fp16_fma"
    assert opclass("DFMA") == "fp64_fma" and opclass("MUFU.RSQ") == "math_rsqrt"
    assert opclass("IMAD.MOV.U32") == "other" and opclass("IMAD.SHL.U32") == "bitwise"
    assert opclass("UIADD3") == "int_add" and opclass("LOP3.LUT") == "bitwise"
    assert opclass("ISETP.GE.AND") == "compare" and opclass("I2F.U32") == "convert"
    assert opclass("BAR.SYNC") == "barrier" and opclass("BRA") == "branch"
    assert opclass("ATOMG.E.ADD") == "atomic" and opclass("NEWOP") == "other"
    assert space_of("LDL") == "private" and space_of("ATOMS.ADD") == "local"


def _broken(tmp_path, old: str, new: str, *, count: int = 1) -> Path:
    text = SAMPLE.read_text()
    assert old in text
    p = tmp_path / "bad.traceg"
    p.write_text(text.replace(old, new, count))
    return p


@pytest.mark.parametrize(("old", "new", "expect"), [
    ("0050 ffffffff 1 R7 LDG.E", "0050 fffzffff 1 R7 LDG.E", "active mask 'fffzffff' is not a hexadecimal"),
    ("LDG.E 2 R2 R3 4 1 0x", "LDG.E 2 R2 R3 4 7 0x", "unknown address encoding 7"),
    ("-kernel name = _Z13shared_stridePKfPfi\n", "", "no '-kernel name = ...' line"),
    ("insts = 16", "insts = 17", "declares insts = 17 but has 16"),
    ("thread block = 1,0,0", "thread block = 5,0,0", "outside the grid"),
])
def test_bad_input_names_file_and_line(tmp_path, old, new, expect):
    p = _broken(tmp_path, old, new)
    with pytest.raises(TraceFormatError) as err:
        read_traceg(p)
    msg = str(err.value)
    assert str(p) in msg and expect in msg and "line " in msg


def test_truncated_block(tmp_path):
    lines = SAMPLE.read_text().splitlines()
    p = tmp_path / "cut.traceg"
    p.write_text("\n".join(lines[:70]) + "\n")
    with pytest.raises(TraceFormatError, match=r"line 70: the file ends inside the thread block opened at "
                                               r"line \d+ \(no #END_TB\)"):
        read_traceg(p)


def test_addresses_end_early(tmp_path):
    p = _broken(tmp_path, " 0x00007f2a40800004 0x00007f2a40800000 0 ", " 0 ")
    with pytest.raises(TraceFormatError, match="addresses end early"):
        read_traceg(p)
