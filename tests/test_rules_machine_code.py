"""Machine-code rules on Intel targets: SIMD8 from register pressure, spills, unrolled scalar loads,
64-bit index arithmetic.

Every kernel is recorded for real (Oclgrind) and built with Intel's own ocloc and iga64,
which ``tracekit record`` does for the Intel targets; without them these tests skip.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import recorded_kernels as rk
from rules_helpers import fired
from test_rules_workgroup import check_case, params

import analyzers
from analyzers.rules import registry, run_rules
from analyzers.rules.gains import price_by_replay
from tracekit.formats import open_trace

ISA = lambda make: rk.Recorded(make, isa=True)  # noqa: E731
CASES = {
    "INTEL-SIMD-NARROWED": (["intel"], lambda t: ISA(lambda: rk.pressure("heavy", 32)),
                            lambda t: ISA(lambda: rk.pressure("light", 32))),
    "INTEL-SPILL-SCRATCH": (["intel"], lambda t: ISA(lambda: rk.pressure("heavy", 160)),
                            lambda t: ISA(lambda: rk.pressure("heavy", 32))),
    "INTEL-UNROLLED-SCALAR-LOADS": (["intel"], lambda t: ISA(lambda: rk.scale_rows("scale_rows")),
                                    lambda t: ISA(lambda: rk.scale_rows("scale_rows4"))),
    "INTEL-INT64-ADDRESS": (["intel"], lambda t: ISA(lambda: rk.gather(64)),
                            lambda t: ISA(lambda: rk.gather(32))),
}
MACHINE_RULES = sorted(CASES)


@pytest.mark.parametrize("rule_id,vendor", params(CASES))
def test_rule_fires_and_stays_quiet(rule_id, vendor):
    check_case(CASES, rule_id, vendor)


def _launch(path, target="intel-hd530"):
    res = analyzers.analyze(path, target)
    return res, res.launches[0]


def test_register_pressure_kernel_is_reported_at_the_width_ocloc_chose():
    rk.needs_isa()
    res, r = _launch(rk.pressure("heavy", 32))
    m = r.machine
    assert m.priced_by == "machine_code" and m.simd_width == 8 and m.target_width == 16 and m.narrowed
    assert r.simd.layout.width == 8
    (f,) = run_rules(res, only=["INTEL-SIMD-NARROWED"])
    assert f.severity == "note" and f.estimated_gain_s is None
    assert f.evidence["simd_width"] == 8 and f.evidence["registers_used"] == f"{m.grf_used} of {m.grf_count}"
    assert "another program" in f.evidence["not_priced"]


def test_spills_are_priced_by_replaying_the_code_without_them():
    """The fix is replayed on the machine code itself: both sides priced from the listing, the
    changed one without its scratch messages.  The replayed saving is checked against what the
    messages cost in the unchanged analysis: their share of the ALU term plus their bytes."""
    rk.needs_isa()
    path = rk.pressure("heavy", 160)
    for target in ("intel-hd530", "intel-iris-plus-g7"):
        res, r = _launch(path, target)
        m = r.machine
        assert m.spill_fill and m.scratch_cycles > 0 and m.scratch_read_bytes > 0
        (f,) = price_by_replay(run_rules(res, only=["INTEL-SPILL-SCRATCH"]), [res], open_trace(path))
        assert f.gain_method == "replay" and f.what_if["change"] == "no-spills"
        assert f.estimated_gain_fraction > 0.01
        assert f.evidence["scratch_read_bytes"] == int(m.scratch_read_bytes)
        lines = f.evidence["spill_lines"]
        assert lines and all(x.startswith("pressure.cl:") for x in lines)
        # the checklist names the same lines as source positions
        assert [f"pressure.cl:{ln}" for _, ln in f.sites] == f.evidence["spill_lines"][:len(f.sites)]
        # the replayed saving is at most what the spill messages take in the unchanged launch: their
        # share of the ALU term plus their bytes at the first cache level's rate (a generous bound)
        te = r.time_estimates
        level = max((te.get("memory_levels_s") or {}).values(), default=te["memory_s"])
        bound = te["alu_s"] * m.scratch_cycles / m.machine_cycles + level
        assert f.estimated_gain_s <= bound + 1e-12


def test_unrolled_scalar_loads_gain_by_replaying_vector_loads():
    rk.needs_isa()
    path = rk.scale_rows("scale_rows")
    res, r = _launch(path)
    (f,) = price_by_replay(run_rules(res, only=["INTEL-UNROLLED-SCALAR-LOADS"]), [res], open_trace(path))
    assert f.evidence["unroll_factor"] >= 4 and f.evidence["bytes_per_lane_per_message"] == 4
    assert f.evidence["consecutive_share"] > 0.9
    assert f.gain_method == "replay" and f.estimated_gain_fraction > 0.1
    # the restrict form lets the compiler merge the messages itself: nothing to advise
    rk.needs_isa()
    assert fired(ISA(lambda: rk.scale_rows("scale_rows_restrict")), "intel", "INTEL-UNROLLED-SCALAR-LOADS") \
        is None


def test_int64_rule_prices_the_64_bit_instructions():
    rk.needs_isa()
    res, r = _launch(rk.gather(64))
    m = r.machine
    assert m.int64_cycles > 0 and 0 < m.int64_saving_cycles <= m.int64_cycles
    (f,) = price_by_replay(run_rules(res, only=["INTEL-INT64-ADDRESS"]), [res], open_trace(rk.gather(64)))
    assert f.evidence["int64_share_of_machine_cycles"] == pytest.approx(m.int64_cycles / m.machine_cycles,
                                                                        abs=1e-4)
    assert f.evidence["lines"] and f.gain_method == "replay" and f.what_if["change"] == "int32-index"
    assert f.estimated_gain_fraction > 0.01
    # the replay takes the saving the machine code's own prices give: no more than the 64-bit
    # instructions' saved cycles' share of the ALU term
    assert f.estimated_gain_s <= r.time_estimates["alu_s"] * m.int64_saving_cycles / m.machine_cycles + 1e-12
    _, r32 = _launch(rk.gather(32))
    assert r32.machine.int64_cycles == 0


SAMPLES_WITHOUT_CAUSE = ["vector_add", "matmul_naive", "transpose_tiled", "reduction", "box_filter_8x8",
                         "conv3x3_buffer", "strided_copy"]


@pytest.mark.parametrize("sample", SAMPLES_WITHOUT_CAUSE)
def test_machine_code_rules_stay_quiet_on_samples_without_the_cause(sample, tmp_path):
    """The sample kernels compile SIMD16 or wider without spills, index with int, and either do not
    loop over consecutive elements or have the compiler vectorise them (the box filter's unrolled
    loop walks down columns: not one vector)."""
    rk.needs_isa()
    from tracekit.isa.attach import attach

    path = Path(shutil.copytree(rk.SAMPLES / f"{sample}.tkt", tmp_path / f"{sample}.tkt"))
    attach(path, ["intel-hd530"])
    res = analyzers.analyze(path, "intel-hd530")
    assert all(r.machine.simd_width for r in res.launches), "machine code was attached"
    assert run_rules(res, only=MACHINE_RULES) == []


def test_machine_rules_are_registered_for_intel_only():
    for rid in MACHINE_RULES:
        assert registry()[rid].vendors == ("intel",)


@pytest.mark.parametrize("fmt", ["text", "json", "html"])
def test_spilling_gemm_without_source_lines_is_reported_in_every_format(fmt, run_cli, tmp_path):
    """A real GEMM spills on Intel, but its -g build (the line table) compiled to other code: the
    spill is a finding whose traffic is unknown, not a crash, whatever the report format."""
    rk.needs_isa()
    path = rk.gemm_tile()
    _, r = _launch(path)
    assert r.machine.spill_fill and r.machine.priced_by == "ir" and r.machine.per_line.empty
    out = tmp_path / f"report.{fmt}"
    res = run_cli("analyze", path, "-t", "intel-hd530", "-f", fmt, "-o", out)
    assert res.code == 0, res.text
    text = out.read_text()
    if fmt == "json":
        import json
        doc = json.loads(text)
        findings = doc["targets"]["intel-hd530"]["findings"]
        found = [f for f in findings if f["rule_id"] == "INTEL-SPILL-SCRATCH"]
        assert len(found) == 1
        ev = found[0]["evidence"]
        assert ev["scratch_bytes_per_thread"] > 0 and ev["spill_lines"] == []
        assert ev["scratch_read_bytes"] is None and "unknown" in ev["not_priced"]
        assert found[0]["estimated_gain_s"] is None
    elif fmt == "html":
        assert "Registers spilled to scratch memory" in text
        assert "unknown: the machine code maps to no source line" in text
    else:
        assert "gemm_tile" in text and "note(s)" in text


def _without(m, name):
    """``m`` with field ``name`` absent: a per-line column dropped, or a scalar field unknown (None)."""
    from dataclasses import replace
    if name.startswith("lines."):
        return replace(m, per_line=m.per_line.drop(columns=[name[len("lines."):]]))
    if name == "lines":
        return replace(m, per_line=None)
    return replace(m, **{name: None})


_LINE_COLUMNS = ("file", "line", "instructions", "executed", "cycles", "sends", "unroll", "load_messages",
                 "load_lane_bytes", "int64_executed", "listing")
_ABSENT = ["lines", *(f"lines.{c}" for c in _LINE_COLUMNS),
           "grf_used", "grf_count", "registers_per_item", "target_width", "scratch_bytes_per_thread",
           "scratch_read_bytes", "scratch_write_bytes", "scratch_cycles", "machine_cycles", "int64_cycles",
           "int64_saving_cycles", "int64_instructions"]


@pytest.mark.parametrize("kernel", ["pressure", "gather"])
def test_machine_rules_cope_with_any_field_absent(kernel):
    """Every rule reading the machine code runs with each field missing: it fires or stays quiet,
    but never fails on what the facts lack."""
    rk.needs_isa()
    path = rk.pressure("heavy", 160) if kernel == "pressure" else rk.gather(64)
    res, r = _launch(path)
    full = r.machine
    assert full.priced_by == "machine_code" and not full.per_line.empty
    readers = [rid for rid, rule in registry().items()
               if any(i.startswith("machine_code.") for i in rule.inputs)]
    assert set(MACHINE_RULES) <= set(readers)
    for name in _ABSENT:
        r.machine = _without(full, name)
        for f in run_rules(res, only=readers):
            assert f.rule_id in readers, name


def test_machine_code_what_ifs_say_why_they_do_not_apply():
    """The machine-code changes need the target's listing and something in it to change: a target
    without machine code, or code without spills or 64-bit arithmetic, is refused with the reason
    (the checklist then keeps the finding as a note, the CLI exits 2)."""
    from analyzers.whatif import what_if
    from tracekit.errors import TracekitError
    rk.needs_isa()
    with pytest.raises(TracekitError, match="no spill or fill messages"):
        what_if(open_trace(rk.gather(64)), "intel-hd530", "no-spills")
    with pytest.raises(TracekitError, match="no 64-bit integer arithmetic"):
        what_if(open_trace(rk.gather(32)), "intel-hd530", "int32-index")
    with pytest.raises(TracekitError, match="no machine code for adreno-640"):
        what_if(open_trace(rk.gather(64)), "adreno-640", "int32-index")
    # applied, the rewritten listing is what the replay prices: the 64-bit instructions are gone
    (w,) = what_if(open_trace(rk.gather(64)), "intel-hd530", "int32-index")
    assert w.before.machine.int64_cycles > 0 and w.after.machine.int64_cycles == 0
    assert w.after.machine.priced_by == "machine_code" and w.gain_fraction > 0
