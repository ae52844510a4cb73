"""ALU cost: issue cycles per site and launch, fast-relaxed math, units, issuers and sampling."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from exec_model_helpers import KernelBuilder, make_target

from analyzers.alu import alu_cost, cost_of, cycles_table
from analyzers.geometry import launch_geometries
from analyzers.simd import wave_issues, wave_layout
from tracekit.targets import load_target


def run(builder, target, resident=None):
    tr = builder.trace()
    (g,), _ = launch_geometries(tr)
    lay = wave_layout(g, target)
    return alu_cost(wave_issues(tr.instructions, lay), g, lay, target, resident)


@pytest.fixture(scope="module")
def powervr():
    return load_target("powervr-g6400")


def test_fma_chain_cycles_and_time_on_g6400(powervr):
    b = KernelBuilder("fma", 1024, 32).count(1, "fp32_fma", 64)
    r = run(b, powervr)
    # 32 tasks x 64 issues x 1 cycle, dealt to 4 USCs: 8 tasks each.
    assert r.cycles == 32 * 64 and r.cycles_busiest_cu == 8 * 64 and r.active_cus == 4
    assert r.time_s == pytest.approx(512 / 500e6)
    row = r.per_site.iloc[0]
    assert (row["site"], row["opclass"], row["issues"], row["alu_cycles"]) == (1, "fp32_fma", 2048, 2048)


def test_division_costs_follow_the_guide_and_fast_math(powervr):
    # The guide: float divide 4 cycles per 16 lanes by default, 2 with fast-relaxed math;
    # integer divide 30.  A 32-thread task is two halves, so twice that per issue.
    assert cost_of("fp32_div", cycles_table(powervr, False))[0] == 8
    assert cost_of("fp32_div", cycles_table(powervr, True))[0] == 4
    assert cost_of("int_div", cycles_table(powervr, False))[0] == 60
    slow = run(KernelBuilder("d", 32, 32).count(1, "fp32_div", 10), powervr)
    fast = run(KernelBuilder("d", 32, 32, build_options="-cl-fast-relaxed-math").count(1, "fp32_div", 10),
               powervr)
    assert slow.cycles == 80 and fast.cycles == 40 and fast.fast_math and not slow.fast_math


def test_unlisted_math_builtin_takes_math_default():
    t = make_target(alu={"math_sin": 20.0, "math_default": 50.0})
    assert cost_of("math_sin", t.alu_cycles) == (20.0, "math_sin")
    assert cost_of("math_erfc", t.alu_cycles) == (50.0, "math_default")
    r = run(KernelBuilder("m", 32, 32).count(1, "math_erfc", 2), t)
    assert r.cycles == 100 and r.priced_by_fallback == ("math_erfc",)


def test_divergent_branch_costs_as_much_as_the_full_branch():
    t = make_target(width=32)
    lane = np.arange(256) % 32
    one = run(KernelBuilder("b", 256, 64).count(2, "fp32_fma", np.where(lane == 0, 100, 0)), t)
    allx = run(KernelBuilder("b", 256, 64).count(2, "fp32_fma", 100), t)
    assert one.cycles == allx.cycles == 8 * 100 and one.time_s == allx.time_s


def test_few_work_groups_use_few_units():
    t = make_target(width=32, cus=4)
    r = run(KernelBuilder("k", 64, 64).count(1, "fp32_add", 10), t)
    assert r.active_cus == 1 and r.cycles_busiest_cu == 20 and r.cycles == 20


def test_issuers_are_limited_by_resident_waves():
    t = make_target(width=32, cus=1, issuers=4, clock_mhz=1000)
    b = KernelBuilder("k", 32 * 8, 32).count(1, "fp32_add", 100)
    full = run(b, t)
    assert full.issuers_used == 4 and full.time_s == pytest.approx(800 / 4 / 1e9)
    one = run(b, t, resident=1)
    assert one.issuers_used == 1 and one.time_s == pytest.approx(800 / 1e9)


def test_sampled_trace_scales_to_the_whole_launch():
    t = make_target(width=32, cus=4)
    meta = {"sampling": {"total_groups": 64, "groups_recorded": 8, "seed": 1}}
    b = KernelBuilder("k", 8 * 32, 32, metadata=meta).count(1, "fp32_add", 5)
    b.launch_row["global_size"] = [64 * 32, 1, 1]
    r = run(b, t)
    assert r.cycles == 64 * 5 and r.cycles_busiest_cu == 16 * 5
    assert r.per_site["issues"].iloc[0] == 64 * 5


def test_pipes_overlap_integer_and_float_work():
    """With ``issue_pipes`` a unit is busy for max(issue slots, busiest pipe)."""
    alu = {"int_add": 2.0, "fp32_fma": 1.0, "int_div": 40.0}
    pipes = {"int_add": "int", "fp32_fma": "fp32"}
    serial, piped = make_target(alu=alu, cus=1), make_target(alu=alu, cus=1, pipes=pipes)
    b = KernelBuilder("mix", 32, 32).count(1, "int_add", 10).count(2, "fp32_fma", 10)
    assert run(b, serial).cycles == 10 * 2 + 10 * 1           # every class holds the issuer
    assert run(b, piped).cycles == 20                          # the int pipe's 20 cycles; 20 slots
    ints = KernelBuilder("ints", 32, 32).count(1, "int_add", 10).count(2, "fp32_fma", 4)
    assert run(ints, piped).cycles == 20                       # int pipe busier than the 14 issue slots
    fmas = KernelBuilder("fmas", 32, 32).count(1, "int_add", 4).count(2, "fp32_fma", 30)
    assert run(fmas, piped).cycles == 34                       # issue-bound: 34 slots
    # a class without a pipe holds the issuer for its whole cost, pipes or not
    div = KernelBuilder("div", 32, 32).count(1, "int_div", 2).count(2, "fp32_fma", 10)
    assert run(div, piped).cycles == 2 * 40 + 10
    r = run(b, piped)
    assert r.per_site["alu_cycles"].tolist() == [20.0, 10.0]   # per site: pipe cycles, as before


def test_h200_pipes_are_sourced_and_cover_the_arithmetic_classes():
    h200 = load_target("nvidia-h200")
    pipes = h200.issue_pipes
    for op in ("fp32_fma", "int_add", "bitwise", "compare", "branch", "load"):
        assert op in pipes and op in h200.alu_cycles
    assert pipes["fp32_fma"] != pipes["int_add"]
    for op in ("int_div", "fp32_div", "other"):
        assert op not in pipes                                 # multi-instruction or unknown: serial


def test_conformant_fma_takes_the_targets_math_fma_price_or_its_fused_multiply_add():
    emulated = make_target(alu={"fp32_fma": 1.0, "math_fma": 80.0})
    native = make_target(alu={"fp32_fma": 1.0, "math_default": 50.0})
    b = KernelBuilder("f", 32, 32).count(1, "math_fma", 3).count(2, "fp32_fma", 3)
    assert run(b, emulated).cycles == 3 * 80 + 3 * 1
    r = run(b, native)                      # not math_default: fma() is one instruction there
    assert r.cycles == 6 and r.priced_by_fallback == ("math_fma",)
    # with pipes, math_fma runs on the pipe of the instruction it is priced as
    piped = make_target(alu={"int_add": 2.0, "fp32_fma": 1.0}, cus=1,
                        pipes={"int_add": "int", "fp32_fma": "fp32"})
    mix = KernelBuilder("m", 32, 32).count(1, "int_add", 10).count(2, "math_fma", 10)
    assert run(mix, piped).cycles == 20     # overlaps the int pipe like fp32_fma would


def test_unsupported_class_is_not_priced_and_says_so():
    t = replace(make_target(alu={"fp64_add": 24.0}), unsupported={"fp64_add": "no fp64 here (a guide)"})
    b = KernelBuilder("d", 64, 32).count(1, "fp64_add", 5).count(2, "fp32_fma", 4)
    r = run(b, t)
    assert r.cycles == 2 * 4 * 1                     # two waves x 4 FMAs; the fp64 adds cost nothing
    assert r.unsupported == {"fp64_add": 2 * 5}
    (w,) = r.warnings
    assert "fp64_add" in w and "10 wave issues" in w and "no fp64 here (a guide)" in w and "toy" in w
    assert r.to_dict()["unsupported"] == {"fp64_add": 10} and r.to_dict()["warnings"] == [w]
    clean = run(KernelBuilder("d", 64, 32).count(2, "fp32_fma", 4), t)
    assert clean.unsupported == {} and clean.warnings == ()


def test_fp64_on_adreno_is_a_warning_in_the_analysis_json():
    import json

    from analyzers.analyze import analyze
    b = KernelBuilder("dbl", 128, 64).count(1, "fp64_fma", 8).count(2, "fp32_add", 2)
    for name in ("adreno-640", "adreno-740"):
        t = load_target(name)
        assert set(t.unsupported) == {"fp64_add", "fp64_mul", "fp64_fma", "fp64_div"}
        doc = json.loads(analyze(b.trace(), t).to_json())
        (launch,) = doc["launches"]
        assert launch["alu"]["unsupported"] == {"fp64_fma": 2 * 8}
        assert any("fp64_fma" in w and name in w and "launch 0" in w for w in doc["warnings"])
    # a target with fp64 prices it and warns about nothing
    doc = json.loads(analyze(b.trace(), load_target("nvidia-h200")).to_json())
    assert doc["launches"][0]["alu"]["unsupported"] == {} and doc["warnings"] == []


def test_integer_builtins_cost_their_alu_instructions_not_the_math_library_default():
    # clamp is min(max()): two ALU instructions; abs, min and max one each.  A coordinate clamp in
    # a stencil must not be priced like a software sin() (math_default).
    t = make_target(alu={"int_add": 2.0, "math_default": 40.0})
    assert cost_of("math_clamp", t.alu_cycles) == (4.0, "int_add")
    assert cost_of("math_abs", t.alu_cycles) == (2.0, "int_add")
    assert cost_of("math_max", t.alu_cycles) == (2.0, "int_add")
    assert cost_of("math_erfc", t.alu_cycles) == (40.0, "math_default")
    own = make_target(alu={"int_add": 2.0, "math_clamp": 9.0, "math_default": 40.0})
    assert cost_of("math_clamp", own.alu_cycles) == (9.0, "math_clamp")   # a target's own price wins
    b = KernelBuilder("c", 32, 32).count(1, "math_clamp", 3)
    assert run(b, t).cycles == 3 * 4


def test_work_the_compiler_may_put_on_either_pipe_levels_them():
    """A class on "a|b" fills the less loaded of its two pipes until both are level: 10 cycles
    fixed on pipe 0, 2 on pipe 1 and 12 that may go either way come to 12 on each."""
    from analyzers.alu import busy_cycles, split_pipes

    assert split_pipes("int|fp32") == ("int", "fp32") and split_pipes("int") == ("int",)
    assert split_pipes(None) == ()
    issues = np.array([5.0, 2.0, 6.0])
    cost = np.array([2.0, 1.0, 2.0])
    pipe = np.array([0, 1, 0])
    unit = np.zeros(3, dtype=np.int64)
    slots = np.array([1.0])  # issue slots below every pipe: the pipes decide
    fixed = busy_cycles(issues, cost, pipe, unit, 1, slots)
    assert fixed.tolist() == [22.0]  # all integer work on pipe 0
    either = busy_cycles(issues, cost, pipe, unit, 1, slots, alt=np.array([-1, -1, 1]))
    assert either.tolist() == [12.0]
    # a pipe already busier than the other takes none of it
    busy = busy_cycles(np.array([5.0, 40.0, 6.0]), cost, pipe, unit, 1, slots, alt=np.array([-1, -1, 1]))
    assert busy.tolist() == [40.0]


def test_h200_balances_integer_adds_over_the_alu_and_fma_pipes():
    """ncu's pipe counts for convolution2D (tests/data/h200_real): more integer work on the FMA
    pipe than on the ALU pipe; the target puts multiply-adds on the FMA pipe and lets adds go
    either way."""
    h200 = load_target("nvidia-h200")
    assert h200.issue_pipes["int_add"] == "int|fp32"
    assert h200.issue_pipes["int_mul"] == "fp32" and h200.issue_pipes["bitwise"] == "int"


def test_a_class_on_three_pipes_is_refused(tmp_path):
    from pathlib import Path

    from tracekit.errors import TargetError

    text = (Path(__file__).resolve().parents[1] / "tracekit" / "targets" / "nvidia-h200.toml").read_text()
    bad = text.replace('int_add = { value = "int|fp32"', 'int_add = { value = "int|fp32|xu"')
    assert bad != text
    (tmp_path / "bad.toml").write_text(bad)
    with pytest.raises(TargetError, match="issue_pipes.int_add"):
        load_target(str(tmp_path / "bad.toml"))
