"""The calibration's agreement table as a small JSON file that reports can carry.

Replaying the whole calibration suite takes seconds per report, and a report
should not depend on test data being present, so the table is computed once
from the committed measurements and twins and kept as package data
(``tracekit/report/calibration_h200.json``).  A test regenerates it and checks
the committed copy is current, so it cannot drift from what the model now says.

    python -m tracekit.calibration.summary --write-summary tracekit/report/calibration_h200.json
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

from tracekit.calibration.calibrate import QUANTITIES, TOLERANCE, Calibration, calibrate
from tracekit.report.methods import CALIBRATION_FORMAT as FORMAT
from tracekit.report.methods import DEFAULT_SUMMARY, REAL_SUMMARY, load_summary  # noqa: F401  (the report's copies)

#: Where the committed H200 measurements live, relative to a source checkout.
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "h200"
#: The real-kernel suite (benchmark kernels measured the same way), the report's second table.
REAL_DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "h200_real"

LABELS = {
    "sectors_per_request": "sectors per request (global loads)",
    "store_sectors_per_request": "sectors per request (global stores)",
    "l1_hit_rate": "L1 hit rate (global loads)",
    "l2_hit_rate": "L2 hit rate (stores count as hits)",
    "l2_load_hit_rate": "L2 hit rate (loads)",
    "shared_wavefronts_per_request": "shared-memory wavefronts per request (loads)",
    "shared_store_wavefronts_per_request": "shared-memory wavefronts per request (stores)",
    "threads_per_instruction": "threads per instruction (SIMD efficiency)",
    "instructions_per_warp": "instructions per warp (IR at machine level against SASS)",
    "time_ns": "launch time",
    "dram_bytes": "DRAM bytes (read + written)",
    "verdict": "verdict (speed-of-light bottleneck)",
}


#: Quantities whose size varies by orders of magnitude between launches: errors as |model/hw - 1|.
RELATIVE = frozenset({"instructions_per_warp", "time_ns", "dram_bytes"})


def read_device(path: str | os.PathLike) -> dict:
    """GPU name, driver, Nsight Compute version and measurement date from ``run_ncu.sh``'s device.txt.

    The file holds ``nvidia-smi --query-gpu`` CSV (header and one row), ``ncu --version``
    output and a ``measured: YYYY-MM-DD`` line; a missing piece is left out.
    """
    lines = [ln.strip() for ln in Path(path).read_text().splitlines() if ln.strip()]
    out: dict[str, str] = {}
    for i, ln in enumerate(lines):
        if ln.startswith("name,") and i + 1 < len(lines):
            head = [h.strip() for h in ln.split(",")]
            row = [v.strip() for v in lines[i + 1].split(",")]
            rec = dict(zip(head, row, strict=False))
            out["device"] = rec.get("name", "")
            out["driver"] = rec.get("driver_version", "")
        m = re.match(r"^Version\s+([0-9][0-9.]*)", ln)
        if m:
            out["ncu_version"] = m.group(1)
        m = re.match(r"^measured:\s*(\S+)", ln)
        if m:
            out["measured"] = m.group(1)
    return out


def _round(v, digits: int = 4):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return round(float(v), digits)


def _tolerance_text(q: str) -> str:
    if q == "verdict":
        return "same verdict"
    a, r = TOLERANCE[q]
    parts = ([f"{a:g}"] if a else []) + ([f"{r * 100:g} %"] if r else [])
    return "within " + " + ".join(parts)


def summarize(cal: Calibration, device: dict, groups_recorded: int | None = None,
              suite: str = "micro-kernel") -> dict:
    """The agreement table of a calibration run, JSON-shaped and rounded so it is stable;
    ``suite`` says what the launches are (the report's table names it)."""
    stats = cal.stats.set_index("quantity")
    f = cal.frame
    rows = []
    for q in QUANTITIES:
        n = int(stats.at[q, "launches"])
        if n == 0:
            continue
        fq = f[(f.quantity == q) & f["agree"].notna()]
        agreeing = int(fq["agree"].astype(bool).sum())
        mean, worst, unit = stats.at[q, "mean_abs_error"], stats.at[q, "max_abs_error"], "absolute"
        if q in RELATIVE:
            measured = fq["measured"].astype(float)
            rel = (fq["model"].astype(float) / measured.where(measured != 0) - 1.0).abs()
            mean, worst, unit = rel.mean(), rel.max(), "relative"
        rows.append({"quantity": q, "label": LABELS.get(q, q), "launches": n, "agreeing": agreeing,
                     "agreement": _round(stats.at[q, "agreement"]),
                     "mean_abs_error": _round(mean), "max_abs_error": _round(worst), "error": unit,
                     "tolerance": _tolerance_text(q)})
    verdicts = f[(f.quantity == "verdict") & f["agree"].notna()]
    misses = [{"ncu_id": int(r.ncu_id), "kernel": str(r.kernel), "model": str(r.model),
               "measured": str(r.measured)} for r in verdicts[~verdicts["agree"].astype(bool)].itertuples()]
    return {"format": FORMAT, "target": cal.target, "suite": suite, **device,
            "launches": int(f["ncu_id"].nunique()), "groups_recorded": groups_recorded,
            "quantities": rows, "verdict_disagreements": misses}


def compute_summary(data: str | os.PathLike = DEFAULT_DATA, target: str = "nvidia-h200",
                    cal: Calibration | None = None, suite: str = "micro-kernel") -> dict:
    """Run the calibration on ``data`` (ncu_raw.csv, ncu_sol.csv, device.txt, twins/twins.tkt)."""
    from tracekit.formats import open_trace

    data = Path(data)
    trace = open_trace(data / "twins" / "twins.tkt")
    if cal is None:
        cal = calibrate(data / "ncu_raw.csv", trace, target, sol=data / "ncu_sol.csv")
    recorded = {int(trace.launch_metadata(int(lid)).get("sampling", {}).get("groups_recorded") or 0)
                for lid in trace.launches["launch"].to_pylist()}
    per_launch = max(recorded) if recorded else None
    return summarize(cal, read_device(data / "device.txt"), per_launch or None, suite)


def dumps(summary: dict) -> str:
    return json.dumps(summary, indent=1, sort_keys=True) + "\n"


def write_summary(path: str | os.PathLike, data: str | os.PathLike = DEFAULT_DATA,
                  target: str = "nvidia-h200", suite: str = "micro-kernel") -> Path:
    out = Path(path)
    out.write_text(dumps(compute_summary(data, target, suite=suite)))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m tracekit.calibration.summary --write-summary PATH [--data DIR] [--target NAME]
    [--suite WORDS]``."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tracekit.calibration.summary",
                                 description="Write the calibration agreement table the report shows.")
    ap.add_argument("--write-summary", metavar="PATH", required=True,
                    help="JSON file to write (the report's copy is tracekit/report/calibration_h200.json)")
    ap.add_argument("--data", default=str(DEFAULT_DATA),
                    help="folder with ncu_raw.csv, ncu_sol.csv, device.txt and twins/twins.tkt")
    ap.add_argument("--target", default="nvidia-h200")
    ap.add_argument("--suite", default="micro-kernel",
                    help="what the launches are, as the report names them (the real-kernel copy: "
                         "--suite real-kernel --data tests/data/h200_real, written to "
                         "tracekit/report/calibration_h200_real.json)")
    args = ap.parse_args(argv)
    out = write_summary(args.write_summary, args.data, args.target, args.suite)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
