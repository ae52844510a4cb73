"""``tracekit calibrate``: the model against Nsight Compute counters, launch by launch."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from tracekit.cli.safe import cell
from tracekit.cli.safe import console as make_console

HELP = """Compare a trace replayed on a target with Nsight Compute measurements.

  tracekit calibrate tests/data/h200/ncu_raw.csv tests/data/h200/twins/twins.tkt --target nvidia-h200

MEASURED is `ncu --csv --page raw` output; the Speed-of-Light verdicts come from
the `--page details` export given with --sol (default: the file named like
MEASURED with 'raw' replaced by 'sol', when it exists).  See docs/calibration.md.
"""

_COLUMNS = (("sectors_per_request", "sectors/req", "{:.2f}"), ("l1_hit_rate", "L1 hit", "{:.0%}"),
            ("l2_hit_rate", "L2 hit", "{:.0%}"), ("shared_wavefronts_per_request", "shared wf/req", "{:.2f}"),
            ("threads_per_instruction", "threads/inst", "{:.1f}"), ("time_ns", "time µs", "{:.4g}"),
            ("dram_bytes", "DRAM MB", "{:.4g}"), ("verdict", "verdict", "{}"))
_SCALE = {"time_ns": 1e-3, "dram_bytes": 1e-6}


def _cell(fmt: str, v, scale: float = 1.0) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return fmt.format(v * scale if scale != 1.0 else v)


def render(cal, console: Console) -> None:
    wide = cal.wide()
    t = Table(title=f"model ({cell(cal.target)}) | hardware, per measured launch")
    t.add_column("ncu id", justify="right")
    t.add_column("kernel")
    for _, title, _ in _COLUMNS:
        t.add_column(title, justify="right")
    for _, row in wide.iterrows():
        cells = [cell(row["ncu_id"]), cell(row["kernel"])]
        for q, _, fmt in _COLUMNS:
            k = _SCALE.get(q, 1.0)
            cells.append(f"{_cell(fmt, row.get(q + '_model'), k)} | {_cell(fmt, row.get(q + '_hw'), k)}")
        t.add_row(*cells)
    console.print(t)
    s = Table(title="agreement")
    for c in ("quantity", "launches", "mean abs error", "max abs error", "agreement"):
        s.add_column(c, justify="left" if c == "quantity" else "right")
    for _, r in cal.stats.iterrows():
        s.add_row(cell(r["quantity"]), str(r["launches"]), _cell("{:.3f}", r["mean_abs_error"]),
                  _cell("{:.3f}", r["max_abs_error"]), _cell("{:.0%}", r["agreement"]))
    console.print(s)


def register(app: typer.Typer) -> None:
    @app.command(help=HELP)
    def calibrate(
        measured: Annotated[Path, typer.Argument(help="ncu --csv --page raw export")],
        trace: Annotated[Path, typer.Argument(help="trace of the same launches (e.g. the OpenCL twins)")],
        target: Annotated[str, typer.Option(
            "--target", "-t", help="target name or TOML file")] = "nvidia-h200",
        sol: Annotated[Path | None, typer.Option(
            "--sol", help="ncu --page details export (SOL rule)")] = None,
        csv_out: Annotated[Path | None, typer.Option(
            "--csv", help="also write the long table as CSV")] = None,
    ) -> None:
        from tracekit.calibration.calibrate import calibrate as run
        from tracekit.calibration.calibrate import default_sol_path

        sol_path = sol if sol is not None else default_sol_path(measured)
        if csv_out is not None:
            from tracekit.files import refuse_overwriting_inputs
            from tracekit.formats import input_files
            from tracekit.targets.loader import target_file
            refuse_overwriting_inputs(csv_out, [measured, sol_path, *input_files(trace), target_file(target)])
        cal = run(measured, trace, target, sol=sol_path)
        console = make_console(width=160)
        if sol_path is None:
            console.print("[yellow]no Speed-of-Light export given (--sol): verdicts are not compared[/]")
        render(cal, console)
        if csv_out is not None:
            from tracekit.files import write_atomic
            write_atomic(csv_out, cal.frame.to_csv(index=False))
