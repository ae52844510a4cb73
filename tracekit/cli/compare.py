"""``tracekit compare BEFORE AFTER --target T``: what changed between two traces of one kernel."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tracekit.errors import TracekitError

FORMATS = ("html", "pdf", "json")


def _format(fmt: str | None, out: Path) -> str:
    if fmt is None:
        suffix = out.suffix.lower().lstrip(".")
        fmt = suffix if suffix in FORMATS else "html"
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise TracekitError(f"--format {fmt!r} is not known; expected one of: {', '.join(FORMATS)}")
    return fmt


def run_compare(before: str, after: str, target: str, out: Path, fmt: str | None = None) -> str:
    """Library call behind the command: compare, then write ``out`` in the chosen format."""
    from tracekit.files import refuse_overwriting_inputs, write_atomic
    from tracekit.formats import input_files
    from tracekit.pipeline import compare
    from tracekit.report.render import render_report
    from tracekit.targets.loader import target_file

    fmt = _format(fmt, out)
    refuse_overwriting_inputs(out, [*input_files(before), *input_files(after), target_file(target)])
    comparison = compare(before, after, target)
    if fmt == "json":
        text = json.dumps(comparison.to_dict(), indent=2, sort_keys=True, allow_nan=False) + "\n"
        write_atomic(out, text)
    else:
        render_report(comparison, fmt, out)
    return fmt


def register(app: typer.Typer) -> None:
    @app.command("compare")
    def compare_cmd(
        before: Annotated[str, typer.Argument(help="Trace before the change (.tkt, .parquet or CSV).")],
        after: Annotated[str, typer.Argument(help="Trace after the change.")],
        target: Annotated[str, typer.Option("--target", "-t", help="Target name or path to a TOML file.")],
        out: Annotated[Path, typer.Option("--output", "-o", help="File to write.")],
        fmt: Annotated[str | None, typer.Option(
            "--format", "-f", help="html, pdf or json (default: the output suffix, else html).")] = None,
    ) -> None:
        """Report what changed between two traces of the same kernel: metrics, verdict, findings."""
        written = run_compare(before, after, target, out, fmt)
        typer.echo(f"wrote {out} ({written})")
