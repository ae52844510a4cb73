"""analyze(trace, target): verdicts on every shipped target, divergence, bad input, determinism."""

from __future__ import annotations

import json

import numpy as np
import pytest
from exec_model_helpers import (
    KernelBuilder,
    combine,
    few_items,
    fma_chain,
    pointer_chase,
    strided_copy,
    vector_add,
)

from analyzers import analyze
from tracekit.formats import open_trace
from tracekit.targets import list_targets, load_target

TARGETS = list_targets()

# Big grids are recorded in part (the first work-groups) and scaled, as sampled traces are.
# The streaming designs use 256-item work-groups over 64M items: with small groups or a grid the
# size of a big L2, a real H200 cannot keep DRAM busy (it starts one work-group per SM about every
# 160 cycles; the measured 64-item copy reaches 10 % of DRAM bandwidth), and neither does the model.
DESIGNS = {
    "vector_add": (lambda: vector_add(n=1 << 14, local=256, total_items=1 << 26), "memory"),
    "strided_copy": (lambda: strided_copy(n=1 << 14, local=256, total_items=1 << 26), "memory"),
    # 8 loads per item, 128 dependent FMAs after each, 4M items (a sample of 16K recorded): 64 flop per
    # loaded byte, well past every target's ridge (Adreno 640's 898 GFLOPS over 34.1 GB/s is 26).
    "fma_chain": (lambda: fma_chain(loads=8, fmas=128, total_items=1 << 22), "alu"),
    # Eight chains: 32 lanes each pulling a whole line per step keep PowerVR's 12.8 GB/s DRAM
    # 80 % busy, which is bandwidth, not latency.
    "pointer_chase": (lambda: pointer_chase(items=8, local=8), "latency"),
    "few_items": (few_items, "latency"),
}


@pytest.fixture(scope="module")
def traces():
    return {name: make().trace() for name, (make, _) in DESIGNS.items()}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("design", list(DESIGNS))
def test_verdict_follows_the_kernel_design(traces, design, target):
    res = analyze(traces[design], target)
    (launch,) = res.launches
    assert launch.error is None, launch.error
    te = launch.time_estimates
    assert launch.verdict == DESIGNS[design][1], (design, target, te, launch.bound.evidence)
    assert te["total_s"] == max(te["alu_s"], te["memory_s"], te["latency_s"]) > 0


def test_pointer_chase_evidence_shows_the_chain(traces):
    ev = analyze(traces["pointer_chase"], "powervr-g6400").launches[0].bound.evidence
    assert ev["dependent_chain_per_wave"] == 200 and ev["loads_in_flight_per_wave"] == 1.0
    assert ev["transactions_in_flight_available"] < ev["transactions_in_flight_needed"]


def _branch(width: int, one_lane: bool, n=4096, local=256, body=400):
    b = KernelBuilder("branchy" if one_lane else "branchy_all", n, local)
    lane = np.arange(n) % width
    b.access(1, 0x10000000 + 4 * b.gid).access(4, 0x20000000 + 4 * b.gid, op="store")
    b.count(1, "load", 1).count(2, "compare", 1).count(4, "store", 1)
    b.count(3, "fp32_fma", np.where(lane == 0, body, 0) if one_lane else body)
    return b.trace()


@pytest.mark.parametrize("target", TARGETS)
def test_one_lane_branch_costs_as_much_as_every_lane_running_it(target):
    t = load_target(target)
    one = analyze(_branch(t.simd.width, True), t).launches[0]
    every = analyze(_branch(t.simd.width, False), t).launches[0]
    assert one.error is None and every.error is None
    assert one.time_estimates == every.time_estimates
    branch = one.per_site.set_index("site").loc[3]
    assert branch["utilization"] == pytest.approx(1 / t.simd.width)
    assert every.per_site.set_index("site").loc[3, "utilization"] == 1.0
    assert branch["issues"] == every.per_site.set_index("site").loc[3, "issues"]


def test_per_site_table_joins_memory_alu_and_simd_columns():
    res = analyze(vector_add(n=4096).trace(), "intel-hd530")
    ps = res.launch(0).per_site.set_index("site")
    for col in ("requests", "transactions", "transactions_per_request", "issues", "utilization",
                "alu_cycles", "space", "op"):
        assert col in ps.columns, col
    # 4096 items, SIMD16 -> 256 requests per load site, one 64-byte line each.
    assert ps.loc[1, "requests"] == 256 and ps.loc[1, "transactions"] == 256
    assert ps.loc[3, "alu_cycles"] == 256 * load_target("intel-hd530").alu_cycles["fp32_add"]
    assert set(res.per_site["launch"]) == {0}


def test_missing_launch_metadata_is_inferred_with_a_warning():
    res = analyze(vector_add(n=1024, local=64).trace(drop_launches=True), "powervr-g6400")
    assert len(res.warnings) == 1 and "no launch metadata" in res.warnings[0]
    (launch,) = res.launches
    assert launch.geometry.inferred and launch.geometry.local_size == (64, 1, 1)
    assert launch.geometry.global_size == (1024, 1, 1) and launch.verdict == "memory"
    assert res.to_dict()["warnings"] == res.warnings


def test_too_large_work_group_is_an_error_for_that_target_only():
    big = vector_add(n=4096, local=512)        # 512 > Intel HD530's 256, = PowerVR's 512
    small = few_items()
    small.launch = 1
    small.launch_row["launch"] = 1
    trace = combine(big, small)
    intel = analyze(trace, "intel-hd530")
    err = intel.launch(0).error
    assert "512 items" in err and "256" in err
    assert intel.launch(0).verdict is None and intel.launch(1).verdict == "latency"
    assert intel.errors == [err]
    doc = intel.to_dict()["launches"][0]
    assert doc["error"] == err and doc["bound"] is None
    pvr = analyze(trace, "powervr-g6400")
    assert pvr.launch(0).error is None and pvr.launch(0).verdict == "memory"


def test_json_is_deterministic_and_has_the_documented_keys():
    trace = strided_copy(n=4096).trace()
    a = analyze(trace, "nvidia-h200").to_json()
    b = analyze(strided_copy(n=4096).trace(), "nvidia-h200").to_json()
    assert a == b
    doc = json.loads(a)["launches"][0]
    mem, loc = doc["memory"], doc["local_memory"]
    assert {"requests", "transactions", "transactions_per_request", "dram_bytes"} <= set(mem)
    assert all({"level", "hit_rate"} <= set(c) for c in mem["caches"])
    assert [c["level"] for c in mem["caches"]] == ["L1", "L2"]
    assert {"requests", "cycles", "conflict_degree_mean"} <= set(loc)
    assert doc["bound"] in ("alu", "memory", "latency")
    assert {"total_s", "alu_s", "memory_s", "latency_s"} <= set(doc["time_estimates"])
    assert 0 < doc["simd"]["utilization"] <= 1 and "limiting_factor" in doc["occupancy"]
    # Load: stride 16 floats, one 32-byte sector per lane; store: 32 lanes x 4 bytes = 4 sectors.
    sites = {s["site"]: s for s in doc["sites"]}
    assert sites[1]["transactions_per_request"] == 32.0 and sites[2]["transactions_per_request"] == 4.0
    assert mem["transactions_per_request"] == 18.0


def test_sampled_launch_scales_counts_not_ratios():
    full = analyze(fma_chain(n=1 << 14, loads=1).trace(), "powervr-g6400").launches[0]
    sampled = analyze(fma_chain(n=1 << 12, loads=1, total_items=1 << 14).trace(), "powervr-g6400").launches[0]
    assert sampled.geometry.sample_scale == 4
    assert sampled.alu.cycles == pytest.approx(full.alu.cycles)
    assert sampled.simd.utilization == full.simd.utilization
    assert sampled.time_estimates["alu_s"] == pytest.approx(full.time_estimates["alu_s"])


def test_notebook_html_escapes_names():
    b = KernelBuilder("<script>alert(1)</script>", 64, 64).count(1, "fp32_add", 1)
    html = analyze(b.trace(), "powervr-g6400")._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_target_may_be_a_name_a_path_or_an_object(tmp_path):
    trace = few_items().trace()
    by_name = analyze(trace, "adreno-640").to_json()
    from tracekit.targets import target_path
    assert analyze(trace, str(target_path("adreno-640"))).to_json() == by_name
    assert analyze(trace, load_target("adreno-640")).to_json() == by_name


# -- the recorded sample traces ------------------------------------------------------------------

SAMPLES = "sample_traces"
SAMPLE_DESIGNS = {"vector_add": "memory", "strided_copy": "memory", "fma_chain": "alu",
                  "pointer_chase": "latency", "too_small_grid": "latency"}
#: Where the model and a sample's design disagree, and why (strict: fixing the cause must flip these).
KNOWN: dict[tuple[str, str], str] = {}


def _sample(name):
    from pathlib import Path

    from tracekit.formats import open_trace
    path = Path(__file__).resolve().parent.parent / SAMPLES / f"{name}.tkt"
    if not path.exists():
        pytest.skip(f"{path} not recorded")
    return open_trace(path)


def _sample_cases():
    out = []
    for design in SAMPLE_DESIGNS:
        for target in TARGETS:
            why = KNOWN.get((design, target))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            out.append(pytest.param(design, target, marks=marks, id=f"{design}-{target}"))
    return out


@pytest.mark.parametrize("design,target", _sample_cases())
def test_sample_trace_verdicts(design, target):
    (launch,) = analyze(_sample(design), target).launches
    assert launch.error is None, launch.error
    assert launch.verdict == SAMPLE_DESIGNS[design], launch.time_estimates


@pytest.mark.parametrize("target", TARGETS)
def test_sample_one_lane_branch_against_its_twin(target):
    """The kernel takes the branch in one item of every 32 (``(i & 31) == 0``)."""
    t = load_target(target)
    one = analyze(_sample("one_lane_branch"), t).launches[0]
    every = analyze(_sample("all_lanes_branch"), t).launches[0]
    assert one.error is None and every.error is None, one.error or every.error
    w = one.simd.layout.width   # the compiler's SIMD width where the trace has machine code

    def loop(res):   # sites a wave issues more than once: the branch body
        ps = res.per_site
        return ps[ps["issues"] > res.simd.layout.waves]

    lo, le = loop(one), loop(every)
    fma = lo[lo["opclass"] == "fp32_fma"]["utilization"].iloc[0]
    assert fma == pytest.approx(max(w / 32, 1) / w)
    assert (le["utilization"] == 1.0).all()
    # A wave pays for the whole loop if any of its lanes runs it; narrower waves skip some.
    share = min(w / 32, 1.0)
    assert lo["alu_cycles"].sum() == pytest.approx(le["alu_cycles"].sum() * share)
    if w >= 32:
        assert one.time_estimates["total_s"] == pytest.approx(every.time_estimates["total_s"], rel=0.01)


def test_trace_without_instruction_counts_still_gets_a_latency_term():
    b = pointer_chase()
    b._ins.clear()
    launch = analyze(b.trace(), "intel-hd530").launches[0]
    assert launch.simd.source == "geometry" and launch.alu.cycles == 0
    ev = launch.bound.evidence
    assert ev["dependent_chain_per_wave"] == 200 and ev["loads_in_flight_per_wave"] == 1.0
    assert launch.verdict == "latency"


def test_result_answers_the_readme_questions_directly():
    """README: ``result.verdict`` and ``result.time_s`` are attributes of the analysis result."""
    res = analyze(open_trace("sample_traces/matmul_naive.tkt"), "adreno-640")
    (launch,) = res.launches
    assert res.verdict == launch.verdict == launch.bound.verdict
    assert res.time_s == launch.time_s == launch.time_estimates["total_s"] > 0
    # several launches: their times add up, the verdict is the longest launch's; a refused launch counts
    # for neither
    big = vector_add(n=4096, local=512)
    small = few_items()
    small.launch = 1
    small.launch_row["launch"] = 1
    intel = analyze(combine(big, small), "intel-hd530")
    assert intel.launch(0).time_s is None and intel.time_s == pytest.approx(intel.launch(1).time_s)
    assert intel.verdict == intel.launch(1).verdict
    pvr = analyze(combine(big, small), "powervr-g6400")
    longest = max(pvr.launches, key=lambda r: r.time_s)
    assert pvr.time_s == pytest.approx(sum(r.time_s for r in pvr.launches))
    assert pvr.verdict == longest.verdict
