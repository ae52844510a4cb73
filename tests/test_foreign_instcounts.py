"""Oclgrind --inst-counts output as an instruction mix (a real recorded file, and a live run)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tracekit.errors import TraceFormatError
from tracekit.formats import detect, detect_and_read
from tracekit.formats.instcounts import classify, classify_call, instruction_mix, read_instcounts
from tracekit.trace.schema import is_opclass

DATA = Path(__file__).parent / "data" / "instcounts"
SAMPLE = DATA / "mix.inst_counts.txt"
ITEMS = 64  # mix.sim: 64 work-items


def test_recorded_sample():
    c = read_instcounts(SAMPLE)
    assert set(c["kernel"]) == {"mix"}
    ops = c.set_index("operation")["count"]
    # once per work-item: the barrier, the division, the exp call, the global store
    for op in ("call _Z7barrierj()", "sdiv", "call _Z3expf()", "store global (256 bytes)"):
        assert ops[op] == ITEMS
    assert ops["call _Z4sqrtf()"] == ITEMS // 2  # odd work-items only
    assert ops["call _Z3fmafff()"] == 4 * ITEMS  # the 4-step fma loop
    assert all(is_opclass(x) for x in c["opclass"].dropna())
    mix = instruction_mix(c).set_index("opclass")["count"]
    assert mix["math_fma"] == 4 * ITEMS  # the conformant fma() calls: a class of their own
    assert mix["fp32_fma"] == ITEMS  # a[i] * b[i] + 1.0f contracted to llvm.fmuladd
    assert mix["barrier"] == ITEMS and mix["atomic"] == ITEMS and mix["math_sqrt"] == ITEMS // 2
    assert "phi" not in set(instruction_mix(c)["opclass"])
    mem = c.dropna(subset=["space"]).set_index("operation")
    assert mem.at["load global (512 bytes)", "bytes"] == 512


def test_classes():
    assert classify("load local (256 bytes)") == ("load", "local", 256)
    assert classify("fdiv") == ("fp32_div", None, None)
    assert classify("phi") == (None, None, None)
    assert classify_call("_Z3fmaddd") == "fp64_fma"
    assert classify_call("llvm.fma.f16") == "fp16_fma"
    assert classify_call("llvm.fma.f32") == "math_fma" and classify_call("_Z3fmafff") == "math_fma"
    assert classify_call("_Z3madfff") == "fp32_fma"
    assert classify_call("llvm.fmuladd.v4f32") == "fp32_fma"
    assert classify_call("_Z3sinDv4_f") == "math_sin"
    assert classify_call("_Z12get_group_idj") == "other"
    assert classify_call("_Z10atomic_incPU3AS1Vi") == "atomic"


@pytest.mark.skipif(shutil.which("oclgrind-kernel") is None, reason="oclgrind-kernel not installed")
def test_live_run_matches_recorded(tmp_path):
    for name in ("mix.cl", "mix.sim"):
        shutil.copy(DATA / name, tmp_path / name)
    res = subprocess.run(["oclgrind-kernel", "--inst-counts", "mix.sim"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, check=True)
    out = tmp_path / "out.txt"
    out.write_text(res.stdout + res.stderr)
    assert detect(out) == "instcounts"
    live = detect_and_read(out)
    rec = read_instcounts(SAMPLE)
    key = ["operation", "count"]
    def norm(f):
        return f[key].sort_values(key).reset_index(drop=True)

    assert norm(live).equals(norm(rec))


def test_not_instcounts(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("hello\n")
    with pytest.raises(TraceFormatError, match="not Oclgrind --inst-counts output") as err:
        read_instcounts(p)
    assert str(p) in str(err.value)


def test_garbage_line_names_line(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text(SAMPLE.read_text().replace("              64 - sdiv", "  sixty-four sdiv"))
    with pytest.raises(TraceFormatError, match=r"line \d+: expected 'COUNT - OPERATION'"):
        read_instcounts(p)
