"""The real-kernel suite (tests/data/h200_real): measurements, twins and comparison line up.

Model agreement is not asserted here: BASELINE.md records how far the model is off,
and changes to the model are judged against it.  These tests check that the data is
whole and consistent, and that every compared quantity comes out for every launch.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from analyzers.replay.traffic import MemoryTraffic
from tracekit.calibration.calibrate import _dram_bytes, calibrate, compare, measured_frame
from tracekit.formats import open_trace
from tracekit.formats.ncu import read_ncu_raw, read_ncu_sol
from tracekit.targets import load_target

REAL = Path(__file__).parent / "data" / "h200_real"
RAW, SOL = REAL / "ncu_raw.csv", REAL / "ncu_sol.csv"
TWINS, FULL = REAL / "twins" / "twins.tkt", REAL / "twins" / "full.tkt"
COMPARED = ("time_ns", "dram_bytes", "l1_hit_rate", "l2_hit_rate", "instructions_per_warp", "verdict")
LAUNCHES = 28


@pytest.fixture(scope="module")
def measured():
    return measured_frame(read_ncu_raw(RAW), read_ncu_sol(SOL))


@pytest.fixture(scope="module")
def twins():
    return open_trace(TWINS)


@pytest.fixture(scope="module")
def cal(twins):
    return calibrate(RAW, twins, "nvidia-h200", sol=SOL)


def _grids(trace) -> list[tuple[int, int, int]]:
    launches = trace.launches.to_pandas()
    return [
        tuple(int(g) // int(b) for g, b in zip(gs, ls, strict=True))
        for gs, ls in zip(launches.global_size, launches.local_size, strict=True)
    ]


def test_measured_launches_are_the_programs_launches(measured):
    """ncu profiled the launches realkernels.cu reports, in its order, and every output check passed."""
    run = (REAL / "run.txt").read_text()
    table = re.findall(
        r"^launch +(\d+) (\S+) +grid \((\d+),(\d+),(\d+)\) block \((\d+),(\d+),(\d+)\)", run, re.M
    )
    assert len(table) == LAUNCHES == len(measured)
    assert f"{LAUNCHES} launches, 0 checks failed" in run
    assert [int(t[0]) for t in table] == measured["ncu_id"].tolist() == list(range(LAUNCHES))
    assert [t[1] for t in table] == measured["kernel"].tolist()
    assert [tuple(int(v) for v in t[2:5]) for t in table] == [tuple(g) for g in measured["grid"]]
    assert [tuple(int(v) for v in t[5:8]) for t in table] == [tuple(b) for b in measured["block"]]
    assert measured["verdict"].notna().all()  # the SOL export has a rule for every launch


def test_twins_line_up_with_the_measured_launches(measured, twins):
    launches = twins.launches.to_pandas()
    assert launches["kernel"].tolist() == measured["kernel"].tolist()
    assert _grids(twins) == [tuple(g) for g in measured["grid"]]
    assert [tuple(int(v) for v in ls) for ls in launches.local_size] == [tuple(b) for b in measured["block"]]
    recorded = twins.accesses.select(["launch", "group"]).to_pandas().groupby("launch")["group"].nunique()
    for lid, grid in zip(launches["launch"], _grids(twins), strict=True):
        meta = twins.launch_metadata(int(lid))
        assert meta["ncu_id"] == int(lid)
        assert meta["status"] == "ok"
        total = int(np.prod(grid))
        sampling = meta.get("sampling")
        if sampling is not None and sampling.get("mode") == "first":
            assert sampling["total_groups"] == total
            assert sampling["scale"] == pytest.approx(total / sampling["groups_recorded"])
            assert recorded[int(lid)] == sampling["groups_recorded"]
        else:  # a launch small enough to record whole
            assert recorded[int(lid)] == total


def test_full_recordings_are_whole_launches_of_the_suite(measured):
    full = open_trace(FULL)
    recorded = full.accesses.select(["launch", "group"]).to_pandas().groupby("launch")["group"].nunique()
    by_id = measured.set_index("ncu_id")
    assert full.launches.num_rows >= 2
    for lid, grid in zip(full.launches["launch"].to_pylist(), _grids(full), strict=True):
        meta = full.launch_metadata(lid)
        assert meta.get("sampling", {}).get("mode", "all") == "all"
        assert recorded[lid] == int(np.prod(grid))
        assert full.launches["kernel"][lid].as_py() == by_id.at[meta["ncu_id"], "kernel"]
        assert grid == tuple(by_id.at[meta["ncu_id"], "grid"])


def test_every_launch_is_matched_to_its_twin(cal):
    pairs = cal.frame.drop_duplicates("ncu_id")
    assert len(pairs) == LAUNCHES
    assert (pairs["launch"] == pairs["ncu_id"]).all()


@pytest.mark.parametrize("quantity", COMPARED)
def test_every_quantity_is_computed_for_every_launch(cal, quantity):
    rows = cal.frame[cal.frame.quantity == quantity]
    assert len(rows) == LAUNCHES
    assert rows["model"].notna().all(), rows[rows["model"].isna()]["kernel"].tolist()
    assert rows["measured"].notna().all(), rows[rows["measured"].isna()]["kernel"].tolist()
    assert rows["agree"].notna().all()
    if quantity != "verdict":
        assert (rows["model"].astype(float) >= 0).all() and (rows["measured"].astype(float) >= 0).all()
    stats = cal.stats.set_index("quantity")
    assert stats.at[quantity, "launches"] == LAUNCHES


def test_measured_dram_bytes_are_reads_plus_writes(measured):
    raw = read_ncu_raw(RAW)
    expected = raw.metric("dram__bytes_read.sum").to_numpy(float) + raw.metric(
        "dram__bytes_write.sum"
    ).to_numpy(float)
    np.testing.assert_array_equal(measured["dram_bytes"].to_numpy(float), expected)
    gemm = measured.set_index("kernel").loc["gemm"]
    assert gemm["time_ns"] == pytest.approx(1_180_896)  # gpu__time_duration.sum of ncu ID 0
    assert gemm["dram_bytes"] == pytest.approx(12_589_312)


def test_time_and_dram_agree_within_a_quarter(measured):
    model = measured.rename(columns={"ncu_id": "launch"}).copy()
    model["error"] = None
    model.loc[0, "time_ns"] = measured.at[0, "time_ns"] * 1.24
    model.loc[1, "time_ns"] = measured.at[1, "time_ns"] * 0.74
    model.loc[2, "dram_bytes"] = measured.at[2, "dram_bytes"] * 0.76
    model.loc[3, "dram_bytes"] = measured.at[3, "dram_bytes"] * 1.3
    model.loc[4, "l1_hit_rate"] = measured.at[4, "l1_hit_rate"] - 0.09
    model.loc[5, "l2_hit_rate"] = measured.at[5, "l2_hit_rate"] + 0.11
    f = compare(measured, model).frame.set_index(["ncu_id", "quantity"])["agree"]
    assert f[(0, "time_ns")] and not f[(1, "time_ns")]
    assert f[(2, "dram_bytes")] and not f[(3, "dram_bytes")]
    assert f[(4, "l1_hit_rate")] and not f[(5, "l2_hit_rate")]


def _launch(dram: float, written: float, scale: float):
    traffic = MemoryTraffic(levels=(), dram_bytes=0.0, load_requests=0.0, load_transactions=0.0)
    stats = SimpleNamespace(dram_bytes=dram, dram_bytes_written=written)
    memory = SimpleNamespace(memory=stats, traffic=traffic)
    return SimpleNamespace(memory=memory, geometry=SimpleNamespace(sample_scale=scale))


def test_model_dram_bytes_leave_out_what_the_l2_still_holds():
    """Scaled to the launch; dirty data a write-back L2 keeps at the end is not counted."""
    h200 = load_target("nvidia-h200")
    l2 = float(h200.caches[-1].size_bytes)
    # small launch: every written byte is still in the 60 MiB L2 at the end
    assert _dram_bytes(_launch(1000, 400, 2.0), h200) == pytest.approx(2000 - 800)
    # large launch: the L2 holds its share (written / total) of its size
    total, written = 2e9, 8e8
    assert _dram_bytes(_launch(total / 4, written / 4, 4.0), h200) == pytest.approx(
        total - l2 * written / total
    )
    # no stores: reads only
    assert _dram_bytes(_launch(5e6, 0, 3.0), h200) == pytest.approx(1.5e7)
    assert np.isnan(_dram_bytes(SimpleNamespace(memory=None), h200))


def _probes_summary():
    spec = importlib.util.spec_from_file_location("probes_summary", REAL / "probes_summary.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_probe_tables():
    ps = _probes_summary()
    chase = ps.chase_table()
    assert (chase["runs"] == 3).all()
    lat = chase.groupby("level_expected")["cycles_per_load"].median()
    assert lat["shared"] < lat["L1"] < lat["L2"] < lat["DRAM"]
    counters = ps._counters()
    pitch, l1 = ps.pitch_table(counters), ps.l1_table(counters)
    assert pitch["pitch_floats"].tolist() == [(1 << k) + e for k in range(8, 14) for e in (0, 1)]
    assert len(l1) == 16
    # the tag stage looks up one line per distinct line a request touches
    assert l1["tag_lookups_per_request"].to_numpy() == pytest.approx(l1["lines"].to_numpy(float), rel=0.01)
    # in the pitch sweep every lane walks its own row: 32 lines per warp request
    assert (pitch["tag_lookups_per_request"].round() == 32).all()


def test_committed_real_summary_is_current(cal):
    """The report's second agreement table (the methods appendix) is what this suite gives today.

    Regenerate it with ``python -m tracekit.calibration.summary --write-summary
    tracekit/report/calibration_h200_real.json --data tests/data/h200_real --suite real-kernel``.
    """
    from tracekit.calibration.summary import REAL_SUMMARY, compute_summary, dumps

    fresh = dumps(compute_summary(REAL, cal=cal, suite="real-kernel"))
    assert REAL_SUMMARY.read_text() == fresh, "stale: rerun the --write-summary command above"
