"""The time model and the verdict, on hand-built traffic numbers (the replay is tested elsewhere)."""

from __future__ import annotations

import pandas as pd
import pytest
from exec_model_helpers import make_target

from analyzers.bound import classify
from analyzers.chains import LoadChains, load_chains
from analyzers.latency import mean_load_latency_s
from analyzers.replay import LevelTraffic, MemoryTraffic
from analyzers.timing import memory_times

T = make_target(cus=4, clock_mhz=1000.0, dram_gbs=100.0, dram_ns=400.0)


def traffic(l1_bytes=0.0, l2_bytes=0.0, dram=0.0, l1=(0, 0), l2=(0, 0), requests=0.0, transactions=0.0,
            local_cycles=0.0):
    return MemoryTraffic(
        levels=(LevelTraffic("L1", "compute_unit", l1_bytes, 64, 20, l1[0], l1[1]),
                LevelTraffic("L2", "shared", l2_bytes, 128, 100, l2[0], l2[1])),
        dram_bytes=dram, load_requests=requests, load_transactions=transactions, local_cycles=local_cycles)


def test_memory_time_per_level_scales_per_unit_levels_with_units_in_use():
    t = memory_times(traffic(l1_bytes=64e3, l2_bytes=128e3, dram=100e3, local_cycles=2000), T, active_cus=2)
    assert t["L1"] == pytest.approx(64e3 / (64 * 2 * 1e9))
    assert t["L2"] == pytest.approx(128e3 / (128 * 1e9))
    assert t["DRAM"] == pytest.approx(100e3 / 100e9)
    assert t["local_memory"] == pytest.approx(2000 / 2 / 1e9)


def test_mean_load_latency_walks_the_levels():
    lat, served = mean_load_latency_s(traffic(l1=(100, 50), l2=(50, 25)), T)
    assert served == pytest.approx({"L1": 0.5, "L2": 0.25, "DRAM": 0.25})
    assert lat == pytest.approx(0.5 * 20e-9 + 0.25 * 100e-9 + 0.25 * 400e-9)


def test_streaming_kernel_with_many_waves_is_memory_bound():
    # 1M items of vector add: 2 loads of 4 B per item, 64-byte transactions, everything from DRAM.
    reqs = 2 * (1 << 20) / 32
    tr = traffic(l1_bytes=12 << 20, l2_bytes=12 << 20, dram=12 << 20, l1=(reqs * 4, 0), l2=(reqs * 4, 0),
                 requests=reqs, transactions=reqs * 2)
    b = classify(alu_s=1e-6, traffic=tr, chains=LoadChains(2, 1), resident_waves=4 * 32, target=T,
                 active_cus=4)
    assert b.verdict == "memory" and b.memory_bottleneck == "DRAM"
    assert b.memory_s == pytest.approx((12 << 20) / 100e9)
    ev = b.evidence
    assert ev["transactions_in_flight_available"] == 4 * 32 * 2 * 2
    assert ev["transactions_in_flight_available"] > ev["transactions_in_flight_needed"]
    assert b.time_s == b.memory_s


def test_dependent_chain_with_one_wave_per_unit_is_latency_bound():
    # 4 waves, each lane chases 1000 dependent pointers; each request hits 32 lines in DRAM.
    reqs = 4 * 1000
    tr = traffic(l1_bytes=reqs * 32 * 64, l2_bytes=reqs * 32 * 64, dram=reqs * 32 * 64,
                 l1=(reqs * 32, 0), l2=(reqs * 32, 0), requests=reqs, transactions=reqs * 32)
    b = classify(alu_s=1e-6, traffic=tr, chains=LoadChains(1000, 1000), resident_waves=4, target=T,
                 active_cus=4)
    # Little's law: 128 transactions in flight at 400 ns -> 1000 steps x 400 ns.
    assert b.verdict == "latency"
    assert b.latency_s == pytest.approx(1000 * 400e-9)
    assert b.evidence["loads_in_flight_per_wave"] == 1.0
    assert b.evidence["transactions_in_flight_available"] < b.evidence["transactions_in_flight_needed"]


def test_arithmetic_heavy_kernel_is_alu_bound():
    tr = traffic(dram=8e3, l1=(256, 0), l2=(256, 0), requests=128, transactions=128, l1_bytes=8e3,
                 l2_bytes=8e3)
    b = classify(alu_s=5e-6, traffic=tr, chains=LoadChains(1, 1), resident_waves=128, target=T, active_cus=4)
    assert b.verdict == "alu" and b.time_s == 5e-6


def test_latency_exceeds_throughput_exactly_when_too_little_is_in_flight():
    tr = traffic(dram=1e6, l1=(1000, 0), l2=(1000, 0), requests=1000, transactions=1000, l1_bytes=1e6,
                 l2_bytes=1e6)
    for waves in (1, 2, 4, 8, 16, 32, 64, 128):
        b = classify(1e-9, tr, LoadChains(1, 1), waves, T, 4)
        short = b.evidence["transactions_in_flight_available"] < b.evidence["transactions_in_flight_needed"]
        assert short == (b.latency_s > max(b.alu_s, b.memory_s))


def test_no_loads_means_no_latency_term():
    b = classify(1e-6, traffic(dram=1e3), LoadChains(0, 0), 10, T, 4)
    assert b.latency_s == 0 and b.verdict == "alu"


def test_load_chains_separate_independent_sites_from_repeats():
    issues = pd.DataFrame({
        "wave": [0, 0, 0, 1, 1, 1],
        "site": [1, 2, 3, 1, 2, 3],
        "opclass": pd.Categorical(["load", "load", "fp32_add"] * 2),
        "issues": [10, 10, 20, 10, 10, 20],
    })
    c = load_chains(issues, {1, 2})
    assert (c.loads_per_wave, c.chain_per_wave, c.loads_in_flight) == (20, 10, 2)
    assert load_chains(issues, {9}).loads_per_wave == 0


def test_sol_verdict_follows_the_nsight_compute_rule():
    from analyzers.bound import SOL_THRESHOLD, sol_verdict
    assert SOL_THRESHOLD == 0.6
    assert sol_verdict(0.59, 0.59) == "latency"       # neither reaches 60 %: waiting, not working
    assert sol_verdict(0.61, 0.59) == "alu"
    assert sol_verdict(0.40, 0.60) == "memory"
    assert sol_verdict(0.9, 0.95) == "memory"         # the busier of the two
    assert sol_verdict(0.5, 0.5, threshold=0.4) == "alu"


def test_schedule_time_dispatch_or_slots_bound():
    from analyzers.timing import Schedule, schedule_time
    # 1000 work-groups on a unit, 32 slots, 80 ns dispatch, 500 ns lifetime: dispatch binds.
    t, rounds = schedule_time(Schedule(1000, 32), 500e-9, 80e-9)
    assert rounds == 32 and t == pytest.approx(1000 * 80e-9 + 500e-9)
    # 2 slots: each slot runs 500 of them in turn, dispatch and lifetime each time.
    t, rounds = schedule_time(Schedule(1000, 2), 500e-9, 80e-9)
    assert rounds == 500 and t == pytest.approx(500 * 580e-9)
    # a partly filled last round costs a whole round (tail)
    assert schedule_time(Schedule(9, 8), 1e-6, 0.0) == (pytest.approx(2e-6), 2)


def test_request_waits_for_its_slowest_transaction():
    from analyzers.latency import request_latency_s
    tr = traffic(l1=(100, 50), l2=(50, 25))   # half from L1 (20 cycles), a quarter L2 (100), a quarter DRAM
    one = request_latency_s(tr, T, 1.0)
    assert one == pytest.approx(mean_load_latency_s(tr, T)[0])
    # four transactions: all from L1 with p = 0.5^4, all within L2 with 0.75^4, else DRAM
    four = request_latency_s(tr, T, 4.0)
    expect = 0.5 ** 4 * 20e-9 + (0.75 ** 4 - 0.5 ** 4) * 100e-9 + (1 - 0.75 ** 4) * 400e-9
    assert four == pytest.approx(expect) and four > one


def test_launch_costs_and_utilisation_in_the_evidence():
    from analyzers.timing import Schedule
    t = make_target(cus=4, clock_mhz=1000.0, dram_gbs=100.0, dram_ns=400.0,
                    launch={"overhead_ns": 1000, "work_group_dispatch_cycles": 40})
    reqs = 4 * 64
    tr = traffic(l1_bytes=reqs * 128, l2_bytes=reqs * 128, dram=reqs * 128, l1=(reqs * 2, 0),
                 l2=(reqs * 2, 0), requests=reqs, transactions=reqs * 2)
    b = classify(1e-7, tr, LoadChains(1, 1), 4 * 8, t, 4, Schedule(64, 8))
    # 64 work-groups, 8 slots: 8 rounds of (40 ns dispatch + 400 ns DRAM round trip) beat
    # 64 dispatches in a row (2.56 us + one lifetime); plus the 1 us launch overhead
    assert b.latency_s == pytest.approx(1e-6 + 8 * 440e-9)
    assert b.time_s == b.latency_s and b.verdict == "latency"
    u = b.evidence["utilization"]
    assert u["alu"] == pytest.approx(1e-7 / b.time_s) and u["DRAM"] == pytest.approx(b.memory_s / b.time_s)
    assert b.evidence["rounds"] == 8 and b.evidence["launch_overhead_s"] == pytest.approx(1e-6)


def test_stores_move_at_their_own_rate():
    """The L2 streams 128 B/cycle of loads here but takes stores at 32: 64 KB loaded and 32 KB
    stored cost 500 + 1000 cycles, not 750."""
    lv = LevelTraffic("L2", "shared", 96e3, 128, 100, 0, 0, store_bytes=32e3,
                      store_bandwidth_bytes_per_cycle=32)
    tr = MemoryTraffic(levels=(lv,), dram_bytes=0.0, load_requests=0.0, load_transactions=0.0)
    assert memory_times(tr, T, active_cus=1)["L2"] == pytest.approx((64e3 / 128 + 32e3 / 32) / 1e9)
    same = MemoryTraffic(levels=(LevelTraffic("L2", "shared", 96e3, 128, 100, 0, 0, store_bytes=32e3),),
                         dram_bytes=0.0, load_requests=0.0, load_transactions=0.0)
    assert memory_times(same, T, active_cus=1)["L2"] == pytest.approx(96e3 / 128 / 1e9)


def test_utilisation_is_a_share_of_the_whole_device():
    """An L1 saturated on 1 of 4 units is a quarter of the device's L1 peak: latency, as Nsight
    says of a grid too small to fill the device; on all 4 units the same share is memory."""
    tr = traffic(l1_bytes=64e3 * 10)
    alone = classify(0.0, tr, LoadChains(0.0, 0.0), resident_waves=1, target=T, active_cus=1)
    assert alone.memory_bottleneck == "L1" and alone.time_s == pytest.approx(10e-6)
    assert alone.evidence["utilization"]["L1"] == pytest.approx(0.25)
    assert alone.verdict == "latency"
    spread = classify(0.0, traffic(l1_bytes=64e3 * 40), LoadChains(0.0, 0.0), resident_waves=4, target=T,
                      active_cus=4)
    assert spread.verdict == "memory" and spread.evidence["utilization"]["L1"] == pytest.approx(1.0)


def test_sustained_bandwidth_counts_its_share_of_peak():
    lv = LevelTraffic("L2", "shared", 128e3, 128, 100, 0, 0, sustained_share=0.5)
    tr = MemoryTraffic(levels=(lv,), dram_bytes=0.0, load_requests=0.0, load_transactions=0.0)
    b = classify(0.0, tr, LoadChains(0.0, 0.0), resident_waves=1, target=T, active_cus=4)
    assert b.time_s == pytest.approx(1e-6) and b.evidence["utilization"]["L2"] == pytest.approx(0.5)
    assert b.verdict == "latency"


def test_dependent_issue_floor_binds_below_the_latency_in_waves():
    """One wave per scheduler at a 4-cycle dependent latency issues every 4 cycles: 1000 slots
    take 4000 cycles; with 8 waves per scheduler the floor falls below the issue time."""
    from dataclasses import replace

    from analyzers.alu import AluResult, dependent_issue_s
    tgt = replace(T, simd=replace(T.simd, issuers_per_cu=4, dependent_issue_cycles=4.0))
    alu = AluResult(4000.0, 4000.0, 1, 4, 1e-6, False, (), pd.DataFrame(), slots_busiest_cu=4000.0)
    assert dependent_issue_s(alu, 4.0, tgt) == pytest.approx(4000 / 4 * 4 / 1 / 1e9)
    assert dependent_issue_s(alu, 32.0, tgt) == pytest.approx(1000 * 4 / 8 / 1e9)
    assert dependent_issue_s(alu, 4.0, T) == 0.0           # a target without the figure
    b = classify(1e-6, traffic(), LoadChains(0.0, 0.0), resident_waves=4, target=tgt, active_cus=1,
                 issue_s=dependent_issue_s(alu, 4.0, tgt))
    assert b.verdict == "latency" and b.time_s == pytest.approx(4e-6)
    assert b.evidence["dependent_issue_s"] == pytest.approx(4e-6)


def test_evidence_is_typed_and_reads_as_the_documents_flat_names():
    """Attributes and the JSON names agree; the slot walk's fields are flattened into the document,
    and the launch figures analyze_launch adds are left out until set."""
    from dataclasses import replace

    from analyzers.timing import Schedule

    reqs = 2 * (1 << 20) / 32
    tr = traffic(l1_bytes=12 << 20, l2_bytes=12 << 20, dram=12 << 20, l1=(reqs * 4, 0), l2=(reqs * 4, 0),
                 requests=reqs, transactions=reqs * 2)
    b = classify(alu_s=1e-6, traffic=tr, chains=LoadChains(2, 1), resident_waves=4 * 32, target=T,
                 active_cus=4, schedule=Schedule(work_groups_per_unit=8, resident_work_groups=2))
    ev = b.evidence
    doc = ev.to_dict()
    assert doc["memory_bottleneck"] == ev.memory_bottleneck == "DRAM"
    assert doc["rounds"] == ev.slots.rounds == 4 and "slots" not in doc
    assert doc["utilization"] == ev.utilization and doc["utilization"] is not ev.utilization
    assert "occupancy" not in doc and ev.get("occupancy") is None
    assert dict(ev) == doc and len(ev) == len(doc)
    full = replace(ev, occupancy=0.5, active_compute_units=4)
    assert full["occupancy"] == 0.5 and full.to_dict()["active_compute_units"] == 4
    assert "simd_utilization" not in full
    without = classify(alu_s=1e-6, traffic=tr, chains=LoadChains(2, 1), resident_waves=4 * 32, target=T,
                       active_cus=4).evidence
    assert without.slots is None and "rounds" not in without.to_dict()
