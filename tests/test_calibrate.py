"""Calibration: the H200 measurements, the comparison logic, and the end-to-end command."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzers import analyze
from tracekit.calibration.calibrate import Calibration, calibrate, compare, default_sol_path, measured_frame
from tracekit.calibration.summary import DEFAULT_SUMMARY, compute_summary, dumps, read_device
from tracekit.formats import open_trace
from tracekit.formats.ncu import read_ncu_raw, read_ncu_sol

H200 = Path(__file__).parent / "data" / "h200"
RAW, SOL = H200 / "ncu_raw.csv", H200 / "ncu_sol.csv"
TWINS = H200 / "twins" / "twins.tkt"


@pytest.fixture(scope="module")
def measured():
    return measured_frame(read_ncu_raw(RAW), read_ncu_sol(SOL))


def test_measured_side_matches_the_kernels_design(measured):
    m = measured.set_index("ncu_id")
    coalesced = m[(m.kernel == "copy_coalesced") & (m.block == (256, 1, 1))]
    assert (coalesced["sectors_per_request"] == 4).all()  # 32 lanes x 4 bytes = four 32-byte sectors
    strided = m[m.kernel == "copy_strided"]["sectors_per_request"].tolist()
    assert strided == [8, 16, 32, 32]  # strides 2, 4, 8, 32 floats: one sector per lane from stride 8 on
    # shared_stride: strides 1,2,4,8,16,32 give that many wavefronts; 33 is conflict-free again
    wf = m[m.kernel == "shared_stride"]["shared_wavefronts_per_request"].round().tolist()
    assert wf == [1, 2, 4, 8, 16, 32, 1]
    # a 100-item block is 4 warps with 100 of 128 lanes used
    assert m[m.block == (100, 1, 1)]["threads_per_instruction"].iloc[0] == pytest.approx(32 * 100 / 128)
    assert m[m.kernel == "uniform_all_lanes"]["verdict"].iloc[0] == "alu"
    # smsp__inst_executed.sum over the launch's warps: a 256-thread copy runs 16 SASS instructions
    assert coalesced["instructions_per_warp"].iloc[0] == pytest.approx(16.0)


def _model_like(measured: pd.DataFrame) -> pd.DataFrame:
    model = measured.rename(columns={"ncu_id": "launch"}).copy()
    model["error"] = None
    return model


def test_compare_exact_copy_agrees_everywhere(measured):
    cal = compare(measured, _model_like(measured), "h200")
    stats = cal.stats.set_index("quantity")
    assert (stats["agreement"].dropna() == 1.0).all()
    assert stats.at["sectors_per_request", "launches"] == len(measured)
    with_shared = (measured.shared_wavefronts_per_request > 0).sum()
    assert stats.at["shared_wavefronts_per_request", "launches"] == with_shared
    assert (cal.frame["launch"] == cal.frame["ncu_id"]).all()


def test_compare_tolerances_and_statistics(measured):
    model = _model_like(measured)
    model.loc[0, "sectors_per_request"] = 4.5  # 0.5 off: outside 0.05 + 2 %
    model.loc[1, "threads_per_instruction"] = 32 * 0.96  # 4 % low: within 5 %
    model.loc[2, "threads_per_instruction"] = 32 * 0.90  # 10 % low: outside
    model.loc[3, "verdict"] = "alu"
    cal = compare(measured, model)
    s = cal.stats.set_index("quantity")
    n = len(measured)
    assert s.at["sectors_per_request", "agreement"] == pytest.approx((n - 1) / n)
    assert s.at["sectors_per_request", "max_abs_error"] == pytest.approx(0.5)
    assert s.at["sectors_per_request", "mean_abs_error"] == pytest.approx(0.5 / n)
    assert s.at["threads_per_instruction", "agreement"] == pytest.approx((n - 1) / n)
    assert s.at["verdict", "agreement"] == pytest.approx((n - 1) / n)
    wide = cal.wide()
    assert wide.loc[wide.ncu_id == 0, "sectors_per_request_model"].iloc[0] == 4.5
    assert len(wide) == n


def test_matching_by_shape_then_order(measured):
    model = _model_like(measured).iloc[::-1].reset_index(drop=True)  # reversed launch order
    model["launch"] = np.arange(len(model))
    cal = compare(measured, model)
    pairs = cal.frame.drop_duplicates("ncu_id").set_index("ncu_id")["launch"]
    # copy_coalesced launches differ by block size: each goes to the model launch of the same shape
    by_shape = {tuple(r.block): r.launch for r in model.itertuples() if r.kernel == "copy_coalesced"}
    for r in measured[measured.kernel == "copy_coalesced"].itertuples():
        if sum(1 for b in measured[measured.kernel == "copy_coalesced"].block if b == r.block) == 1:
            assert pairs[r.ncu_id] == by_shape[tuple(r.block)]
    # equal shapes keep their order: the five fma_chain launches map in sequence
    fma = [pairs[i] for i in measured[measured.kernel == "fma_chain"].ncu_id]
    assert fma == sorted(fma)


def test_unmatched_launch_has_no_model_side(measured):
    model = _model_like(measured)
    model = model[model.kernel != "pointer_chase"]
    cal = compare(measured, model)
    row = cal.frame[(cal.frame.kernel == "pointer_chase")]
    assert row["launch"].isna().all() and row["agree"].isna().all()


def test_default_sol_path():
    assert default_sol_path(RAW) == SOL


def test_twins_line_up_with_the_measured_launches(measured):
    t = open_trace(TWINS)
    launches = t.launches.to_pandas()
    assert launches["kernel"].tolist() == measured["kernel"].tolist()
    groups = [tuple(int(g) // int(b) for g, b in zip(gs, ls, strict=True))
              for gs, ls in zip(launches.global_size, launches.local_size, strict=True)]
    assert groups == [tuple(g) for g in measured["grid"]]
    # each launch says how much of it was recorded, so analyses scale counts to the whole grid
    for launch, grid in zip(launches["launch"], groups, strict=True):
        sampling = t.launch_metadata(int(launch))["sampling"]
        total = int(np.prod(grid))
        assert sampling["total_groups"] == total
        assert sampling["scale"] == total / sampling["groups_recorded"]
    recorded = t.accesses.to_pandas().groupby("launch")["group"].nunique()
    assert (recorded <= 16).all() and recorded.max() == 16
    # the recording script's launch table is the CUDA program's, launch for launch
    spec = importlib.util.spec_from_file_location("record_twins", H200 / "record_twins.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert [c["kernel"] for c in mod.cases()] == measured["kernel"].tolist()


@pytest.fixture(scope="module")
def end_to_end() -> Calibration:
    return calibrate(RAW, TWINS, "nvidia-h200", sol=SOL)


def test_end_to_end_exact_quantities(end_to_end):
    s = end_to_end.stats.set_index("quantity")
    n = len(read_ncu_raw(RAW).frame)
    assert s.at["sectors_per_request", "launches"] == n
    assert s.at["sectors_per_request", "agreement"] == 1.0
    assert s.at["shared_wavefronts_per_request", "agreement"] == 1.0
    assert s.at["l1_hit_rate", "agreement"] == 1.0
    assert s.at["verdict", "launches"] == n


#: SIMD efficiency exceptions, with the reason.  The hardware counts SASS instructions; in the
#: single-lane loop nvcc unrolls by four (four FFMAs per compare and branch) while the twin's IR
#: runs compare, add, branch and FMA every iteration, so the one-lane part weighs more in the model.
SIMD_EXCEPTIONS = {"divergent_one_lane": "loop unrolled by 4 in SASS, not in the recorded IR"}


def test_end_to_end_meets_the_calibration_targets(end_to_end):
    s = end_to_end.stats.set_index("quantity")
    f = end_to_end.frame
    # sectors per request and shared-memory wavefronts: exact (within counter noise)
    for q in ("sectors_per_request", "store_sectors_per_request",
              "shared_wavefronts_per_request", "shared_store_wavefronts_per_request"):
        assert s.at[q, "agreement"] == 1.0, q
    # SIMD efficiency within 5 % everywhere but the listed exceptions
    simd = f[f.quantity == "threads_per_instruction"]
    off = simd[~simd["agree"].astype(bool)]
    assert set(off["kernel"]) <= set(SIMD_EXCEPTIONS), off
    # L2 hit rate with ncu's convention for stores: within 0.10 on at least 90 % of launches
    assert s.at["l2_hit_rate", "agreement"] >= 0.9
    # verdict: the SOL-style decision agrees on 28 of 31 launches, the 90 % target
    assert s.at["verdict", "agreement"] >= 28 / 31
    misses = set(f[(f.quantity == "verdict") & ~f["agree"].astype(bool)]["ncu_id"])
    # copy_strided(8), transpose_padded, fma_chain(16): docs/calibration.md explains each
    assert misses <= {3, 18, 22}, misses


def test_end_to_end_verdict_target(end_to_end):
    assert end_to_end.stats.set_index("quantity").at["verdict", "agreement"] >= 0.9


def test_recorded_ir_and_sass_instruction_counts(end_to_end):
    """The instructions the ALU model prices against the machine's: IR issues per wave, address
    arithmetic and loop control scaled by the H200's role factors, over SASS per warp.

    The FMA loops, which the IR ran 3-4 times too often (loop control every iteration against
    nvcc's unrolled loop), come within 10 %; straight-line copies are about 10 % short (the thread
    index is one IR call and three SASS instructions); the integer division is still one IR
    instruction for a SASS sequence (its price, not its count, carries it).
    """
    w = end_to_end.wide().set_index("ncu_id")
    ratio = w["instructions_per_warp_model"].astype(float) / w["instructions_per_warp_hw"].astype(float)
    assert ratio[[13, 14, 24, 25]].between(0.9, 1.1).all()
    assert ratio[[0, 5, 26, 27, 29]].between(0.85, 0.95).all()
    assert ratio[19] < 0.5


def test_committed_summary_is_current(end_to_end):
    """The report's copy of the agreement table is what the committed data gives today.

    Regenerate it with
    ``python -m tracekit.calibration.summary --write-summary tracekit/report/calibration_h200.json``.
    """
    fresh = dumps(compute_summary(H200, cal=end_to_end))
    assert DEFAULT_SUMMARY.read_text() == fresh, "stale: rerun the --write-summary command above"


def test_device_file_is_read():
    d = read_device(H200 / "device.txt")
    assert d == {"device": "NVIDIA H200", "driver": "580.159.04", "ncu_version": "2025.3.1.0",
                 "measured": "2026-11-22"}


def test_end_to_end_launch_times_follow_the_block_size_sweep(end_to_end):
    """The copies of the block-size sweep: the model's time within 5 % of gpu__time_duration."""
    f = end_to_end.frame
    m = measured_frame(read_ncu_raw(RAW)).set_index("ncu_id")
    analysis = analyze(TWINS, "nvidia-h200")
    for ncu_id in (0, 26, 27, 28, 29, 30):
        launch = int(f[f.ncu_id == ncu_id]["launch"].iloc[0])
        model_ns = analysis.launch(launch).time_estimates["total_s"] * 1e9
        assert model_ns == pytest.approx(m.at[ncu_id, "time_ns"], rel=0.10), ncu_id


def test_cli(run_cli, tmp_path):
    out = tmp_path / "cal.csv"
    res = run_cli("calibrate", RAW, TWINS, "--target", "nvidia-h200", "--csv", out)
    assert res.code == 0, res.err
    assert "agreement" in res.out and "shared_stride" in res.out
    frame = pd.read_csv(out)
    assert set(frame["quantity"]) >= {"sectors_per_request", "verdict", "threads_per_instruction"}


def test_cli_bad_measured_file(run_cli, tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("hello\n")
    res = run_cli("calibrate", p, TWINS)
    assert res.code == 2 and "not Nsight Compute CSV output" in res.err


def test_l2_hit_rate_counted_as_nsight_counts_a_partitioned_l2():
    """Stores count as hits; the other partition looks half the store sectors up again (hits) and
    half the sectors filled from DRAM (misses): atax_kernel1's shape, 2.1 M single-sector loads
    half of which the 64-byte fetch serves, 2.1 M store sectors, 2.1 M sectors from DRAM, gives
    Nsight's 68 % (tests/data/h200_real/ncu_raw.csv ID 2) where the replay's own rate is 50 %."""
    from tracekit.calibration.calibrate import _absorbing_hit_rate
    from tracekit.targets import load_target

    h200 = load_target("nvidia-h200")
    assert h200.caches[-1].partition_copy_share == 0.5
    m = 1_000_000
    level = {"level": "L2", "hits": 3 * m, "misses": m, "load_hits": m, "load_misses": m}
    rate = _absorbing_hit_rate(level, h200, dram_read_bytes=2 * m * 32)
    assert rate == pytest.approx((1 + 3) / (2 + 3 + 1))  # 66.7 %, Nsight 68.1 %
    single = dataclasses.replace(h200, caches=tuple(dataclasses.replace(c, partition_copy_share=0.0)
                                                    for c in h200.caches))
    assert _absorbing_hit_rate(level, single, dram_read_bytes=2 * m * 32) == pytest.approx(3 / 4)
