"""Sensitivity of a verdict to the target's assumed numbers: halved and doubled, only those read."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from exec_model_helpers import KernelBuilder, fma_chain, make_target, vector_add

from analyzers import analyze
from analyzers.sensitivity import COLUMNS, read_fields, scaled, sensitivity, value_of, with_value
from tracekit.targets import load_target


def assume(target, *fields):
    return replace(target, assumptions={f: "test" for f in fields})


def _alu_s(trace, target, price):
    t = replace(target, alu_cycles={**target.alu_cycles, "fp32_fma": price})
    return analyze(trace, t).launches[0].time_estimates


def test_halving_an_assumed_price_flips_an_alu_bound_verdict():
    trace = fma_chain(n=1 << 12, local=64, loads=2, fmas=16).trace()
    toy = make_target(dram_gbs=20.0)
    # ALU time is linear in the FMA price: choose the price that makes it 1.1x the memory time, so
    # that half of it falls below the 60 % a bottleneck needs (Nsight Compute's SOL rule)
    one, two = _alu_s(trace, toy, 1.0), _alu_s(trace, toy, 2.0)
    per_cycle, fixed = two["alu_s"] - one["alu_s"], 2 * one["alu_s"] - two["alu_s"]
    rest = max(one["memory_s"], one["latency_s"])
    price = (1.1 * rest - fixed) / per_cycle
    t = assume(replace(toy, alu_cycles={**toy.alu_cycles, "fp32_fma": price}), "alu_cycles.fp32_fma")
    before = copy.deepcopy(t)
    df = sensitivity(trace, t)
    assert list(df.columns) == COLUMNS
    assert df["field"].unique().tolist() == ["alu_cycles.fp32_fma"]
    rows = df.set_index("factor")
    assert (rows["base_verdict"] == "alu").all()
    assert rows.at[0.5, "verdict_changed"] and rows.at[0.5, "verdict"] != "alu"
    assert rows.at[0.5, "value"] == pytest.approx(price / 2) and rows.at[0.5, "base_value"] == price
    assert not rows.at[2.0, "verdict_changed"] and rows.at[2.0, "verdict"] == "alu"
    assert rows.at[2.0, "time_change"] > 0.9            # an ALU-bound launch: about twice as long
    assert t == before                                  # variants are copies


def test_nothing_changes_for_a_strongly_memory_bound_launch():
    trace = vector_add(n=1 << 14, local=64, total_items=1 << 22).trace()
    t = assume(make_target(), "alu_cycles.fp32_add", "clock_mhz")
    df = sensitivity(trace, t)
    assert set(df["field"]) == {"alu_cycles.fp32_add", "clock_mhz"} and len(df) == 4
    assert not df["verdict_changed"].any() and (df["verdict"] == "memory").all()
    add = df[df["field"] == "alu_cycles.fp32_add"]
    assert (add["time_change"] == 0).all()               # one add per item is nowhere near the bound


def test_only_numbers_the_launch_reads_are_tried():
    b = vector_add(n=1 << 12, local=64)
    t = assume(make_target(issuers=1), "local_memory.latency_cycles", "occupancy.barrier_slots_per_cu",
               "alu_cycles.int_div", "simd.issuers_per_cu", "dram.bandwidth_gb_per_s")
    launch = analyze(b.trace(), t).launches[0]
    read = read_fields(launch, t)
    assert "dram.bandwidth_gb_per_s" in read and "alu_cycles.fp32_add" in read and "clock_mhz" in read
    assert "local_memory.latency_cycles" not in read        # no model reads it
    assert "occupancy.barrier_slots_per_cu" not in read     # no barrier in this kernel
    assert "alu_cycles.int_div" not in read                 # never executed
    df = sensitivity(b.trace(), t)
    assert set(df["field"]) == {"simd.issuers_per_cu", "dram.bandwidth_gb_per_s"}
    # one issuer cannot be halved into a valid target: only the doubled variant is run
    assert df[df["field"] == "simd.issuers_per_cu"]["factor"].tolist() == [2.0]
    # not assumed_only: every number read is tried
    assert set(sensitivity(b.trace(), t, assumed_only=False)["field"]) == set(read)


def test_cache_size_variants_replay_the_launch_again():
    """Three 4 KiB arrays read, then the first again by the same load (a second iteration, which
    waits for the first): 12 KiB of reuse fits the 16 KiB L1, not 8 KiB."""
    n = 1024
    b = KernelBuilder("reuse", n, n)
    for site, base in ((0, 0x100000), (1, 0x101000), (2, 0x102000), (0, 0x100000)):
        b.access(site, base + 4 * b.gid)
    b.count(0, "load", 2)
    for site in (1, 2):
        b.count(site, "load", 1)
    t = assume(make_target(cus=1), "caches.L1.size_bytes")
    df = sensitivity(b.trace(), t).set_index("factor")
    assert df.at[0.5, "value"] == 8192 and df.at[2.0, "value"] == 32768
    assert df.at[0.5, "time_change"] != 0                   # the re-read now misses in L1
    assert df.at[2.0, "time_change"] == 0                   # it already fitted


def test_field_paths_read_and_write_copies():
    t = load_target("adreno-640")
    assert value_of(t, "caches.L2.latency_cycles") == 66
    v = with_value(t, "caches.SLC.size_bytes", 1 << 20)
    assert v.cache("SLC").size_bytes == 1 << 20 and t.cache("SLC").size_bytes == 2 << 20
    v = with_value(t, "alu_cycles_fast_math.math_fma", 3.0)
    assert v.alu_cycles_fast_math["math_fma"] == 3.0
    assert t.alu_cycles_fast_math["math_fma"] == 1.0
    # a cache size whose sets would not be whole is skipped, not forced
    odd = replace(t, caches=(replace(t.caches[0], size_bytes=64 * 16 * 3),) + t.caches[1:])
    assert scaled(odd, "caches.L2.size_bytes", 0.5) is None


def test_shipped_target_and_sample_trace():
    """A real case: the G6400's assumed numbers that matter for the tiled transpose."""
    df = sensitivity("sample_traces/transpose_tiled.tkt", "powervr-g6400")
    t = load_target("powervr-g6400")
    assert len(df) and set(df["field"]) <= set(t.assumptions)
    assert set(df["factor"]) == {0.5, 2.0}
    assert (df["base_verdict"] == analyze("sample_traces/transpose_tiled.tkt", t).launches[0].verdict).all()


def test_instruction_rows_are_reduced_once_per_launch_whatever_the_variants(monkeypatch):
    """Every variant prices the same issues per wave: the trace's instruction rows are read once per
    launch, not once per variant (what keeps the report's sensitivity table cheap on long traces)."""
    import analyzers.sensitivity as sens

    calls = []
    real = sens.wave_issues_batches
    monkeypatch.setattr(sens, "wave_issues_batches", lambda *a, **k: calls.append(1) or real(*a, **k))
    trace = vector_add(n=1 << 12, local=64).trace()
    df = sensitivity(trace, "powervr-g6400")
    assert len(df) > 4 and len(calls) == 1
