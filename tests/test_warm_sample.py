"""Sampled recordings: the whole grid's footprint, and replays at steady state
(analyzers.replay.warm_sample)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from analyzers.analyze import analyze
from tracekit.errors import TraceFormatError
from tracekit.formats import open_trace
from tracekit.recorder import record_kernel, toolchain
from tracekit.trace.footprint import BufferFootprint, LaunchFootprint, decode, encode, launch_footprint
from tracekit.trace.store import TraceWriter, conform

KERNELS = Path(__file__).resolve().parent.parent / "sample_traces" / "kernels"
N_MM = 128          # 64 KiB matrices: everything fits the H200's L2, rows and columns are re-read
N_COPY = 1 << 18    # 1 MiB vectors, each read or written once
N_TRANSPOSE = 512   # 1 MiB matrices: the output is written a column of lines at a time


@pytest.fixture(scope="module", autouse=True)
def built():
    toolchain.plugin_path()
    toolchain.host_path()


def _record(tmp, kernel_file, kernel, glob, local, args, sample):
    out = tmp / f"{kernel}_{sample.replace(':', '_')}.tkt"
    record_kernel(KERNELS / kernel_file, kernel, global_size=glob, local_size=local, args=args, sample=sample,
                  out=out)
    return open_trace(out)


def _pair(tmp_path_factory, kernel_file, kernel, glob, local, args, sample):
    """The launch recorded whole and sampled (``sample``), by sampling mode."""
    tmp = tmp_path_factory.mktemp(kernel)
    return {s: _record(tmp, kernel_file, kernel, glob, local, args, s) for s in ("all", sample)}


@pytest.fixture(scope="module")
def matmul(tmp_path_factory):
    n = N_MM
    return _pair(tmp_path_factory, "matmul.cl", "matmul_naive", f"{n},{n}", "16,16",
                 [f"float[{n * n}]"] * 3 + [f"int:{n}"], "first:8")


@pytest.fixture(scope="module")
def vector_add(tmp_path_factory):
    n = N_COPY
    return _pair(tmp_path_factory, "vector_add.cl", "vector_add", str(n), "256",
                 [f"float[{n}]"] * 3 + [f"int:{n}"], "first:16")


@pytest.fixture(scope="module")
def transpose(tmp_path_factory):
    n = N_TRANSPOSE
    return _pair(tmp_path_factory, "transpose.cl", "transpose_naive", f"{n},{n}", "16,16",
                 [f"float[{n * n}]"] * 2 + [f"int:{n}"] * 2, "first:32")


def test_sampled_recording_carries_the_whole_grids_footprint(vector_add):
    sampled, whole = vector_add["first:16"], vector_add["all"]
    fp = launch_footprint(sampled, 0)
    assert fp is not None and fp.granule_bytes == 32
    by_arg = {b.arg: b for b in fp.buffers}
    # a and b are read whole, c is written whole, by all 1024 work-groups (16 were recorded)
    assert sorted(by_arg) == [0, 1, 2]
    for arg in (0, 1):
        assert by_arg[arg].read.all() and not by_arg[arg].written.any()
    assert by_arg[2].written.all() and not by_arg[2].read.any()
    assert fp.bytes_read == 2 * 4 * N_COPY and fp.bytes_written == 4 * N_COPY
    # the buffers sit where the recorded rows put them
    bases = {b["arg"]: b["base"] for b in sampled.launch_metadata(0)["layout"]["global_buffers"]}
    assert {a: b.base for a, b in by_arg.items()} == bases
    assert launch_footprint(whole, 0) is None  # a whole recording has every row instead
    assert fp.distinct_units(128) == (2 * 4 * N_COPY // 128, 4 * N_COPY // 128, 4 * N_COPY // 128)


def _memory(trace):
    r = analyze(trace, "nvidia-h200").launches[0]
    m = r.memory.memory
    rates = {c.level: (c.hit_rate, c.load_hit_rate) for c in m.caches}
    return r.memory.traffic.dram_bytes, rates, m.estimate


@pytest.mark.parametrize("case", ["matmul", "vector_add"])
def test_sampled_replay_agrees_with_the_whole_one(case, request):
    recs = request.getfixturevalue(case)
    sample = next(k for k in recs if k != "all")
    dram_all, rates_all, est_all = _memory(recs["all"])
    dram_s, rates_s, est_s = _memory(recs[sample])
    assert est_all.method == "whole" and est_s.method == "warm_sample"
    assert est_s.scale == pytest.approx(8.0 if case == "matmul" else 64.0)
    assert dram_s == pytest.approx(dram_all, rel=0.03)
    for level, (hit, load_hit) in rates_all.items():
        assert rates_s[level][0] == pytest.approx(hit, abs=0.03), level
        assert rates_s[level][1] == pytest.approx(load_hit, abs=0.03), level


ALL_TARGETS = ("nvidia-h200", "adreno-640", "adreno-740", "intel-hd530", "intel-iris-plus-g7",
               "powervr-g6400", "powervr-gx6650")


@pytest.mark.parametrize("case", ["vector_add", "matmul", "transpose"])
def test_sampled_and_whole_launches_agree_on_every_target(case, request):
    """DRAM bytes read and written, and the launch time, of a sampled recording against the same
    launch recorded whole, on every shipped target (within 5 %).  The three kernels cover a
    stream, shared data that fits (first read by the opening round: the H200 runs all 64 groups
    at once) and a transposed write whose lines leave the caches between groups (each line is
    written by one group on 64-byte lines, by two on PowerVR's 128-byte lines)."""
    recs = request.getfixturevalue(case)
    sample = next(k for k in recs if k != "all")
    bad = []
    for target in ALL_TARGETS:
        whole, part = (analyze(recs[k], target).launches[0] for k in ("all", sample))
        assert whole.memory.memory.estimate.method == "whole"
        assert part.memory.memory.estimate.method == "warm_sample"
        tw, tp = whole.memory.traffic, part.memory.traffic
        pairs = {"dram read": (tp.dram_bytes - tp.dram_bytes_written, tw.dram_bytes - tw.dram_bytes_written),
                 "dram written": (tp.dram_bytes_written, tw.dram_bytes_written),
                 "time": (part.time_s, whole.time_s)}
        assert tw.dram_bytes > 0 and whole.time_s > 0
        bad += [f"{target} {what}: sampled {a:.4g}, whole {b:.4g}" for what, (a, b) in pairs.items()
                if abs(a - b) > 0.05 * b]
    assert not bad, "\n".join(bad)


def test_without_a_footprint_the_sample_is_scaled_from_cold(matmul, monkeypatch):
    """The old estimate (traces recorded before footprints) stays available and says so; for data
    that fit the L2 it charges every recorded group's first touches again and again."""
    import analyzers.replay.memory_adapter as ma
    dram_all, _, _ = _memory(matmul["all"])
    monkeypatch.setattr(ma, "launch_footprint", lambda trace, launch: None)
    dram_s, _, est = _memory(matmul["first:8"])
    assert est.method == "scaled" and est.compulsory_bytes_read == 0
    assert dram_s > 2 * dram_all


def test_estimate_is_in_the_json_result(matmul):
    doc = analyze(matmul["first:8"], "nvidia-h200").to_dict()
    est = doc["launches"][0]["memory"]["estimate"]
    assert est["method"] == "warm_sample" and est["groups_recorded"] == 8 and est["total_groups"] == 64
    assert est["compulsory_bytes_read"] == 2 * 4 * N_MM * N_MM
    assert est["compulsory_bytes_written"] == 4 * N_MM * N_MM


def test_footprint_round_trip_and_bad_input():
    rng = np.random.default_rng(3)
    bufs = [BufferFootprint(4096, 1000, rng.random(32) < 0.3, rng.random(32) < 0.5, arg=1),
            BufferFootprint(8192, 64, np.zeros(2, bool), np.zeros(2, bool))]
    entry = json.loads(json.dumps(encode(32, bufs)))
    assert len(entry["buffers"]) == 1  # an untouched buffer is left out
    back = decode(entry)
    assert np.array_equal(back.buffers[0].read, bufs[0].read)
    assert np.array_equal(back.buffers[0].written, bufs[0].written)
    assert back.buffers[0].arg == 1 and back.buffers[0].base == 4096
    # units smaller than a granule count every unit of a touched granule
    one = LaunchFootprint(32, (BufferFootprint(0, 64, np.array([True, False]), np.zeros(2, bool)),))
    assert one.distinct_units(16) == (2, 0, 0) and one.distinct_units(64) == (1, 0, 0)
    bad = dict(entry, buffers=[dict(entry["buffers"][0], read="not base64!")])
    with pytest.raises(TraceFormatError, match=r"footprint\.buffers\[0\]\.read"):
        decode(bad)
    with pytest.raises(TraceFormatError, match="granule_bytes"):
        decode(dict(entry, granule_bytes=24))
    short = dict(entry, buffers=[dict(entry["buffers"][0], size=10_000)])
    with pytest.raises(TraceFormatError, match="bitmap holds"):
        decode(short)


def test_a_bad_footprint_names_the_trace_and_launch(vector_add, tmp_path):
    src = vector_add["first:16"]
    rows = src.launches.to_pylist()
    meta = json.loads(rows[0]["metadata"])
    meta["footprint"]["buffers"][0]["written"] = 17
    rows[0]["metadata"] = json.dumps(meta)
    out = tmp_path / "bad.tkt"
    with TraceWriter(out) as w:
        w.write_accesses(src.accesses)
        w.set_launches(conform(pa.Table.from_pylist(rows), "launches"))
    where = r"bad\.tkt: launch 0: metadata\.footprint\.buffers\[0\]\.written"
    with pytest.raises(TraceFormatError, match=where):
        launch_footprint(open_trace(out), 0)


def test_compulsory_misses_of_a_fetching_last_level():
    """With 64-byte fetches the grid's first touches miss once per block where a request takes one
    sector (the other comes later and hits), once per sector where it takes both together."""
    from analyzers.replay.warm_sample import _fetching
    from tracekit.targets import load_target

    l2 = load_target("nvidia-h200").caches[-1]
    assert l2.fetch_bytes == 64
    fp = LaunchFootprint(32, (BufferFootprint(0, 32 * 64, np.ones(64, bool), np.zeros(64, bool)),))
    sectors = 64
    # the cold run fetched 64 bytes per miss (row walks): a miss per block
    assert _fetching(l2, fp, sectors, (10, 640)) == (32.0, 64.0)
    # 32 bytes per miss (coalesced requests): every sector a miss
    assert _fetching(l2, fp, sectors, (10, 320)) == (64.0, 32.0)


def test_units_run_as_many_groups_before_the_count_as_they_would_mid_launch():
    """Each unit is warmed by up to four different groups of the sample: one fewer than the
    groups it runs in the whole launch (a unit that runs two runs one before the counted one)."""
    from analyzers.replay.warm_sample import WARM_UNIT_PASSES, unit_warm_passes
    from tracekit.targets import load_target

    h200 = load_target("nvidia-h200")  # 132 SMs
    assert unit_warm_passes(h200, None) == 1
    assert unit_warm_passes(h200, 132) == 1
    assert unit_warm_passes(h200, 264) == 1
    assert unit_warm_passes(h200, 3 * 132) == 2
    assert unit_warm_passes(h200, 4096) == WARM_UNIT_PASSES == 4


def test_cold_run_stands_for_the_launchs_opening():
    """Recorded first groups are the launch's opening: they count once, or for the whole first round
    where it runs more groups side by side; a one-round launch is cold throughout whichever groups were
    kept; groups drawn across a grid of several rounds have no opening of their own."""
    from analyzers.replay.warm_sample import cold_weight

    assert cold_weight(8.0, 8, 64, 2) == 1.0              # Adreno: 2 groups a round, 8 recorded
    assert cold_weight(128.0, 1, 128, 132) == 128.0        # H200: all 128 groups start together
    assert cold_weight(32.0, 4, 128, 16) == 4.0            # the first round's 16 groups, 4 recorded
    assert cold_weight(32.0, 4, 128, 16, first_groups=False) == 0.0
    assert cold_weight(32.0, 4, 128, 132, first_groups=False) == 32.0


MEDIAN_BLUR = (Path(__file__).resolve().parent / "data" / "expert" / "mobile" / "opencv" / "traces"
               / "medianblur_5x5_8uc1_vga.tkt")


def test_passes_read_and_form_a_small_sample_once_with_the_same_counts(matmul, monkeypatch):
    """The passes over a sample share one read of its chunks and one forming of their requests
    (KEPT_ROWS); every count is what passes that each read and form their own give.  The image
    kernel covers the texture path, whose per-chunk state is handed back to each pass."""
    import analyzers.replay.warm_sample as ws

    reads = []
    real = ws.launch_chunks

    def counted(*args, **kw):
        reads.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(ws, "launch_chunks", counted)
    # a sectored fetching L2, a hashed LLC behind a 48-way L3, lane-by-lane lookups, the texture path
    cases = [(matmul["first:8"], t) for t in ("nvidia-h200", "intel-hd530", "powervr-g6400")] + \
        [(open_trace(MEDIAN_BLUR), "adreno-640")]
    results, read = {}, {}
    default = ws.KEPT_ROWS
    for kept in (default, 0):
        monkeypatch.setattr(ws, "KEPT_ROWS", kept)
        reads.clear()
        results[kept] = [json.dumps(analyze(trace, target).launches[0].to_dict(), sort_keys=True, default=str)
                         for trace, target in cases]
        read[kept] = len(reads)
    assert read[default] == len(cases)   # one read a replay when kept
    assert read[0] > 2 * len(cases)      # else a first run and a counted run at least, each reading
    assert results[default] == results[0]
