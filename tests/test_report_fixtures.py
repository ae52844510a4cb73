"""Report inputs shaped like the analyzers' output, and tests of the report model builder.

The fixture mirrors what ``tracekit analyze --format json`` writes per target
(``launches[]`` with ``memory``, ``local_memory``, ``bound``, ``time_estimates``,
``simd``, ``occupancy``, ``sites``) so the templates are exercised without
running a replay; other report tests import :func:`sample_inputs` from here.
"""

from __future__ import annotations

import copy

import pytest

from tracekit.report import build_report_model
from tracekit.report.build import finding_view
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

TARGETS = ("powervr-g6400", "adreno-640", "intel-gen9-gt2")


def _launch(target_index: int, *, kernel: str = "transpose") -> dict:
    scale = (1.0, 0.6, 0.35)[target_index]
    width = (32, 64, 16)[target_index]
    return {
        "kernel": kernel,
        "launch": 0,
        "bound": ("memory", "memory", "latency")[target_index],
        "time_estimates": {"total_s": 4.2e-4 * scale, "alu_s": 0.6e-4 * scale,
                           "memory_s": 4.2e-4 * scale, "latency_s": 2.0e-4 * scale},
        "memory": {"requests": 16384, "transactions": 16384 * (9 - 2 * target_index),
                   "transactions_per_request": float(9 - 2 * target_index),
                   "caches": [{"level": "L1", "hit_rate": 0.42 + 0.1 * target_index, "hits": 5000,
                               "misses": 7000},
                              {"level": ("SLC", "L2", "L3")[target_index], "hit_rate": 0.71}],
                   "dram_bytes": 2_097_152 + 500_000 * target_index},
        "local_memory": {"requests": 16384, "cycles": 16384 * (16 - 4 * target_index),
                         "conflict_degree_mean": 16.0 - 4 * target_index,
                         "conflict_degree_histogram": {"1": 8192, str(16 - 4 * target_index): 8192}},
        "simd": {"utilization": 1.0 if width != 64 else 0.5},
        "occupancy": {"resident_waves": 12 + 4 * target_index, "max_waves": 16 + 8 * target_index,
                      "limiter": "local memory"},
        "alu": {"ops": 262144},
        "sites": [
            {"site": 1, "file": "transpose.cl", "line": 6, "space": "global", "requests": 8192,
             "transactions": 8192, "transactions_per_request": 1.0},
            {"site": 2, "file": "transpose.cl", "line": 6, "space": "local", "requests": 8192,
             "transactions": 0, "conflict_degree_mean": 1.0},
            {"site": 3, "file": "transpose.cl", "line": 9, "space": "local", "requests": 8192,
             "transactions": 0, "conflict_degree_mean": 16.0 - 4 * target_index},
            {"site": 4, "file": "transpose.cl", "line": 9, "space": "global", "requests": 8192,
             "transactions": 8192 * (17 - 4 * target_index),
             "transactions_per_request": float(17 - 4 * target_index)},
        ],
    }


def sample_inputs(kernel: str = "transpose", source: str = SOURCE, file: str = "transpose.cl"):
    """(trace_summary, results_by_target, findings) for one launch on three targets."""
    summary = {
        "path": "sample_traces/transpose.tkt",
        "launches": [{"kernel": kernel, "launch": 0, "global_size": [512, 512, 1],
                      "local_size": [16, 16, 1], "local_mem_bytes": 1024, "build_options": "-cl-std=CL1.2",
                      "device": "oclgrind", "source": source, "ops": 262144}],
        "sites": [{"kernel": kernel, "site": s, "file": file, "line": line, "opcode": op}
                  for s, line, op in ((1, 6, "load"), (2, 6, "store"), (3, 9, "load"), (4, 9, "store"))],
    }
    results = {}
    for i, name in enumerate(TARGETS):
        launch = _launch(i, kernel=kernel)
        for site in launch["sites"]:
            site["file"] = file
        results[name] = {"target": {"name": name, "dram": {"bandwidth_gb_per_s": (12.8, 34.1, 25.6)[i]}},
                         "launches": [launch], "assumptions": {"banks": f"bank rule assumed for {name}"}}
    findings = []
    for name in TARGETS:
        findings.append({
            "rule_id": "local-bank-conflict", "title": "Local-memory bank conflicts in the transposed read",
            "severity": "high", "target": name, "kernel": kernel, "launch": 0,
            "evidence": {"conflict degree": 16.0, "local cycles": 262144}, "sites": [(file, 9)],
            "fix": "Pad each tile row by one element so a column read touches every bank once.",
            "citation": "powervr-rogue-compute-recommendations.txt §4.3 Common store",
            "estimated_gain": {"seconds": 1.5e-4, "fraction": 0.36}})
        findings.append({
            "rule_id": "uncoalesced-global", "title": "Uncoalesced global store",
            "severity": "medium", "target": name, "kernel": kernel, "launch": 0,
            "evidence": "17 transactions per request at the store", "sites": [{"file": file, "line": 9}],
            "fix": "Write rows from the tile so neighbouring work-items store neighbouring addresses.",
            "citation": "qualcomm-adreno-opencl-optimization.txt §7.2.1 Coalesced memory load/store",
            "estimated_gain_s": 9.0e-5, "estimated_gain_fraction": 0.2})
    return summary, results, findings


def sample_model(**kw):
    return build_report_model(*sample_inputs(**kw))


def test_summary_cells_carry_verdict_time_and_top_finding():
    model = sample_model()
    (section,) = model.kernels
    assert [r.target for r in section.results] == list(TARGETS)
    first = section.results[0]
    assert first.verdict == "memory"
    assert first.time_s == pytest.approx(4.2e-4)
    assert first.top_finding.rule_id == "local-bank-conflict"   # high before medium
    assert section.results[2].verdict == "latency"
    assert [c.level for c in first.caches] == ["L1", "SLC"]
    assert first.occupancy == pytest.approx(12 / 16)


def test_charts_and_hot_lines_come_from_sites():
    r = sample_model().kernels[0].results[0]
    assert r.coalescing_sites == [("transpose.cl:6", 1.0), ("transpose.cl:9", 17.0)]
    assert ("transpose.cl:9", 16.0) in r.bank_sites
    assert r.conflict_histogram == [("1-way", 8192.0), ("16-way", 8192.0)]
    top = r.hot_sites[0]
    assert (top.file, top.line) == ("transpose.cl", 9)
    assert top.share == pytest.approx(17 / 18)
    hot = [ln for ln in top.code if ln.hot]
    assert len(hot) == 1 and "out[ty * n + tx]" in hot[0].text


def test_roofline_uses_ops_alu_time_and_dram():
    r = sample_model().kernels[0].results[0]
    rl = r.roofline
    assert rl.peak_ops_per_s == pytest.approx(262144 / 0.6e-4)
    assert rl.intensity == pytest.approx(262144 / 2_097_152)
    assert rl.achieved_ops_per_s == pytest.approx(262144 / 4.2e-4)
    assert rl.roofs == [("DRAM", pytest.approx(12.8e9))]


def test_checklist_is_sorted_and_gains_read_in_every_shape():
    items = sample_model().kernels[0].checklist
    assert [i.rule_id for i in items] == ["local-bank-conflict", "uncoalesced-global"]   # high first
    assert all(i.targets == list(TARGETS) for i in items)
    assert items[1].citations == [
        "qualcomm-adreno-opencl-optimization.txt §7.2.1 Coalesced memory load/store"]
    assert items[0].best_gain_s == pytest.approx(1.5e-4)
    order = [SEVERITIES.index(f.severity) for r in sample_model().kernels[0].results for f in r.findings]
    assert order == [1, 2] * 3
    f = finding_view({"rule_id": "x", "severity": "LOW", "estimated_gain": {"seconds": 2e-3, "fraction": 0.5},
                      "sites": [["a.cl", "7"]], "evidence": [("k", 1.23456)]})
    assert (f.severity, f.gain_s, f.gain_fraction, f.sites, f.evidence) == \
        ("low", 2e-3, 0.5, [("a.cl", 7)], [("k", "1.235")])
    f = finding_view({"evidence": {"sites": [{"site": 4, "conflict_degree_mean": 4.0}],
                                   "padding_hint": "pad"}})
    assert f.evidence == [("sites", "site 4, conflict degree mean 4"), ("padding hint", "pad")]


def test_error_target_and_missing_numbers_do_not_break_the_model():
    summary, results, findings = sample_inputs()
    results = copy.deepcopy(results)
    results["adreno-640"]["launches"][0] = {"kernel": "transpose", "launch": 0,
                                           "error": "work-group of 1024 items exceeds the maximum 512"}
    model = build_report_model(summary, results, findings)
    bad = model.kernels[0].results[1]
    assert bad.error.startswith("work-group of 1024")
    assert bad.verdict == "unknown" and bad.time_s is None and bad.roofline is None


def test_assumptions_include_base_and_target_items():
    model = sample_model()
    assert "Coalescing" in [t for t, _ in model.assumptions]
    assert model.target_assumptions[0] == ("powervr-g6400",
                                           [("banks", "bank rule assumed for powervr-g6400")])


def test_target_assumptions_merge_fields_that_share_a_text():
    from tracekit.report.methods import target_assumptions
    rows = target_assumptions({"alu_cycles.math_sin": "class price", "alu_cycles.math_cos": "class price",
                               "caches.L1.ways": "4-way assumed", "simd.width": "class price"})
    assert rows == [("alu_cycles.{math_sin, math_cos}, simd.width", "class price"),
                    ("caches.L1.ways", "4-way assumed")]
