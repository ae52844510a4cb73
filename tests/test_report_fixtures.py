"""Report inputs from a real analysis of a small kernel, and tests of the report model builder.

:func:`sample_inputs` records nothing: it builds the trace of a tile transpose
in memory (a strided, conflicting local-memory read and a strided global store,
with source text), runs the pipeline on three targets and returns what the report
builder takes: the trace facts, one analysis result per target and the checklist.
Other report tests import it (and :func:`sample_model`).
"""

from __future__ import annotations

import functools

import pytest
from rules_helpers import KernelBuilder

from tracekit import pipeline
from tracekit.report import build_report_model
from tracekit.report.build import summarize_trace
from tracekit.report.model import SEVERITIES

SOURCE = """__kernel void transpose(__global const float *in, __global float *out,
                        __local float *tile, int n)
{
    int x = get_global_id(0), y = get_global_id(1);
    int lx = get_local_id(0), ly = get_local_id(1);
    tile[ly * 16 + lx] = in[y * n + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    int tx = get_group_id(1) * 16 + lx, ty = get_group_id(0) * 16 + ly;
    out[ty * n + tx] = tile[lx * 16 + ly];
}
"""

TARGETS = ("powervr-g6400", "adreno-640", "intel-hd530")
N = 256


def sample_trace(kernel: str = "transpose", source: str = SOURCE, file: str = "transpose.cl", *,
                 fixed: bool = False):
    """A 256 x 256 transpose through a 16 x 16 tile read by column, with a column-wise store;
    ``fixed``: the tile padded to 17 floats a row and the output written by rows, plus an
    integer division the fix brought in."""
    pitch = 17 if fixed else 16
    k = KernelBuilder((N, N), (16, 16), kernel=kernel, source=source, local_mem_bytes=4 * 16 * pitch)
    k.load(1, lambda i: 4 * (i.gy * N + i.gx))                               # line 6: in[y * n + x]
    k.store(2, lambda i: 4 * (i.ly * pitch + i.lx), space="local")            # line 6: tile[ly][lx]
    k.ops(3, "barrier")                                                        # line 7
    k.load(4, lambda i: 4 * (i.lx * pitch + i.ly), space="local")             # line 9: tile[lx][ly]
    if fixed:
        k.store(5, lambda i: 4 * (i.gy * N + i.gx), buffer=1)                 # line 9: out, by row
        k.ops(6, "int_div", count=1)
    else:
        k.store(5, lambda i: 4 * (i.gx * N + i.gy), buffer=1)                 # line 9: out, by column
    k.ops(4, "fp32_mul")
    return k.trace(file=file, lines={1: 6, 2: 6, 3: 7, 4: 9, 5: 9, 6: 8})


@functools.lru_cache(maxsize=4)
def sample_inputs(kernel: str = "transpose", source: str = SOURCE, file: str = "transpose.cl"):
    """(trace facts, one analysis result per target, the checklist) of :func:`sample_trace`
    (computed once per arguments: callers must not change what they get)."""
    analysis = pipeline.analyze(sample_trace(kernel, source, file), list(TARGETS))
    return summarize_trace(analysis.trace), tuple(analysis.results), tuple(analysis.findings)


def refusing_results():
    """An analysis on a copy of the PowerVR target that accepts only 64-item work-groups."""
    from dataclasses import replace

    from tracekit.targets import load_target
    t = load_target("powervr-g6400")
    tiny = replace(t, name="tiny-gpu", occupancy=replace(t.occupancy, max_work_group_size=64))
    return pipeline.analyze(sample_trace(), [tiny], checklist=False).results


def sample_model(**kw):
    return build_report_model(*sample_inputs(**kw))


@pytest.fixture(scope="module")
def model():
    return sample_model()


def test_summary_cells_carry_verdict_time_margin_and_top_finding(model):
    (section,) = model.kernels
    assert [r.target for r in section.results] == list(TARGETS)
    for r in section.results:
        assert r.verdict in ("alu", "memory", "latency") and r.time_s > 0
        assert r.verdict_margin is not None and r.runner_up in ("alu", "memory", "latency")
        assert r.runner_up != r.verdict
        assert [c.level for c in r.caches] and all(0 <= c.hit_rate <= 1 for c in r.caches)
        assert 0 < r.occupancy <= 1 and r.resident_waves <= r.max_waves
        if r.top_finding is not None:
            assert not r.top_finding.is_note and r.top_finding.gain_s > 0


def test_charts_and_hot_lines_come_from_sites(model):
    r = model.kernels[0].results[2]                       # intel-hd530: 16 SLM banks of 4 bytes
    coalescing = dict(r.coalescing_sites)
    assert set(coalescing) == {"transpose.cl:6 (#1, load)", "transpose.cl:9 (#2, store)"}
    assert coalescing["transpose.cl:9 (#2, store)"] > coalescing["transpose.cl:6 (#1, load)"]
    banks = dict(r.bank_sites)
    assert banks["transpose.cl:9 (#1, load)"] > banks["transpose.cl:6 (#2, store)"] >= 1.0
    assert r.conflict_histogram and all(label.endswith("-way") for label, _ in r.conflict_histogram)
    top = r.hot_sites[0]
    assert (top.file, top.line) == ("transpose.cl", 9)
    hot = [ln for ln in top.code if ln.hot]
    assert len(hot) == 1 and "out[ty * n + tx]" in hot[0].text
    # one line holds a global and a local access: their requests are described apart
    assert "global requests" in top.detail and "local requests" in top.detail


def test_roofline_uses_lane_ops_alu_time_and_dram(model):
    for r in model.kernels[0].results:
        rl = r.roofline
        assert rl.ops > 0 and rl.peak_ops_per_s == pytest.approx(rl.ops / dict(r.times)["alu"])
        assert rl.intensity == pytest.approx(rl.ops / r.dram_bytes)
        assert rl.roofs[-1][0] == "DRAM"


def test_checklist_is_ordered_by_gain_and_notes_stand_apart(model):
    (section,) = model.kernels
    items = section.checklist
    assert items, "the conflicting read and the column store leave something to fix"
    gains = [max(f.gain_fraction or 0 for f in i.findings) for i in items]
    assert gains == sorted(gains, reverse=True)
    assert all(not f.is_note and f.gain_s > 0 for i in items for f in i.findings)
    assert all(f.is_note for i in section.notes for f in i.findings)
    assert {f.severity for i in items for f in i.findings} <= set(SEVERITIES) - {"note"}
    assert all(i.citations for i in items)
    replayed = [f for i in items for f in i.findings if f.gain_method == "replay"]
    assert replayed and all(f.replay for f in replayed)


def test_report_leads_with_each_targets_top_findings(model):
    tops = dict(model.top_findings())
    assert list(tops) == list(TARGETS)
    for name, found in tops.items():
        assert len(found) <= 3 and all(f.target == name and not f.is_note for f in found)
        fr = [f.gain_fraction for f in found]
        assert fr == sorted(fr, reverse=True)


def test_error_target_is_a_cell_with_its_reason():
    facts, results, findings = sample_inputs()
    model = build_report_model(facts, list(results) + list(refusing_results()), findings)
    cell = model.kernels[0].results[-1]
    assert cell.target == "tiny-gpu" and "256" in cell.error and "64" in cell.error
    assert cell.verdict == "unknown" and cell.time_s is None and cell.roofline is None


def test_assumptions_include_base_and_target_items(model):
    assert "Coalescing" in [t for t, _ in model.assumptions]
    names = [n for n, _ in model.target_assumptions]
    assert names == [n for n in TARGETS if n in names] and names


def test_sensitivity_lists_only_numbers_that_move_the_answer():
    analysis = pipeline.analyze(sample_trace(), ["powervr-g6400"])
    model = analysis.report_model()
    frames = analysis.sensitivity()
    assert len(frames) == 1 and len(frames[0])
    for row in model.sensitivity:
        assert row.flips or abs(float(row.time_change.rstrip(" %"))) >= 25
        assert row.field in analysis.results[0].target.assumptions


def test_target_assumptions_merge_fields_that_share_a_text():
    from tracekit.report.methods import target_assumptions
    rows = target_assumptions({"alu_cycles.math_sin": "class price", "alu_cycles.math_cos": "class price",
                               "caches.L1.ways": "4-way assumed", "simd.width": "class price"})
    assert rows == [("alu_cycles.{math_sin, math_cos}, simd.width", "class price"),
                    ("caches.L1.ways", "4-way assumed")]
