"""Trace commands: ``ingest`` (convert other exports), ``validate`` (check), ``info`` (summarise).

Each command is one library call (:func:`tracekit.formats.ingest`,
:func:`tracekit.formats.validate_path`, :func:`tracekit.trace.summary.summarize`) plus
printing.  Bad input surfaces as :class:`~tracekit.errors.TracekitError`, which
the CLI entry point turns into exit code 2 without a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from tracekit.cli.safe import cell, console
from tracekit.errors import MESSAGE_LIMIT

_MAP_HELP = "Column map CANONICAL=SOURCE[,...], e.g. address=addr,item=tid."
_PRESET_HELP = "Column-name preset: flat (OpenCL-style names) or cuda (ctaid/tid/pc, SASS ops)."


def _csv_options(mapping, preset, kernel, global_size, local_size, launches, delimiter) -> dict:
    return dict(mapping=mapping, preset=preset, kernel=kernel, global_size=global_size,
                local_size=local_size, launches_file=launches, delimiter=delimiter)


Src = Annotated[Path, typer.Argument(help="CSV/TSV (plain or .gz), Parquet, or a trace to re-lay-out.")]
TracePath = Annotated[Path, typer.Argument(help="A trace (.tkt, .parquet) or a CSV export.")]
Output = Annotated[Path, typer.Option("-o", "--output", help="Destination: NAME.tkt or NAME.parquet.")]
MapOpt = Annotated[str | None, typer.Option("--map", help=_MAP_HELP)]
PresetOpt = Annotated[str | None, typer.Option("--preset", help=_PRESET_HELP)]
KernelOpt = Annotated[str | None, typer.Option(
    "--kernel", help="Kernel name when the source has no kernel column.")]
GlobalOpt = Annotated[str | None, typer.Option(
    "--global", help="Global size X[,Y,Z] of every launch (CSV).")]
LocalOpt = Annotated[str | None, typer.Option(
    "--local", help="Local (work-group) size X[,Y,Z] (CSV).")]
LaunchesOpt = Annotated[Path | None, typer.Option(
    "--launches", help="Launch facts JSON (default: BASE.launches.json beside the source, if present).")]
DelimOpt = Annotated[str | None, typer.Option(
    "--delimiter", help="CSV delimiter (default: guessed from the header).")]
FormatOpt = Annotated[str | None, typer.Option(
    "--format", help="Source format: csv, parquet or traceg (Accel-Sim); default: from the file.")]
LayoutOpt = Annotated[str | None, typer.Option(
    "--layout", help="tkt or parquet (default: from the suffix of -o).")]


def register(app: typer.Typer) -> None:
    @app.command()
    def ingest(src: Src, output: Output, mapping: MapOpt = None, preset: PresetOpt = None,
               kernel: KernelOpt = None, global_size: GlobalOpt = None, local_size: LocalOpt = None,
               launches: LaunchesOpt = None, delimiter: DelimOpt = None, layout: LayoutOpt = None,
               source_format: FormatOpt = None) -> None:
        """Convert a CSV, Parquet or Accel-Sim .traceg export into a canonical trace."""
        from tracekit.formats import ingest as run_ingest
        from tracekit.formats import is_foreign, open_trace
        con = console(soft_wrap=True)
        if is_foreign(src, source_format):
            path = run_ingest(src, output, source_format=source_format, layout=layout)
            t = open_trace(path)
            con.print(f"wrote {cell(path, None)}: {t.num_accesses:,} accesses, "
                      f"{t.launches.num_rows} launch(es)")
            return
        opts = _csv_options(mapping, preset, kernel, global_size, local_size, launches, delimiter)
        result = run_ingest(src, output, source_format=source_format, layout=layout, **opts)
        con.print(f"wrote {cell(result.path, None)}: {result.accesses:,} accesses, "
                  f"{result.launches} launch(es)")
        mapped = ", ".join(f"{k}<-{v}" for k, v in result.columns.items() if k != v)
        if mapped:
            con.print(f"columns: {cell(mapped, MESSAGE_LIMIT)}")
        for note in result.notes:
            con.print(f"note: {cell(note, MESSAGE_LIMIT)}")

    @app.command()
    def validate(trace: TracePath, mapping: MapOpt = None, preset: PresetOpt = None,
                 kernel: KernelOpt = None, global_size: GlobalOpt = None, local_size: LocalOpt = None,
                 launches: LaunchesOpt = None, delimiter: DelimOpt = None) -> None:
        """Check a trace against trace format v1; exit 0 if valid, 2 if not."""
        from tracekit.formats import is_csv_path, validate_path
        opts = _csv_options(mapping, preset, kernel, global_size, local_size, launches, delimiter)
        report = validate_path(trace, **(opts if is_csv_path(trace) else {}))
        out = console(soft_wrap=True)
        err = console(stderr=True, soft_wrap=True)
        for line in report.lines():
            (err if line.startswith("error") else out).print(cell(line, MESSAGE_LIMIT))
        c = report.counts
        if report.ok:
            out.print(f"valid: {c.get('accesses', 0):,} accesses, {c.get('instructions', 0):,} instruction "
                      f"rows, {c.get('launches', 0)} launch(es), {len(report.warnings)} warning(s)")
            return
        err.print(f"invalid: {len(report.errors)} kind(s) of error in {cell(trace, None)}")
        raise typer.Exit(2)

    @app.command()
    def info(trace: TracePath,
             as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False
             ) -> None:
        """Summarise a trace: kernels, launches, accesses per space and op, work-group shapes."""
        from tracekit.formats import open_trace
        from tracekit.trace.summary import summarize, to_json
        s = summarize(open_trace(trace))
        if as_json:
            typer.echo(to_json(s))
            return
        _print_summary(s)


#: Launches (and kernel names) the text summary lists; ``info --json`` lists every one.
LISTED_LAUNCHES = 200
LISTED_KERNELS = 50


def _listed(names: list[str], limit: int) -> str:
    shown = ", ".join(cell(n) for n in names[:limit]) or "-"
    return shown + (f", ... ({len(names):,} in all)" if len(names) > limit else "")


def _print_summary(s) -> None:
    con = console()
    con.print(f"[bold]{cell(s.path, None)}[/] ({cell(s.layout)}): {s.total_accesses:,} accesses, "
              f"{s.total_bytes:,} bytes, kernels: {_listed(s.kernels, LISTED_KERNELS)}")
    _print_launches(con, s)
    _print_spaces(con, s)


def _print_launches(con, s) -> None:
    """The launches table, its first :data:`LISTED_LAUNCHES` rows (a terminal table of a hundred
    thousand rows helps nobody and takes minutes to lay out)."""
    t = Table(title="launches", title_justify="left")
    for col, just in (("kernel", "left"), ("launch", "right"), ("global", "right"), ("local", "right"),
                      ("accesses", "right"), ("bytes", "right"), ("groups", "right")):
        t.add_column(col, justify=just)
    for r in s.launch_rows[:LISTED_LAUNCHES]:
        total = f"{r['groups_total']:,}" if r["groups_total"] is not None else "?"
        groups = f"{r['groups_recorded']:,} of {total}" + (" (sampled)" if r["sampled"] else "")
        t.add_row(cell(r["kernel"]), str(r["launch"]), cell(r["global_size"]), cell(r["local_size"]),
                  f"{r['accesses']:,}", f"{r['bytes']:,}", groups)
    con.print(t)
    more = len(s.launch_rows) - LISTED_LAUNCHES
    if more > 0:
        con.print(f"... and {more:,} more launch(es); `tracekit info --json` lists them all")


def _print_spaces(con, s) -> None:
    t = Table(title="accesses per space and op", title_justify="left")
    for col, just in (("space", "left"), ("op", "left"), ("accesses", "right"), ("bytes", "right"),
                      ("share", "right")):
        t.add_column(col, justify=just)
    for r in s.space_rows:
        share = r["accesses"] / s.total_accesses if s.total_accesses else 0
        t.add_row(cell(r["space"]), cell(r["op"]), f"{r['accesses']:,}", f"{r['bytes']:,}", f"{share:.1%}")
    con.print(t)
    t = Table(title="work-group shapes", title_justify="left")
    for col in ("local size", "items per group", "launches"):
        t.add_column(col, justify="right")
    for r in s.shape_rows:
        items = r["items_per_group"]
        t.add_row(cell(r["local_size"]), "?" if items is None else str(items), str(r["launches"]))
    con.print(t)
    con.print(f"{s.sites:,} sites, {s.instructions:,} instruction rows")
