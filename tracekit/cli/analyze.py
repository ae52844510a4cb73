"""``tracekit analyze``: every launch of a trace on every target, as JSON, HTML or PDF.

A thin layer over :func:`analyzers.analyze`: read the trace once, analyse it on
each ``--target``, write one document.  A launch that cannot run on a target is an
error *inside* the document for that target; the others still run.
"""

from __future__ import annotations

import os
import sys
import tempfile
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from tracekit.errors import TracekitError

FORMAT = "tracekit-analysis"
VERSION = 1


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    html = "html"
    pdf = "pdf"


def analysis_document(trace, results) -> dict:
    """The JSON document of one trace analysed on several targets (docs/json-schema.md)."""
    warnings = sorted({w for r in results for w in r.warnings})
    return {"format": FORMAT, "version": VERSION, "trace": str(trace.path),
            "targets": {r.target.name: r.to_dict() for r in results}, "warnings": warnings}


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _report(trace, results, fmt: str, out: Path) -> None:
    try:
        from analyzers.rules import build_contexts, run_rules
        from tracekit.report import build_report_model, render_report, summarize_trace
    except ImportError as exc:
        raise TracekitError(f"--format {fmt} needs the report renderer and the rules, which cannot be "
                            f"imported here ({exc}); use --format json") from None
    findings = []
    for r in results:
        findings += list(run_rules(build_contexts(trace, r.target, r)))
    model = build_report_model(summarize_trace(trace), {r.target.name: r for r in results}, findings,
                               targets={r.target.name: r.target for r in results})
    render_report(model, fmt, out)


def run_analyze(trace_path: str, targets: list[str], fmt: str = "json",
                output: str | None = None, **scale) -> str | None:
    """Library form of the command: returns the JSON text when no output path is given.

    ``scale``: workers, scheduler, shard, sample_groups, seed, progress (see commands/scale.py).
    """
    from analyzers.result_dict import dumps
    from tracekit.formats import open_trace
    from tracekit.targets import load_target

    if not targets:
        from tracekit.targets import list_targets
        raise TracekitError("give at least one --target (a shipped name or a .toml path); shipped: "
                            + ", ".join(list_targets()))
    loaded = [load_target(t) for t in targets]
    names = [t.name for t in loaded]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise TracekitError(f"target {', '.join(dup)} given more than once")
    trace = open_trace(trace_path)
    from tracekit.cli.scale import analyze_results, sampled_document
    if scale.get("sample_groups") is not None:
        if fmt != "json":
            raise TracekitError("--sample-groups writes estimates as JSON only: use --format json")
        text = dumps(sampled_document(trace, loaded, scale["sample_groups"], scale.get("seed", 0)))
        if output in (None, "-"):
            return text
        _write_atomic(Path(output), text.encode("utf-8"))
        return None
    results = analyze_results(trace, loaded, workers=scale.get("workers"), scheduler=scale.get("scheduler"),
                              shard=scale.get("shard", "launch"), show_progress=scale.get("progress", True))
    if fmt == "text":
        import io

        from rich.console import Console

        from tracekit.cli.analyze_text import render_table
        buf = io.StringIO()
        render_table(analysis_document(trace, results),
                     Console(file=buf, force_terminal=output in (None, "-") and sys.stdout.isatty(),
                             width=140, highlight=False))
        if output in (None, "-"):
            return buf.getvalue()
        _write_atomic(Path(output), buf.getvalue().encode("utf-8"))
        return None
    if fmt == "json":
        text = dumps(analysis_document(trace, results))
        if output in (None, "-"):
            return text
        _write_atomic(Path(output), text.encode("utf-8"))
        return None
    if output in (None, "-"):
        raise TracekitError(f"--format {fmt} writes a file: give -o PATH")
    _report(trace, results, fmt, Path(output))
    return None


TraceArg = Annotated[str, typer.Argument(help="A trace (.tkt directory, .parquet file) or a CSV export.")]
TargetOpt = Annotated[list[str] | None, typer.Option(
    "--target", "-t", help="A shipped target name or a .toml path; repeat for several.")]
FormatOpt = Annotated[OutputFormat | None, typer.Option(
    "--format", "-f", help="text, json, html or pdf (default: text on a terminal, else from the -o suffix, "
    "else json).")]
OutputOpt = Annotated[str | None, typer.Option("--output", "-o", help="Output file (JSON: stdout if none).")]
WorkersOpt = Annotated[int | None, typer.Option("--workers", help="Run on a local Dask cluster of N.")]
SchedulerOpt = Annotated[str | None, typer.Option("--scheduler", help="Run on an existing Dask cluster.")]
ShardOpt = Annotated[str, typer.Option("--shard", help="Dask shard: launch (exact) or compute_unit.")]
SampleOpt = Annotated[float | None, typer.Option(
    "--sample-groups", help="Estimate from this fraction of work-groups, with error bars.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of --sample-groups.")]


def _default_format(fmt: OutputFormat | None, output: str | None) -> str:
    """An explicit --format wins; else a table on a terminal, the -o suffix, or JSON for pipes."""
    if fmt is not None:
        return fmt.value
    if output in (None, "-"):
        return "text" if sys.stdout.isatty() else "json"
    suffix = Path(output).suffix.lower().lstrip(".")
    return {"html": "html", "htm": "html", "pdf": "pdf", "txt": "text"}.get(suffix, "json")


def register(app: typer.Typer) -> None:
    @app.command()
    def analyze(trace: TraceArg, target: TargetOpt = None, fmt: FormatOpt = None,
                output: OutputOpt = None, workers: WorkersOpt = None, scheduler: SchedulerOpt = None,
                shard: ShardOpt = "launch", sample_groups: SampleOpt = None, seed: SeedOpt = 0) -> None:
        """Analyse every launch of TRACE on every --target: verdict, time estimates and the evidence."""
        text = run_analyze(trace, list(target or []), _default_format(fmt, output), output,
                           workers=workers, scheduler=scheduler, shard=shard,
                           sample_groups=sample_groups, seed=seed)
        if text is not None:
            sys.stdout.write(text)
        elif output:
            typer.echo(f"wrote {output}", err=True)
