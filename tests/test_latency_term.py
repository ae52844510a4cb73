"""The latency term's parts: the slowest of a request's lines, DRAM under load, the slowest wave of
a work-group, and loads that find their line still being filled (analyzers/latency.py, replay/inflight.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from exec_model_helpers import make_target

from analyzers.bound import classify
from analyzers.chains import LoadChains, load_chains
from analyzers.latency import dram_queue_s, mean_load_latency_s, request_latency_s, slowest_of
from analyzers.replay import LevelTraffic, MemoryTraffic
from analyzers.replay.inflight import FillTracker, occurrences
from analyzers.timing import Schedule
from tracekit.targets import load_target

H = [sum(1.0 / i for i in range(1, k + 1)) for k in range(33)]


def traffic(l1=(0, 0), l2=(0, 0), requests=1.0, transactions=1.0, lines=0.0, waits=None, dram=0.0):
    return MemoryTraffic(
        levels=(LevelTraffic("L1", "compute_unit", 0.0, 64, 20, l1[0], l1[1]),
                LevelTraffic("L2", "shared", 0.0, 128, 100, l2[0], l2[1])),
        dram_bytes=dram, load_requests=requests, load_transactions=transactions, load_lines=lines,
        fill_waits=dict(waits or {}))


def test_slowest_of_k_dram_lines_is_the_harmonic_order_statistic():
    """All from DRAM, one transaction per line: base + tail x H_k, the expected max of k exponentials."""
    base, tail = 227e-9, 88e-9
    for k in (1, 2, 4, 8, 16, 32):
        got = slowest_of(k, 1.0, [], (1.0, base, tail))
        assert got == pytest.approx(base + tail * H[k], rel=2e-3), k


def test_transactions_of_one_line_share_its_dram_fetch():
    one_line = slowest_of(1, 4.0, [], (1.0, 227e-9, 88e-9))
    four_lines = slowest_of(4, 1.0, [], (1.0, 227e-9, 88e-9))
    assert one_line == pytest.approx(315e-9, rel=2e-3)
    assert four_lines == pytest.approx(227e-9 + 88e-9 * H[4], rel=2e-3)


def test_fixed_latencies_give_the_closed_form():
    """Without tails the integral is the c_i^k walk: done at L1 with 0.5^k, else L2, else DRAM."""
    k = 3
    got = slowest_of(k, 1.0, [(0.5, 20e-9, 0.0), (0.25, 100e-9, 0.0)], (0.25, 400e-9, 0.0))
    closed = 0.5 ** k * 20e-9 + (0.75 ** k - 0.5 ** k) * 100e-9 + (1 - 0.75 ** k) * 400e-9
    assert got == pytest.approx(closed, rel=1e-3)
    tr = traffic(l1=(100, 50), l2=(50, 25), requests=1, transactions=k)
    assert request_latency_s(tr, make_target(), k) == pytest.approx(closed)


def test_h200_lone_and_scattered_dram_requests_match_the_probe():
    """chase_lines.csv: 315 ns for one line, 585 ns for 32 scattered lines, from the target's two numbers."""
    h200 = load_target("nvidia-h200")
    levels = tuple(LevelTraffic(c.name, c.scope, 0.0, 128, c.latency_cycles, 100, 0) for c in h200.caches)
    lone = MemoryTraffic(levels=levels, dram_bytes=0, load_requests=100, load_transactions=100,
                         load_lines=100)
    scattered = replace(lone, load_transactions=3200, load_lines=3200)
    assert request_latency_s(lone, h200, 1.0) == pytest.approx(315e-9, rel=0.01)
    assert request_latency_s(scattered, h200, 32.0) == pytest.approx(585e-9, rel=0.02)
    measured = pd.read_csv(Path(__file__).parent / "data" / "h200_real" / "chase_lines.csv")
    dram = measured[measured["working_set_bytes"] == 128 << 20].groupby("lanes")["ns_per_step"].median()
    for k in (2, 4, 8, 16):
        model = request_latency_s(replace(lone, load_transactions=100 * k, load_lines=100 * k), h200, k)
        assert model * 1e9 == pytest.approx(dram[k], rel=0.03), k


def test_dram_delay_grows_with_its_busy_share_and_is_absent_elsewhere():
    h200 = load_target("nvidia-h200")
    assert dram_queue_s(h200, 0.0) == 0.0
    full = (h200.dram.loaded_latency_ns - h200.dram.latency_ns) * 1e-9
    assert dram_queue_s(h200, 0.05) == pytest.approx(full * (1 - np.exp(-1)))
    assert dram_queue_s(h200, 0.5) == pytest.approx(full, rel=1e-3)
    assert dram_queue_s(make_target(), 0.5) == 0.0


def test_loaded_latency_is_solved_with_the_launch_time():
    """A streaming launch: the latency term sets T, and DRAM's busy share dram_s / T sets the delay."""
    t = make_target(dram_gbs=100.0, dram_ns=300.0)
    t = replace(t, dram=replace(t.dram, loaded_latency_ns=600.0, loaded_busy_share=0.05))
    tr = traffic(requests=1000, transactions=1000, lines=1000, dram=1e5)
    chains = LoadChains(1.0, 1000.0)
    b = classify(0.0, tr, chains, resident_waves=1, target=t, active_cus=1)
    ev = b.evidence
    busy = ev["dram_busy_share"]
    assert busy == pytest.approx(b.memory_s / b.time_s, rel=1e-6)
    assert ev["dram_load_delay_ns"] == pytest.approx(300 * (1 - np.exp(-busy / 0.05)), rel=1e-6)
    assert b.latency_s == pytest.approx(1000 * (300e-9 + ev["dram_load_delay_ns"] * 1e-9), rel=1e-3)
    idle = classify(0.0, tr, chains, resident_waves=1, target=make_target(dram_gbs=100.0, dram_ns=300.0),
                    active_cus=1)
    assert idle.latency_s == pytest.approx(1000 * 300e-9) and b.latency_s > idle.latency_s


def test_uneven_loops_take_the_slowest_wave():
    """Two work-groups of two waves; chains 10, 2 | 4, 4: the launch waits for the 10."""
    iss = pd.DataFrame({"wave": [0, 1, 2, 3], "site": [5] * 4, "opclass": ["load"] * 4,
                        "issues": [10, 2, 4, 4]})
    ch = load_chains(iss, {5}, group_of=lambda w: w // 2)
    assert ch.chain_per_wave == 5.0 and ch.group_chain == 7.0 and ch.longest_chain == 10.0
    tr = traffic(requests=20, transactions=20, dram=0.0)
    b = classify(0.0, tr, ch, resident_waves=4, target=make_target(dram_ns=400.0), active_cus=1,
                 schedule=Schedule(work_groups_per_unit=2, resident_work_groups=2))
    assert b.evidence["wave_lifetime_s"] == pytest.approx(7 * 400e-9)
    assert b.evidence["slowest_wave_lifetime_s"] == pytest.approx(10 * 400e-9)
    assert b.latency_s == pytest.approx(10 * 400e-9)


def test_hits_on_lines_being_filled_are_served_at_dram():
    tr = traffic(l1=(100, 80), l2=(20, 10), waits={"L1": 30, "L2": 5})
    lat, served = mean_load_latency_s(tr, make_target())
    assert served["L1"] == pytest.approx(0.5) and served["L2"] == pytest.approx(0.2 * 0.25)
    assert served["DRAM"] == pytest.approx(0.3 + 0.2 * 0.25 + 0.1)
    assert sum(served.values()) == pytest.approx(1.0)


def test_fill_tracker_counts_same_step_hits_and_lines():
    """Requests (in their waves' order): r0 and r1 of wave 0 (the site's first and second
    occurrence), r2 of wave 1 on the same unit, r3 of wave 2 on another unit; lines of 128 B."""
    t = FillTracker(line_bytes=128, compute_units=2)
    units = np.array([0, 32, 0, 0, 0, 256], np.int64)   # r0: units 0, 32 (line 0); r1, r2: 0; r3: 0, 256
    unit_ptr = np.array([0, 2, 3, 4, 6], np.int64)
    req_wave = np.array([0, 0, 1, 2], np.int64)
    rq_site = np.array([7, 7, 7, 7], np.int64)
    cu = np.array([0, 0, 0, 1], np.int64)
    wave_vgroup = np.array([0, 0, 1], np.int64)          # all in round 0 (two units)
    ex = np.array([0, 2, 3, 1], np.int64)                # iteration 0 of every wave, then r1
    t.add(ex, np.ones(4, bool), units, unit_ptr, cu, req_wave, wave_vgroup, rq_site)
    c = t.counts()
    assert c["load_requests"] == 4
    assert c["load_lines"] == 1 + 1 + 2 + 1
    assert c["fill_waits_same_unit"] == 1    # r2 asks for unit 0 while r0's fill is on its way
    assert c["fill_waits_other_unit"] == 1   # r3 too, from the other unit
    # r1, the next iteration of wave 0, finds unit 0 in place: a hit, no wait


def test_occurrences_count_per_wave_and_site():
    occ = occurrences(np.array([0, 0, 0, 1, 1]), np.array([3, 4, 3, 3, 3]), 4)
    assert occ.tolist() == [0, 0, 1, 0, 1]


def _row_walk(iterations=16, lanes=32, pitch=4096, extra_site=False):
    """One wave whose lanes each walk their own row of floats in step (atax's first kernel)."""
    from test_memory_replay import accesses

    def per_item(g, i):
        out = [(1, "global", "load", (1 << 24) + i * pitch + 4 * k, 4) for k in range(iterations)]
        if extra_site:  # a broadcast load beside it, every iteration: x[k]
            x = [(2, "global", "load", (1 << 26) + 4 * k, 4) for k in range(iterations)]
            out = [r for k in range(iterations) for r in (out[k], x[k])]
        return out
    return accesses(per_item, 1, lanes)


def test_replay_tallies_steps_by_their_farthest_level():
    """32 lanes walking rows: each request touches 32 lines, and all of them miss the L1 together
    every 8 floats (a 32-byte sector) while the 7 iterations between hit it on every lane.  The
    L2 fetches 64 bytes, so the first of the two sectors waits for DRAM and the second finds the
    L2 (as the H200's row walks do: ncu_raw.csv ID 2, 50 % L2 hits, DRAM twice the misses)."""
    from analyzers.replay.memory import replay_memory
    h200 = load_target("nvidia-h200")
    f = replay_memory(_row_walk(), h200, patterns=False).fills[0]
    assert f["depth_requests"] == [14, 1, 1]          # L1, L2, DRAM
    assert f["depth_lines"] == [14 * 32, 32, 32]
    # a second load site issued at the same steps: a step lasts as long as its slowest request
    f2 = replay_memory(_row_walk(extra_site=True), h200, patterns=False).fills[0]
    assert sum(f2["depth_requests"]) == 16
    assert f2["depth_requests"][2] >= 1 and f2["load_requests"] == 32


def test_steps_take_their_farthest_level_not_independent_draws():
    """The same hit rate (7 of 8 lane lookups in L1) priced two ways: drawn independently,
    nearly every 32-line request waits for DRAM; tallied, one step in eight does."""
    h200 = load_target("nvidia-h200")
    clock = h200.clock_mhz * 1e6
    l1 = LevelTraffic("L1", "compute_unit", 0.0, 128, 40, 512.0, 448.0)
    l2 = LevelTraffic("L2", "shared", 0.0, 4020, 290, 64.0, 0.0)
    drawn = MemoryTraffic(levels=(l1, l2), dram_bytes=0.0, load_requests=16.0, load_transactions=512.0,
                          load_lines=512.0)
    tallied = replace(drawn, depth_requests={"L1": 14.0, "DRAM": 2.0},
                      depth_lines={"L1": 448.0, "DRAM": 64.0})
    dram_base = h200.dram.latency_ns * 1e-9 - h200.dram.latency_tail_ns * 1e-9
    slowest32 = dram_base + h200.dram.latency_tail_ns * 1e-9 * H[32]
    want = 14 / 16 * 40 / clock + 2 / 16 * slowest32
    assert request_latency_s(tallied, h200, 32.0) == pytest.approx(want, rel=2e-3)
    assert request_latency_s(drawn, h200, 32.0) > 4 * want


@pytest.mark.parametrize("name", ["adreno-640", "powervr-gx6650", "intel-hd530", "nvidia-h200"])
def test_depth_levels_are_named_as_the_target_numbers_them(name):
    """A cold stream of buffer reads waits for DRAM on every step, on targets with texture caches
    (numbered first) as on those without."""
    from test_memory_replay import accesses

    from analyzers.replay.memory import replay_memory
    from analyzers.replay.memory_adapter import launch_memory
    df = accesses(lambda g, i: [(1, "global", "load", (1 << 24) + 4 * (64 * g + i), 4)], 4, 64)
    t = load_target(name)
    mem = launch_memory(replay_memory(df, t, patterns=False), t, 1.0, 0)
    assert set(mem.traffic.depth_requests) == {"DRAM"}
    assert request_latency_s(mem.traffic, t, 1.0) >= 0.999 * t.dram.latency_ns * 1e-9


def test_batched_loop_loads_overlap_after_their_remainder():
    """A loop the recorder marked ``batched`` (no store, barrier or chase in it): of n issues,
    n mod unroll run one round trip each and the rest go in bodies of 16, 8 and 4 iterations,
    a body of b taking (ratio + b) / (ratio + 1) round trips; other sites keep one round trip
    per issue, and the chain is the wave's longest."""
    from analyzers.chains import BatchPlan, batched_overlap, batched_rounds

    h200 = load_target("nvidia-h200")
    plan = BatchPlan.from_target(h200)
    # f = 2.7 for loops of full 16-iteration bodies: ratio = 16 * 1.7 / 13.3
    assert plan == BatchPlan(4, 16, pytest.approx(16 * 1.7 / 13.3))
    r = plan.ratio
    assert 32 / float(batched_rounds(np.array([32]), 4, 16, r)[0]) == pytest.approx(2.7)
    # 318 = 2 single + 316 = 19 bodies of 16, one of 8, one of 4
    assert batched_rounds(np.array([318]), 4, 16, r)[0] == pytest.approx(2 + (21 * r + 316) / (r + 1))
    # 3 iterations: all remainder; 12: one body of 8 and one of 4
    assert batched_rounds(np.array([3, 12]), 4, 16, r).tolist() == pytest.approx([3, (2 * r + 12) / (r + 1)])

    issues = pd.DataFrame({"wave": [0, 0, 0, 1, 1], "site": [5, 6, 7, 5, 6],
                           "opclass": ["load"] * 5, "issues": [318, 318, 4, 9, 9]})
    plain = load_chains(issues, [5, 6, 7])
    assert plain.chain_per_wave == pytest.approx((318 + 9) / 2)
    overlap = batched_overlap({5: "batched", 6: "address", 7: "batched"}, h200)
    assert overlap == {5: plan, 7: plan}
    # site 6 (not batched) keeps its 318 round trips: the chain is 318
    assert load_chains(issues, [5, 6, 7], overlap=overlap).chain_max == pytest.approx(318)
    only5 = load_chains(issues[issues["site"] != 6], [5, 7], overlap=overlap)
    w0 = batched_rounds(np.array([318]), 4, 16, r)[0]
    w1 = 1 + (r + 8) / (r + 1)  # 9 = 1 single + one body of 8
    assert only5.chain_max == pytest.approx(w0)
    assert only5.chain_per_wave == pytest.approx((w0 + w1) / 2)
    assert only5.loads_per_wave == plain.loads_per_wave - (318 + 9) / 2  # issues are not scaled
    # a target without the factor leaves the chain alone
    assert batched_overlap({5: "batched"}, load_target("adreno-640")) == {}


def test_batched_overlap_must_be_at_least_one(tmp_path):
    from tracekit.errors import TargetError

    text = (Path(__file__).resolve().parents[1] / "tracekit" / "targets" / "nvidia-h200.toml").read_text()
    bad = text.replace("batched_load_overlap = { value = 2.7", "batched_load_overlap = { value = 0.5")
    assert bad != text
    path = tmp_path / "bad.toml"
    path.write_text(bad)
    with pytest.raises(TargetError, match="batched_load_overlap"):
        load_target(str(path))


def test_a_wave_lifetime_includes_issuing_its_own_instructions():
    """Each wave's lifetime in the schedule is its load round trips plus its own instructions
    issued one per dependent-issue latency: 2000 instructions per wave at 4.15 cycles and
    1980 MHz add 4.19 us to every round."""
    from analyzers.alu import AluResult, wave_issue_s

    h200 = load_target("nvidia-h200")
    alu = AluResult(cycles=0.0, cycles_busiest_cu=0.0, active_cus=1, issuers_used=4, time_s=0.0,
                    fast_math=False, priced_by_fallback=(), per_site=pd.DataFrame(), instructions=2000.0 * 64)
    per_wave = wave_issue_s(alu, 64, h200)
    assert per_wave == pytest.approx(2000 * 4.15 / 1.98e9)
    assert wave_issue_s(alu, 64, load_target("adreno-640")) == 0.0  # no dependent-issue figure
    tr = traffic(l1=(100, 100), requests=100.0, transactions=100.0)
    chains = LoadChains(loads_per_wave=1.0, chain_per_wave=1.0)
    sched = Schedule(work_groups_per_unit=4, resident_work_groups=1)
    base = classify(0.0, tr, chains, 1.0, h200, 1, sched)
    more = classify(0.0, tr, chains, 1.0, h200, 1, sched, wave_issue_s=per_wave)
    assert more.evidence["wave_lifetime_s"] == pytest.approx(base.evidence["wave_lifetime_s"] + per_wave)
    assert more.latency_s == pytest.approx(base.latency_s + 4 * per_wave)
