"""Machine instructions per IR instruction by role class, measured on the H200's SASS; DRAM and L2
latency against the lines a warp request touches.

    .venv/bin/python tests/data/h200_real/role_factors.py [--suite real|micro|both] [--per-launch]

IR side: the twins (``twins/twins.tkt``, ``../h200/twins/twins.tkt``), issues per warp of every
site by role class (tracekit.calibration.roles).  Machine side: the executions of every SASS
instruction of the same launches (``realkernels_source.csv.gz``, ``../h200/microkernels_source.csv.gz``:
``run_sass_counts.sh``), each given a role by tracekit.calibration.sass.  Prints the factor table
the nvidia-h200 target's ``[ir_role_factors]`` carries (docs/calibration.md, "Instruction counts and
latency") and the chase_lines.csv latencies with the tail fit the target's ``latency_tail`` values
come from.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SUITES = {
    "real": (HERE / "ncu_raw.csv", HERE / "twins" / "twins.tkt", HERE / "realkernels_source.csv.gz"),
    "micro": (HERE.parent / "h200" / "ncu_raw.csv", HERE.parent / "h200" / "twins" / "twins.tkt",
              HERE.parent / "h200" / "microkernels_source.csv.gz"),
}


def comparison(suite: str) -> pd.DataFrame:
    """(launch, class, group) -> IR issues and SASS instructions per warp, for one suite."""
    from tracekit.calibration import roles
    from tracekit.calibration.calibrate import measured_frame
    from tracekit.formats.ncu import read_ncu_raw

    raw, twins, source = SUITES[suite]
    m = measured_frame(read_ncu_raw(raw))
    warps = [float(np.prod(g) * -(-int(np.prod(b)) // 32))
             for g, b in zip(m["grid"], m["block"], strict=True)]
    return roles.compare(roles.ir_classes(twins), roles.source_launches(source), warps)


def harmonic(k: float) -> float:
    return sum(1.0 / i for i in range(1, int(k) + 1))


def chase_table() -> pd.DataFrame:
    """chase_lines.csv: median ns (and cycles) per step by working set and lanes, with the tail fit."""
    c = pd.read_csv(HERE / "chase_lines.csv")
    t = c.groupby(["level_expected", "working_set_bytes", "lanes"], as_index=False)[
        ["ns_per_step", "cycles_per_step"]].median()
    rows = []
    for (_, ws), g in t.groupby(["level_expected", "working_set_bytes"]):
        g = g.sort_values("lanes")
        lone, top = g.iloc[0], g.iloc[-1]
        tail = (top["ns_per_step"] - lone["ns_per_step"]) / (harmonic(top["lanes"]) - 1.0)
        for r in g.itertuples():
            fit = lone["ns_per_step"] + tail * (harmonic(r.lanes) - 1.0)
            rows.append({"working_set": f"{ws / 2**20:g} MiB", "lines": int(r.lanes), "ns": r.ns_per_step,
                         "cycles": r.cycles_per_step, "fit_ns": fit, "tail_ns": tail,
                         "tail_cycles": tail * lone["cycles_per_step"] / lone["ns_per_step"]})
    return pd.DataFrame(rows)


def _md(df: pd.DataFrame, digits: int = 3) -> str:
    cols = list(df.columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for r in df.itertuples(index=False):
        cells = [f"{v:.{digits}g}" if isinstance(v, float) and math.isfinite(v) else str(v) for v in r]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    from tracekit.calibration.roles import measured_factors, role_factors

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", choices=("real", "micro", "both"), default="both")
    ap.add_argument("--per-launch", action="store_true")
    opts = ap.parse_args()
    for suite in (("real", "micro") if opts.suite == "both" else (opts.suite,)):
        t = comparison(suite)
        print(f"### {suite}: machine instructions per IR instruction by class\n")
        print(_md(role_factors(t)))
        print()
        taken = ", ".join(f"{k} {v:.3g}" for k, v in sorted(measured_factors(t).items()))
        print(f"As a target takes them (address over the launches without loops): {taken}\n")
        work = t[t["cls"] == "work"].assign(cls=lambda d: "work: " + d["group"])
        print(_md(role_factors(work)))
        print()
        if opts.per_launch:
            p = t.pivot_table(index=["launch", "kernel"], columns="cls", values=["ir", "machine"],
                              aggfunc="sum").fillna(0.0)
            print(p.round(1).to_string())
            print()
    print("### warp request latency against lines (chase_lines.csv, medians of 3 runs)\n")
    print(_md(chase_table(), 4))


if __name__ == "__main__":
    main()
