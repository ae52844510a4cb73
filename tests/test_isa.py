"""Machine code from Intel's offline compiler: build, parse, store with the trace, model.

Real ocloc and iga64 (the Makefile installs intel-opencl-icd and libigc-tools);
missing tools are simulated by a PATH without them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import analyzers
import tracekit
from tracekit.errors import MissingToolError
from tracekit.isa import IsaCompileError, compile_source
from tracekit.isa.attach import attach
from tracekit.isa.table import from_table, to_table

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "isa"
KERNELS = ROOT / "sample_traces" / "kernels"
TRACES = ROOT / "sample_traces"
TRACEKIT = [sys.executable, "-m", "tracekit.cli"]


def _build(name: str, options: str = "", device="skl", platform="9"):
    src = (DATA / name) if (DATA / name).exists() else (KERNELS / name)
    return {k.kernel: k for k in compile_source(src.read_text(), device, platform, options=options,
                                                source_name=str(src))}


def _copy(name: str, tmp_path: Path) -> Path:
    """A copy of a sample trace without the machine code it ships with."""
    dst = tmp_path / name
    shutil.copytree(TRACES / name, dst)
    (dst / "machine_code.parquet").unlink(missing_ok=True)
    return dst


def test_tiled_transpose_listing_on_gen9():
    k = _build("transpose.cl")["transpose_tiled"]
    assert k.simd_width == 32 and k.grf_count == 128 and k.line_mapping == "source_line"
    assert k.slm_bytes == 16 * 16 * 4 and not k.spill_fill
    sends = k.send_counts
    # SIMD32 splits each message in two SIMD16 halves: global read + SLM write, SLM read + global write
    assert sends["slm"] == 4 and sends["global"] == 4 and sends["barrier"] == 1 and sends["eot"] == 1
    slm = k.instructions[k.instructions["send_kind"] == "slm"]
    assert set(slm["bti"]) == {254}
    # the SLM reads sit on the line that reads the tile's columns (line 25 of transpose.cl)
    reads = slm[slm["opclass"] == "load"]
    assert set(reads["line"]) == {25}
    assert 40 <= len(k.instructions) <= 80


def test_gen11_builds_with_its_own_platform():
    k = _build("transpose.cl", device="icllp", platform="11")["transpose_tiled"]
    assert k.device == "icllp" and k.simd_width in (8, 16, 32) and len(k.instructions) > 20


def test_register_pressure_narrows_simd_width():
    kernels = _build("pressure.cl", "-DLIVE=32")
    assert kernels["light"].simd_width == 32
    assert kernels["heavy"].simd_width < kernels["light"].simd_width
    assert kernels["heavy"].simd_width == 8
    assert kernels["heavy"].grf_used > 3 * kernels["light"].grf_used


def test_spilling_kernel_has_scratch_messages():
    heavy = _build("pressure.cl", "-DLIVE=160")["heavy"]
    assert heavy.spill_fill and heavy.scratch_bytes > 0
    scratch = heavy.instructions[heavy.instructions["send_kind"] == "scratch"]
    assert len(scratch) > 0
    assert (scratch["bytes_read"] + scratch["bytes_written"] > 0).all()


def test_bad_kernel_names_the_file_and_log():
    with pytest.raises(IsaCompileError) as exc:
        compile_source("__kernel void bad(__global float* x) { x[0] = y; }\n", "skl", "9",
                       source_name="bad.cl")
    text = str(exc.value)
    assert "bad.cl" in text and "undeclared identifier 'y'" in text and "skl" in text


def test_opencl_1_1_kernels_build_as_1_2():
    # CLBlast builds with -cl-std=CL1.1 for some devices; ocloc's own header fails under it
    from tracekit.isa.tools import ocloc_options

    assert ocloc_options("-cl-std=CL1.1 -DX=1") == "-cl-std=CL1.2 -DX=1"
    assert ocloc_options("-cl-std=CL2.0") == "-cl-std=CL2.0"
    for std in ("CL1.0", "CL1.1"):
        built = _build("vector_add.cl", options=f"-cl-std={std}")
        assert built["vector_add"].simd_width in (8, 16, 32)


def test_unknown_device_is_a_clear_error():
    with pytest.raises(IsaCompileError, match="nosuch"):
        compile_source((KERNELS / "vector_add.cl").read_text(), "nosuch", "9")


def test_table_round_trip():
    kernels = list(_build("transpose.cl").values())
    back = from_table(to_table(kernels))
    assert [k.summary() for k in back] == [k.summary() for k in kernels]
    assert back[1].instructions.equals(kernels[1].instructions)


@pytest.mark.parametrize("layout", ["tkt", "parquet"])
def test_stored_with_the_trace_and_still_valid(tmp_path, layout):
    src = tracekit.open_trace(TRACES / "transpose_tiled.tkt")
    path = tmp_path / f"t.{layout}"
    from tracekit.trace.store import write_trace
    write_trace(path, src.accesses, instructions=src._instruction_runs, launches=src.launches,
                sites=src.sites)
    build = attach(path, ["intel-hd530"])
    assert [k.kernel for k in build.kernels] == ["transpose_tiled"]
    trace = tracekit.open_trace(path)
    assert trace.machine_code.num_rows == 1 and trace.num_accesses == src.num_accesses
    assert from_table(trace.machine_code)[0].simd_width == 32
    run = subprocess.run([*TRACEKIT, "validate", str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_intel_alu_time_comes_from_machine_code(tmp_path):
    path = _copy("transpose_tiled.tkt", tmp_path)
    ir = analyzers.analyze(path, "intel-hd530").launches[0]
    assert ir.machine.priced_by == "ir" and "no machine code" in ir.machine.reason
    attach(path, ["intel-hd530"])
    res = analyzers.analyze(path, "intel-hd530").launches[0]
    m = res.machine
    assert m.priced_by == "machine_code" and m.simd_width == 32
    assert res.simd.layout.width == 32            # waves at the compiler's width
    assert m.dynamic_coverage > 0.95
    # 64x64 items in SIMD32 threads: 128 threads, each runs the 58-instruction listing once
    assert m.machine_instructions == pytest.approx(128 * 58)
    assert res.alu.cycles == pytest.approx(m.machine_cycles)
    assert res.alu.cycles != pytest.approx(ir.alu.cycles)
    d = res.to_dict()["machine_code"]
    assert d["priced_by"] == "machine_code" and d["lines"]


def test_sample_kernels_priced_from_machine_code(tmp_path):
    for name in ("vector_add.tkt", "matmul_naive.tkt", "reduction.tkt", "strided_copy.tkt"):
        path = _copy(name, tmp_path)
        attach(path, ["intel-hd530"])
        for r in analyzers.analyze(path, "intel-hd530").launches:
            assert r.machine.priced_by == "machine_code", (name, r.machine.reason)
            assert r.machine.dynamic_coverage > 0.9
            assert "machine instructions" in r.machine.reason


def test_a_listing_that_does_not_map_falls_back_to_the_ir_model(tmp_path, monkeypatch):
    """A listing whose instructions name another source file (a build of another file with the same
    text) places none of them on the trace's lines: the IR model prices the launch and says why."""
    import dataclasses

    import analyzers.machine_code as mc

    path = _copy("vector_add.tkt", tmp_path)
    attach(path, ["intel-hd530"])
    good = analyzers.analyze(path, "intel-hd530").launches[0]
    assert good.machine.priced_by == "machine_code" and good.machine.static_coverage >= mc.MIN_PLACED_SHARE
    real = mc.kernels_for_target

    def elsewhere(trace, target):
        return {key: dataclasses.replace(k, listing=[dict(i, file="/src/other_copy.cl") for i in k.listing])
                for key, k in real(trace, target).items()}

    monkeypatch.setattr(mc, "kernels_for_target", elsewhere)
    bad = analyzers.analyze(path, "intel-hd530").launches[0]
    assert bad.machine.priced_by == "ir" and bad.machine.static_coverage == 0.0
    assert "0% of the" in bad.machine.reason and "IR model" in bad.machine.reason
    ir_only = analyzers.analyze(_copy("vector_add.tkt", tmp_path / "plain"), "intel-hd530").launches[0]
    assert bad.alu.cycles == pytest.approx(ir_only.alu.cycles)


def test_unrolled_loop_counts_one_block_run_per_unrolled_iterations(tmp_path):
    # the 8x8 box filter's inner loops are unrolled: 64 loads of one source line in one block
    path = _copy("box_filter_8x8.tkt", tmp_path)
    attach(path, ["intel-hd530"])
    m = analyzers.analyze(path, "intel-hd530").launches[0].machine
    assert m.priced_by == "machine_code"
    ratio = sum(m.ir_group_machine.values()) / sum(m.ir_group_issues.values())
    assert ratio < 2.0          # without the unroll anchor every copy ran 64 times: about 26


def test_spills_add_scratch_traffic_and_registers_bind(tmp_path):
    out = tmp_path / "heavy.tkt"
    subprocess.run([*TRACEKIT, "record", str(DATA / "pressure.cl"), "--kernel", "heavy", "-D", "LIVE=160",
                    "--global", "64", "--local", "32", "--arg", "float[10304]=rand", "--arg", "float[64]",
                    "--arg", "int:2", "-o", str(out), "-q"], check=True, capture_output=True, text=True)
    trace = tracekit.open_trace(out)
    assert trace.machine_code.num_rows == 2       # both Intel targets
    res = analyzers.analyze(out, "intel-hd530").launches[0]
    m = res.machine
    assert m.spill_fill and m.simd_width == 8 and m.narrowed
    assert m.scratch_read_bytes > 0 and m.scratch_write_bytes > 0
    assert res.occupancy.limits["registers"] >= 1
    assert res.geometry.registers_per_item == 128 * 32 // 4 // 8


def test_record_without_ocloc_falls_back(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("oclgrind", "g++", "c++", "cc", "as", "ld"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    env = dict(os.environ, PATH=str(bin_dir))
    out = tmp_path / "v.tkt"
    run = subprocess.run([*TRACEKIT, "record", str(KERNELS / "vector_add.cl"), "--kernel", "vector_add",
                          "--global", "256", "--local", "64", "--arg", "float[256]=rand",
                          "--arg", "float[256]=rand", "--arg", "float[256]", "--arg", "int:256",
                          "-o", str(out)],
                         capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert "ocloc is not installed" in run.stderr and "fall back to the IR model" in run.stderr
    assert tracekit.open_trace(out).machine_code.num_rows == 0
    res = analyzers.analyze(out, "intel-hd530").launches[0]
    assert res.machine.priced_by == "ir" and res.alu.cycles > 0


def test_isa_command_without_ocloc_exits_2(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))
    run = subprocess.run([*TRACEKIT, "isa", str(KERNELS / "vector_add.cl")], capture_output=True, text=True,
                         env=env)
    assert run.returncode == 2 and "intel-opencl-icd" in run.stderr


def test_isa_command_bad_kernel_exits_2(tmp_path):
    bad = tmp_path / "bad.cl"
    bad.write_text("__kernel void k(__global int* x) { x[0] = nope; }\n")
    run = subprocess.run([*TRACEKIT, "isa", str(bad)], capture_output=True, text=True)
    assert run.returncode == 2 and "bad.cl" in run.stderr and "nope" in run.stderr


def test_isa_command_adds_to_a_trace(tmp_path):
    path = _copy("vector_add.tkt", tmp_path)
    run = subprocess.run([*TRACEKIT, "isa", str(path), "-t", "intel-iris-plus-g7"], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    rows = from_table(tracekit.open_trace(path).machine_code)
    assert [(k.device, k.kernel) for k in rows] == [("icllp", "vector_add")]


def test_factor_pricing_scales_ir_classes(tmp_path):
    base = (ROOT / "tracekit" / "targets" / "adreno-640.toml").read_text()
    custom = tmp_path / "adreno-factors.toml"
    custom.write_text(base.replace('name = "adreno-640"', 'name = "adreno-640-f"') + (
        '\n[ir_machine_factors]\nint = { value = 2.0, assumed = "test" }\n'))
    plain = analyzers.analyze(TRACES / "vector_add.tkt", "adreno-640").launches[0]
    scaled = analyzers.analyze(TRACES / "vector_add.tkt", str(custom)).launches[0]
    assert scaled.machine.priced_by == "ir_factors" and scaled.machine.factors == {"int": 2.0}
    ps, ss = plain.alu.per_site, scaled.alu.per_site
    ints = ps["opclass"].str.startswith("int_")
    assert (ss.loc[ints, "alu_cycles"].to_numpy() == pytest.approx(2 * ps.loc[ints, "alu_cycles"].to_numpy()))
    assert (ss.loc[~ints, "alu_cycles"].to_numpy() == pytest.approx(ps.loc[~ints, "alu_cycles"].to_numpy()))


def test_missing_tool_error_names_packages(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingToolError, match="libigc-tools"):
        compile_source("__kernel void k() {}", "skl", "9")
