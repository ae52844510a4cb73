"""The report from a real analysis: trace -> analyze on three targets -> rules -> report model -> files.

The fixtures elsewhere mimic the analysis output; this test holds the report to
what the analyzers really produce, so a renamed key shows up here as a missing
number rather than as a quietly empty report.
"""

from __future__ import annotations

import pytest
from rules_helpers import KernelBuilder

from tracekit.cli.analyze import run_analyze
from tracekit.report import render_html
from tracekit.trace import store

TARGETS = ["powervr-g6400", "adreno-640", "intel-hd530"]
SOURCE = "\n".join([
    "__kernel void tile_flip(__global const float *in, __global float *out, __local float *tile) {",
    "  int i = get_global_id(0), l = get_local_id(0);",
] + ["  // body"] * 8 + [
    "  tile[l] = in[i];",                       # line 11: global load (site 1)
    "  tile[l] = tile[l];",                     # line 12: local store (site 2)
    "  barrier(CLK_LOCAL_MEM_FENCE);",          # line 13
    "  float v = tile[(l * 16) % 64];",         # line 14: strided local load (site 4)
    "  out[i * 4] = v * 2.0f;",                 # line 15: strided global store (site 5)
    "}",
]) + "\n"


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory):
    k = KernelBuilder(global_size=1024, local_size=64, kernel="tile_flip", source=SOURCE, local_mem_bytes=256)
    k.load(1, lambda i: 4 * i.gid)
    k.store(2, lambda i: 4 * i.lid, space="local")
    k.ops(3, "barrier")
    k.load(4, lambda i: 4 * ((i.lid * 16) % 64), space="local")
    k.store(5, lambda i: 0x800000 + 16 * i.gid)
    k.ops(5, "fp32_mul")
    t = k.trace()
    path = tmp_path_factory.mktemp("pipe") / "tile_flip.tkt"
    store.write_trace(path, t.accesses, instructions=t.instructions, launches=t.launches, sites=t.sites)
    return path


@pytest.fixture(scope="module")
def model(trace_path):
    from tracekit import pipeline
    return pipeline.analyze(str(trace_path), TARGETS).report_model()


def test_every_cell_has_the_numbers_the_report_shows(model):
    (section,) = model.kernels
    assert (section.kernel, section.global_size, section.local_size) == ("tile_flip", "1024", "64")
    assert [r.target for r in section.results] == TARGETS
    for r in section.results:
        assert r.error is None
        assert r.verdict in ("alu", "memory", "latency")
        assert r.time_s and r.time_s > 0 and any(name == "alu" for name, _ in r.times)
        assert r.requests > 0 and r.transactions >= r.requests and r.caches
        assert all(0.0 <= c.hit_rate <= 1.0 for c in r.caches)
        assert r.dram_bytes > 0 and r.local_requests > 0
        assert r.simd_utilization == pytest.approx(1.0) and 0 < r.occupancy <= 1
        assert r.occupancy_limiter and "_" not in r.occupancy_limiter
        rl = r.roofline
        assert rl.peak_ops_per_s > 0 and rl.intensity > 0 and rl.achieved_ops_per_s > 0
        assert rl.roofs[-1][0] == "DRAM" and rl.achieved_ops_per_s <= rl.peak_ops_per_s * (1 + 1e-9)
        labels = dict(r.coalescing_sites)
        assert labels["kernel.cl:15"] > labels["kernel.cl:11"]        # the strided store coalesces worse
        assert dict(r.bank_sites)["kernel.cl:14"] > 1.0                # the strided local read conflicts
        assert r.hot_sites and r.hot_sites[0].code and any(ln.hot for ln in r.hot_sites[0].code)
    assert section.checklist, "the strided store fires at least one rule"
    assert all(item.citations for item in section.checklist)


def test_analyze_command_renders_this_model(trace_path, tmp_path, model):
    out = tmp_path / "report.html"
    assert run_analyze(str(trace_path), TARGETS, "html", str(out)) is None
    assert out.read_text(encoding="utf-8") == render_html(model)


def test_the_checklist_is_a_pipeline_step_not_a_side_effect_of_writing(trace_path, tmp_path, monkeypatch):
    """analyze() runs the rules and their replays; writing the documents afterwards runs neither."""
    from analyzers.rules import gains
    from tracekit import pipeline

    analysis = pipeline.analyze(str(trace_path), TARGETS[:1])
    assert analysis.findings, "the strided store fires at least one rule"

    def refuse(*_args, **_kwargs):
        raise AssertionError("a document was made by running the rules again")

    monkeypatch.setattr(gains, "price_by_replay", refuse)
    monkeypatch.setattr("analyzers.rules.run_rules", refuse)
    doc = analysis.document()
    assert doc["targets"][TARGETS[0]]["findings"] == [f.to_dict() for f in analysis.findings]
    pipeline.write(analysis, "json", tmp_path / "again.json")


def test_an_analysis_without_its_checklist_refuses_to_report(trace_path):
    from tracekit import pipeline
    from tracekit.errors import TracekitError

    analysis = pipeline.analyze(str(trace_path), TARGETS[:1], checklist=False)
    assert analysis.checklist is None and analysis.results[0].launches
    with pytest.raises(TracekitError, match="made without its checklist"):
        analysis.document()
    with pytest.raises(TypeError, match="checklist must be True or False"):
        pipeline.analyze(str(trace_path), TARGETS[:1], checklist="no")
