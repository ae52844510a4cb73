"""The probe measurements as markdown tables (the numbers PROBES.md discusses).

    .venv/bin/python tests/data/h200_real/probes_summary.py

Reads probes_chase.csv (pointer chases) and probes_ncu_raw.csv (pitch sweep and
L1-line launches, in probes.cu's launch order) and prints three tables: load
latency per level, hit rates per pitch, and L1 cost per request against lines,
sectors and bank conflicts.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
SMS = 132  # cudaDevAttrMultiProcessorCount on the H200

#: probes.cu counters(): pitch_walk for k = 8..13 at 2^k and 2^k + 1 floats, then the L1 probes
PITCHES = [(1 << k) + extra for k in range(8, 14) for extra in (0, 1)]
L1_CASES = (
    [("l1_lines", k) for k in (1, 2, 4, 8, 16, 32)]
    + [("l1_lines_spread", k) for k in (1, 2, 4, 8, 16, 32)]
    + [("l1_lines_v4", k) for k in (4, 8, 16, 32)]
)


def chase_table(path: Path = HERE / "probes_chase.csv") -> pd.DataFrame:
    """Median over the runs of each working set: cycles and ns per dependent load."""
    c = pd.read_csv(path)
    g = c.groupby(["probe", "level_expected", "working_set_bytes"], sort=False)
    return g.agg(
        runs=("run", "count"),
        cycles_per_load=("cycles_per_load", "median"),
        ns_per_load=("ns_per_load", "median"),
        spread_cycles=("cycles_per_load", lambda s: s.max() - s.min()),
        clock_ghz=("clock_ghz", "median"),
    ).reset_index()


def _counters(path: Path = HERE / "probes_ncu_raw.csv"):
    from tracekit.formats.ncu import read_ncu_raw

    raw = read_ncu_raw(path)
    f = raw.frame
    req = f["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"].astype(float)
    out = pd.DataFrame(
        {
            "kernel": f["Kernel Name"],
            "time_us": f["gpu__time_duration.sum"].astype(float) / 1e3,
            "requests": req,
            "sectors_per_request": f["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"].astype(float) / req,
            "tag_lookups_per_request": f["l1tex__t_set_accesses_pipe_lsu_mem_global_op_ld.sum"].astype(float)
            / req,
            "tag_wavefronts_per_request": f[
                "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum"
            ].astype(float)
            / req,
            "data_wavefronts_per_request": f["l1tex__data_pipe_lsu_wavefronts.sum"].astype(float) / req,
            "l1_hit_rate": f["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"].astype(float) / 100,
            "l2_read_hit_rate": f["lts__t_sector_op_read_hit_rate.pct"].astype(float) / 100,
            "dram_read_mb": f["dram__bytes_read.sum"].astype(float) / 1e6,
            "l1_throughput": f["l1tex__throughput.avg.pct_of_peak_sustained_elapsed"].astype(float) / 100,
            "cycles": f["sm__cycles_elapsed.avg"].astype(float),
        }
    )
    if len(out) != len(PITCHES) + len(L1_CASES):
        raise SystemExit(
            f"{path}: {len(out)} launches, probes.cu counters() makes {len(PITCHES) + len(L1_CASES)}"
        )
    return out


def pitch_table(c: pd.DataFrame) -> pd.DataFrame:
    p = c.iloc[: len(PITCHES)].copy()
    p.insert(1, "pitch_floats", PITCHES)
    # 32 blocks of 512 lanes, one block per SM: an SM's cycles per request are the launch's
    # cycles over the requests of one block
    p["cycles_per_request"] = p["cycles"] / (p["requests"] / 32)
    return p[
        [
            "pitch_floats",
            "l1_hit_rate",
            "l2_read_hit_rate",
            "dram_read_mb",
            "time_us",
            "tag_lookups_per_request",
            "data_wavefronts_per_request",
            "cycles_per_request",
        ]
    ]


def l1_table(c: pd.DataFrame) -> pd.DataFrame:
    t = c.iloc[len(PITCHES) :].copy().reset_index(drop=True)
    t.insert(0, "probe", [n for n, _ in L1_CASES])
    t.insert(1, "lines", [k for _, k in L1_CASES])
    t["cycles_per_request"] = t["cycles"] / (t["requests"] / SMS)  # every SM busy
    return t[
        [
            "probe",
            "lines",
            "sectors_per_request",
            "tag_lookups_per_request",
            "tag_wavefronts_per_request",
            "data_wavefronts_per_request",
            "cycles_per_request",
            "l1_throughput",
            "l1_hit_rate",
            "time_us",
        ]
    ]


def to_markdown(t: pd.DataFrame) -> str:
    """A pipe table, numbers to 3 significant digits (no tabulate dependency)."""

    def cell(v) -> str:
        return f"{v:.3g}" if isinstance(v, float) else str(v)

    rows = ["| " + " | ".join(t.columns) + " |", "|" + "---|" * len(t.columns)]
    rows += ["| " + " | ".join(cell(v) for v in r) + " |" for r in t.itertuples(index=False)]
    return "\n".join(rows)


def main() -> None:
    c = _counters()
    for title, t in (
        ("pointer chases", chase_table()),
        ("pitch sweep", pitch_table(c)),
        ("L1 lines", l1_table(c)),
    ):
        print(f"### {title}\n")
        print(to_markdown(t))
        print()


if __name__ == "__main__":
    main()
