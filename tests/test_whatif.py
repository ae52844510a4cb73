"""What-if replay: each fix applied to the trace and replayed, with answers known in advance."""

from __future__ import annotations

import json

import pytest
from rules_helpers import KernelBuilder

import analyzers
from analyzers.rules import run_rules
from analyzers.whatif import parse_change
from analyzers.whatif.changes import Coalesce, Combined, PadLocal, WorkGroupSize
from tracekit import pipeline
from tracekit.errors import TracekitError
from tracekit.formats import open_trace
from tracekit.targets import load_target

INTEL = "intel-hd530"      # SLM: 16 banks of 4 bytes, 16 lanes a cycle


def column_reads(reads: int = 32) -> KernelBuilder:
    """A local 16 x 16 float tile written by rows and read by columns ``reads`` times per item:
    the 16 lanes of a slice read one bank 16 times (a 16-way conflict)."""
    k = KernelBuilder(4096, 256, local_mem_bytes=1024)
    k.load(1, lambda i: 4 * i.gid)
    k.store(2, lambda i: 4 * i.lid, space="local")
    k.ops(3, "barrier")
    for c in range(reads):
        k.load(4, lambda i, c=c: 4 * ((i.lid % 16) * 16 + (i.lid // 16 + c) % 16), space="local")
    k.store(5, lambda i: 4 * i.gid, buffer=1)
    return k


def test_padding_a_16_way_conflict_gives_the_bank_time_difference_exactly():
    (w,) = analyzers.what_if(column_reads().trace(), INTEL, "pad-local=64:4")
    before, after = w.before, w.after
    t = load_target(INTEL)
    site = lambda r: r.memory.per_site.set_index("site").loc[4]     # noqa: E731  (the column read)
    assert site(before)["conflict_degree_mean"] == pytest.approx(16.0)
    assert site(after)["conflict_degree_mean"] == pytest.approx(1.0)
    store = before.memory.per_site.set_index("site").loc[2, "local_cycles"]
    assert after.memory.per_site.set_index("site").loc[2, "local_cycles"] == store
    cycles_b, cycles_a = before.memory.local_memory.cycles, after.memory.local_memory.cycles
    assert cycles_b - cycles_a == pytest.approx(15 / 16 * site(before)["local_cycles"])
    levels_b = before.time_estimates["memory_levels_s"]
    levels_a = after.time_estimates["memory_levels_s"]
    assert levels_b["local_memory"] / levels_a["local_memory"] == pytest.approx(cycles_b / cycles_a)
    assert before.time_estimates["memory_bottleneck"] == "local_memory"
    # the launch loses exactly the bank time, down to the next bound
    rest = max(before.time_estimates["alu_s"], before.time_estimates["latency_s"],
               *(v for k, v in levels_b.items() if k != "local_memory"))
    expected = levels_b["local_memory"] - max(levels_a["local_memory"], rest)
    assert w.time_before_s - w.time_after_s == pytest.approx(expected, rel=1e-9)
    assert after.geometry.local_mem_bytes == 1024 + 16 * 4          # 16 rows grew by one word each
    assert t.local_memory.banks == 16


def test_the_checklist_takes_its_gain_from_the_replay():
    trace = column_reads().trace()
    analysis = pipeline.analyze(trace, [INTEL])
    (f,) = [f for f in analysis.findings if f.rule_id == "GEN-LOCAL-BANK-CONFLICT"]
    (w,) = analyzers.what_if(trace, INTEL, f.change)
    assert f.change == PadLocal(64, 4, None)
    assert f.gain_method == "replay" and f.what_if["change"] == "pad-local=64:4"
    total = analysis.results[0].launches[0].time_estimates["total_s"]
    assert f.estimated_gain_fraction == pytest.approx(w.gain_fraction, rel=1e-5)
    assert f.estimated_gain_s == pytest.approx(w.gain_fraction * total, rel=1e-5)
    assert f.severity == "high" and f.kind == "finding"


def test_coalescing_a_strided_copy_reaches_the_ideal():
    k = KernelBuilder(4096, 64)
    k.load(1, lambda i: 4 * 16 * i.gid)
    k.store(2, lambda i: 4 * i.gid, buffer=1)
    (w,) = analyzers.what_if(k.trace(), "nvidia-h200", Coalesce(0))
    b = w.before.memory.per_site.set_index("site").loc[1]
    a = w.after.memory.per_site.set_index("site").loc[1]
    assert b["transactions_per_request"] == pytest.approx(32.0)          # 32 lanes, 32 sectors
    assert a["transactions_per_request"] == pytest.approx(4.0)           # 128 bytes: 4 sectors
    assert w.gain_fraction >= 0                                          # a launch this small waits
    (slow,) = analyzers.what_if(k.trace(), "powervr-g6400", Coalesce(0))   # DRAM-bound there
    assert slow.verdict_before == "memory" and slow.gain_fraction > 0.5


def test_vector_loads_merge_four_neighbours_into_one():
    k = KernelBuilder(2048, 64)
    for j in range(4):
        k.load(1 + j, lambda i, j=j: 16 * i.gid + 4 * j)
    k.store(9, lambda i: 4 * i.gid, buffer=1)
    (w,) = analyzers.what_if(k.trace(), "adreno-640", "vector-loads")
    before = w.before.memory.per_site.set_index("site")
    after = w.after.memory.per_site.set_index("site")
    assert set(before.index) == {1, 2, 3, 4, 9} and set(after.index) == {1, 9}
    assert after.loc[1, "accesses"] == before.loc[1, "accesses"]
    assert after.loc[1, "bytes_requested"] == 4 * before.loc[1, "bytes_requested"]
    loads = lambda r: r.simd.per_site.query("opclass == 'load'")["issues"].sum()   # noqa: E731
    assert loads(w.after) * 4 == loads(w.before) - loads(w.before) % 4 or loads(w.after) < loads(w.before)


def test_dropping_a_copy_that_keeps_reads_coalesced_is_refused():
    trace = open_trace("sample_traces/transpose_tiled.tkt")
    (w,) = analyzers.what_if(trace, "nvidia-h200", "drop-staging")
    why = parse_change("drop-staging").side_effect(w.before, w.after)
    assert why and "coalesced" in why
    analysis = pipeline.analyze(trace, ["nvidia-h200", "intel-hd530", "powervr-g6400"])
    assert not [f for f in analysis.findings if f.rule_id == "GEN-LOCAL-READ-ONCE"]


def test_a_fix_the_replay_finds_slower_does_not_fire():
    # matmul_naive's 16 x 16 work-groups on a 64-wide Adreno wave: the whole-wave shape the rule
    # proposes (64 x 4) replays slower, so the finding goes
    trace = open_trace("sample_traces/matmul_naive.tkt")
    (w,) = analyzers.what_if(trace, "adreno-740", "work-group=64,4")
    assert w.gain_fraction < 0
    result = analyzers.analyze(trace, "adreno-740")
    assert "ADR-WG-WAVE-MULTIPLE" in {f.rule_id for f in run_rules(result)}
    priced = pipeline.analyze(trace, ["adreno-740"]).findings
    assert "ADR-WG-WAVE-MULTIPLE" not in {f.rule_id for f in priced}


def test_work_group_size_regroups_items_and_fills_waves():
    k = KernelBuilder(3072, 48)
    k.load(1, lambda i: 4 * i.gid)
    k.ops(2, "fp32_fma", count=64)
    k.store(3, lambda i: 4 * i.gid, buffer=1)
    (w,) = analyzers.what_if(k.trace(), "nvidia-h200", WorkGroupSize((64, 1, 1)))
    assert w.before.geometry.work_group_size == 48 and w.after.geometry.work_group_size == 64
    assert w.before.simd.partial_wave_utilization == pytest.approx(48 / 64)
    assert w.after.simd.partial_wave_utilization == pytest.approx(1.0)
    assert w.after.memory.memory.requests < w.before.memory.memory.requests


def test_native_math_reprices_the_builtins_that_have_native_versions():
    k = KernelBuilder(1024, 64)
    k.load(1, lambda i: 4 * i.gid)
    k.ops(2, "math_sin", count=8)
    k.ops(3, "math_fabs", count=8)          # no native_fabs: stays as it is
    k.store(4, lambda i: 4 * i.gid, buffer=1)
    t = load_target("powervr-g6400")
    (w,) = analyzers.what_if(k.trace(), t, "native-math")
    classes = set(w.after.simd.per_site["opclass"])
    assert "math_native_sin" in classes and "math_sin" not in classes and "math_fabs" in classes
    cyc = lambda r, c: r.alu.per_site.query("opclass == @c")["alu_cycles"].sum()   # noqa: E731
    ratio = t.alu_cycles["math_native_sin"] / t.alu_cycles["math_sin"]
    assert cyc(w.after, "math_native_sin") == pytest.approx(cyc(w.before, "math_sin") * ratio)


def test_fixes_that_tie_are_credited_together():
    """Two bottlenecks of one size: each fix alone changes nothing; together they save time."""
    from test_report_fixtures import sample_trace
    trace = sample_trace()
    alone = [analyzers.what_if(trace, INTEL, c)[0] for c in ("pad-local=64:4", "coalesce=1")]
    assert all(abs(w.gain_fraction) < 1e-9 for w in alone)
    (both,) = analyzers.what_if(trace, INTEL, Combined((PadLocal(64, 4), Coalesce(1))))
    assert both.gain_fraction > 0.1
    found = {f.rule_id: f for f in pipeline.analyze(trace, [INTEL]).findings}
    for rid in ("GEN-LOCAL-BANK-CONFLICT", "GEN-UNCOALESCED-STORE"):
        f = found[rid]
        assert f.kind == "finding" and f.what_if["with_the_other_fixes"]
        assert f.estimated_gain_fraction == pytest.approx(both.gain_fraction, rel=1e-5)


def test_long_launches_replay_a_head_of_whole_work_groups():
    trace = open_trace("sample_traces/vector_add.tkt")
    (w,) = analyzers.what_if(trace, "nvidia-h200", "work-group=128", max_accesses=20_000)
    assert w.groups_replayed < w.groups_total
    assert w.before.geometry.sample_scale > 1 and w.after.geometry.work_group_size == 128


@pytest.mark.parametrize("spec,message", [
    ("pad-lokal=64:4", "unknown what-if change"), ("pad-local=64", "expected 2 to 3 numbers"),
    ("pad-local=64:x", "whole numbers"), ("coalesce", "expected 1 to 1"), ("fast-math=3", "takes no value"),
    ("work-group=0", "positive"), ("vector-loads=12", "vector width")])
def test_bad_changes_are_named(spec, message):
    with pytest.raises(TracekitError, match=message):
        parse_change(spec)


def test_cli_what_if(tmp_path, run_cli):
    out = tmp_path / "w.json"
    r = run_cli("analyze", "sample_traces/transpose_tiled.tkt", "-t", INTEL, "--what-if",
                "pad-local=64:4", "-f", "json", "-o", str(out))
    assert r.code == 0, r.err
    doc = json.loads(out.read_text())
    assert doc["format"] == "tracekit-what-if" and doc["change"] == "pad-local=64:4"
    (row,) = doc["targets"][INTEL]
    assert row["time_after_s"] < row["time_before_s"]
    r = run_cli("analyze", "sample_traces/transpose_tiled.tkt", "-t", INTEL, "--what-if", "pad=1")
    assert r.code == 2 and "unknown what-if change 'pad'" in r.err and "Traceback" not in r.err


def test_pad_pitch_remaps_every_row_of_the_buffer_and_nothing_else():
    """Lanes each walking their own row of a 2048-byte pitch: padding the rows by 128 bytes moves row r
    by 128 r bytes and leaves the other buffer where it was."""
    from analyzers.whatif.replay import head_of_launch

    k = KernelBuilder(256, 64)
    for j in range(4):
        k.load(1, lambda i, j=j: 2048 * i.gid + 4 * j, buffer=0)
    k.store(2, lambda i: 4 * i.gid, buffer=1)
    trace = k.trace()
    (geo,), _ = analyzers.geometry.launch_geometries(trace)
    launch = head_of_launch(trace, geo)
    change = parse_change("pad-pitch=0:2048:128")
    assert change.spec == "pad-pitch=0:2048:128" and change.speculative
    after = change.apply(launch, load_target("powervr-g6400")).accesses
    before = launch.accesses
    a = before[before["buffer"] == 0]
    moved = after.loc[a.index, "address"].astype("int64") - a["address"].astype("int64")
    row = (a["address"].astype("int64") - int(a["address"].min())) // 2048
    assert (moved == 128 * row).all()
    other = before["buffer"] == 1
    assert (after.loc[other, "address"] == before.loc[other, "address"]).all()


def test_single_precision_parses_its_sites():
    change = parse_change("fp32=15,37")
    assert change.widening_sites == (15, 37) and change.spec == "fp32=15,37" and not change.needs_replay
    assert parse_change("fp32").spec == "fp32"
    with pytest.raises(TracekitError, match="pitch and pad bytes must be positive"):
        parse_change("pad-pitch=0:0:64")


def test_replays_share_the_head_and_the_unchanged_replay(monkeypatch):
    """Pricing several fixes on several targets reads a launch's head once, replays it unchanged once
    per target, and replays again only the fixes that move accesses; the answers are what_if's."""
    import analyzers.whatif.replay as rp

    heads, replays = [], []
    real_head, real_one = rp.head_of_launch, rp._analyze_one
    monkeypatch.setattr(rp, "head_of_launch", lambda *a, **k: heads.append(1) or real_head(*a, **k))
    monkeypatch.setattr(rp, "_analyze_one", lambda *a, **k: replays.append(1) or real_one(*a, **k))
    trace = open_trace("sample_traces/transpose_tiled.tkt")
    shared = rp.Replays(trace)
    changes = ("pad-local=64:4", "fast-math", "native-math")
    got = {(t, c): shared.run(t, c, 0) for t in (INTEL, "powervr-g6400") for c in changes}
    assert len(heads) == 1
    assert len(replays) == 2 * (1 + 1)       # per target: the unchanged head and the padded one
    for (t, c), w in got.items():
        (alone,) = monkeypatch.undo() or analyzers.what_if(trace, t, c)
        assert (w.time_before_s, w.time_after_s, w.verdict_after) == \
            (alone.time_before_s, alone.time_after_s, alone.verdict_after)


def test_a_checklist_with_nothing_to_replay_does_not_read_the_trace_again(monkeypatch):
    import analyzers.whatif.replay as rp
    from analyzers.rules.gains import price_by_replay

    trace = open_trace("sample_traces/too_small_grid.tkt")
    result = analyzers.analyze(trace, "powervr-g6400")
    findings = run_rules(result)
    assert findings and all(f.change is None for f in findings)
    monkeypatch.setattr(rp, "head_of_launch", lambda *a, **k: pytest.fail("the trace was read again"))
    assert price_by_replay(findings, [result], trace) == findings
