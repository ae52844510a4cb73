"""Sampled estimates: within 5 % of the full replay on the sample traces, seeded, with intervals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzers.memory import replay_memory
from analyzers.sampling import full_metrics, sample_launch, summarize_blocks
from tracekit.targets import load_target
from tracekit.trace import open_trace

SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"
TARGETS = ("powervr-g6400", "intel-hd530", "adreno-640")


def _launch(trace):
    return int(trace.launches["launch"][0].as_py()), int(np.prod(trace.launches["local_size"][0].as_py()))


def test_estimates_within_five_percent_of_full_replay():
    """A quarter of the blocks (at least two), seed 1, on every sample trace and three targets."""
    checked = sampled = 0
    for path in sorted(SAMPLES.glob("*.tkt")):
        trace = open_trace(path)
        launch, size = _launch(trace)
        for name in TARGETS:
            t = load_target(name)
            levels = [c.name for c in t.caches]
            full = full_metrics(replay_memory(trace, t, group_sizes={launch: size}), levels)
            s = sample_launch(trace, t, launch, fraction=0.25, seed=1, group_size=size, resamples=200)
            sampled += len(s.blocks_sampled) < s.blocks_total
            for metric in ["transactions_per_request"] + [f"{lv}_hit_rate" for lv in levels]:
                est, ref = s.estimate(metric), full[metric]
                assert est == pytest.approx(ref, rel=0.05, abs=1e-9), (path.name, name, metric, est, ref)
                checked += 1
    assert checked > 100 and sampled >= 10  # most cases really left blocks out


def test_same_seed_same_answer_other_seed_other_blocks():
    trace = open_trace(SAMPLES / "vector_add.tkt")
    launch, size = _launch(trace)
    t = load_target("intel-hd530")  # 3 units x 4 rounds: 6 blocks of 12 groups in 64 groups
    a = sample_launch(trace, t, launch, fraction=0.34, seed=5, group_size=size, resamples=100)
    b = sample_launch(trace, t, launch, fraction=0.34, seed=5, group_size=size, resamples=100)
    assert a.blocks_total == 6 and len(a.blocks_sampled) == 2
    assert a.blocks_sampled == b.blocks_sampled and a.estimates.equals(b.estimates)
    others = {tuple(sample_launch(trace, t, launch, fraction=0.34, seed=s, group_size=size,
                                  resamples=10).blocks_sampled) for s in range(6)}
    assert len(others) > 1


def test_intervals_bracket_the_estimate_and_scale_totals():
    trace = open_trace(SAMPLES / "matmul_naive.tkt")
    launch, size = _launch(trace)
    t = load_target("powervr-g6400")
    s = sample_launch(trace, t, launch, fraction=0.5, seed=2, group_size=size, resamples=300)
    e = s.estimates.set_index("metric")
    assert (e["ci_low"] <= e["estimate"] + 1e-12).all() and (e["estimate"] <= e["ci_high"] + 1e-12).all()
    assert (e["stderr"] >= 0).all()
    scale = s.blocks_total / len(s.blocks_sampled)
    assert e.loc["dram_bytes", "estimate"] == pytest.approx(s.blocks["dram_bytes"].sum() * scale)


def test_summarize_blocks_known_answer():
    blocks = pd.DataFrame({
        "transactions": [4.0, 12.0], "requests": [2.0, 2.0], "local_cycles": [0.0, 0.0],
        "local_requests": [0.0, 0.0], "local_degree": [0.0, 0.0], "dram_bytes": [100.0, 300.0],
        "L1_hits": [1.0, 3.0], "L1_accesses": [4.0, 4.0]})
    e = summarize_blocks(blocks, ["L1"], scale=3.0, seed=0, resamples=500).set_index("metric")
    assert e.loc["transactions_per_request", "estimate"] == 4.0  # (4 + 12) / (2 + 2)
    assert e.loc["L1_hit_rate", "estimate"] == 0.5
    assert e.loc["dram_bytes", "estimate"] == 1200.0
    # the bootstrap can only draw (b0, b0), (b0, b1), (b1, b1): ratios 2, 4, 6
    assert e.loc["transactions_per_request", "ci_low"] == 2.0
    assert e.loc["transactions_per_request", "ci_high"] == 6.0
    same = summarize_blocks(pd.concat([blocks.iloc[:1]] * 3), ["L1"], scale=1.0).set_index("metric")
    assert same.loc["L1_hit_rate", "ci_low"] == same.loc["L1_hit_rate", "ci_high"] == 0.25


def test_cli_sample_groups(run_cli):
    res = run_cli("analyze", SAMPLES / "matmul_naive.tkt", "-t", "powervr-g6400", "--sample-groups", "0.5",
                  "--seed", "4")
    assert res.code == 0, res.err
    doc = json.loads(res.out)
    assert doc["format"] == "tracekit-sampled-analysis" and doc["sampling"]["seed"] == 4
    est = doc["targets"]["powervr-g6400"]["launches"][0]["estimates"]
    assert {"transactions_per_request", "L1_hit_rate", "SLC_hit_rate", "dram_bytes"} <= set(est)
    assert est["L1_hit_rate"]["ci_low"] <= est["L1_hit_rate"]["estimate"] <= est["L1_hit_rate"]["ci_high"]
    bad = run_cli("analyze", SAMPLES / "matmul_naive.tkt", "-t", "powervr-g6400", "--sample-groups", "1.5")
    assert bad.code == 2 and "fraction" in bad.text
