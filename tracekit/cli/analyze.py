"""``tracekit analyze``: every launch of a trace on every target, as JSON, HTML or PDF.

A thin layer over :func:`tracekit.pipeline.analyze`: read the trace once, analyse it
on each ``--target``, write one document.  A launch that cannot run on a target is an
error *inside* the document for that target; the others still run.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from tracekit.arguments import SEED_MAX, WORKERS_MAX
from tracekit.errors import TracekitError, printable
from tracekit.files import refuse_overwriting_inputs, write_atomic


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    html = "html"
    pdf = "pdf"


def run_analyze(trace_path: str, targets: list[str], fmt: str = "json",
                output: str | None = None, **scale) -> str | None:
    """Library form of the command: returns the text when no output path is given.

    ``scale``: workers, scheduler, shard, sample_groups, seed, progress, what_if.
    """
    from tracekit import pipeline
    from tracekit.formats import input_files
    from tracekit.targets.loader import target_file

    stdout = output in (None, "-")
    if not stdout:
        refuse_overwriting_inputs(output, [*input_files(trace_path), *map(target_file, targets)])
    if scale.get("what_if"):
        from analyzers.result_dict import dumps
        doc = pipeline.what_if_document(trace_path, targets, scale["what_if"],
                                        progress=scale.get("progress", True))
        if fmt == "text":
            text = _console_text(doc, stdout, "what-if")
        elif fmt == "json":
            text = dumps(doc)
        else:
            raise TracekitError("--what-if writes text or JSON: use --format text or json")
        return text if stdout else (write_atomic(output, text) and None)
    if scale.get("sample_groups") is not None:
        if fmt != "json":
            raise TracekitError("--sample-groups writes estimates as JSON only: use --format json")
        from analyzers.result_dict import dumps
        text = dumps(pipeline.sampled_document(trace_path, targets, scale["sample_groups"],
                                               scale.get("seed", 0), progress=scale.get("progress", True)))
        return text if stdout else (write_atomic(output, text) and None)
    if fmt in ("html", "pdf") and stdout:
        raise TracekitError(f"--format {fmt} writes a file: give -o PATH")
    analysis = pipeline.analyze(trace_path, targets, workers=scale.get("workers"),
                                scheduler=scale.get("scheduler"), shard=scale.get("shard", "launch"),
                                progress=scale.get("progress", True))
    if fmt == "text":
        text = _console_text(analysis.document(), stdout, "analysis")
        return text if stdout else (write_atomic(output, text) and None)
    if fmt == "json" and stdout:
        return analysis.to_json()
    pipeline.write(analysis, fmt, output)
    return None


def _console_text(doc: dict, stdout: bool, kind: str) -> str:
    """The terminal rendering of an analysis (table and checklist) or a what-if document."""
    import io

    from tracekit.cli.analyze_text import render_table, render_what_if
    from tracekit.cli.safe import console as make_console
    buf = io.StringIO()
    console = make_console(file=buf, force_terminal=stdout and sys.stdout.isatty(), width=140)
    (render_what_if if kind == "what-if" else render_table)(doc, console)
    return buf.getvalue()


TraceArg = Annotated[str, typer.Argument(help="A trace (.tkt directory, .parquet file) or a CSV export.")]
TargetOpt = Annotated[list[str] | None, typer.Option(
    "--target", "-t", help="A shipped target name or a .toml path; repeat for several.")]
FormatOpt = Annotated[OutputFormat | None, typer.Option(
    "--format", "-f", help="text, json, html or pdf (default: text on a terminal, else from the -o suffix, "
    "else json).")]
OutputOpt = Annotated[str | None, typer.Option("--output", "-o", help="Output file (JSON: stdout if none).")]
WorkersOpt = Annotated[int | None, typer.Option(
    "--workers", min=1, max=WORKERS_MAX,
    help=f"Run on a local Dask cluster of N (1 to {WORKERS_MAX}: four per CPU core, at most 256).")]
SchedulerOpt = Annotated[str | None, typer.Option("--scheduler", help="Run on an existing Dask cluster.")]
ShardOpt = Annotated[str, typer.Option("--shard", help="Dask shard: launch (exact) or compute_unit.")]
SampleOpt = Annotated[float | None, typer.Option(
    "--sample-groups", help="Estimate from this fraction of work-groups (in (0, 1]), with error bars.")]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, max=SEED_MAX,
                                      help=f"Seed of --sample-groups (0 to {SEED_MAX}).")]
WhatIfOpt = Annotated[str | None, typer.Option(
    "--what-if", help="Replay every launch with a fix applied and show before/after: pad-local=ROW:PAD, "
    "coalesce=BUFFER, align=SITE, drop-staging, vector-loads, keep-in-register=SITE, no-private, "
    "work-group=X[,Y], fast-math, native-math, fp32[=SITES], pad-pitch=BUFFER:PITCH:PAD, "
    "as-image=BUFFER[:SITE,...], filter-image=BUFFER:SITE,..., sampler-borders=SITE,..., read-imageh, "
    "vector-loop-loads=SITE,..., coarsen=N, retype=FROM>TO[.TO...][@SITE,...], regroup[=SITE,...], "
    "sort-work=SITE, swizzle=TILE, declare-size, stage-local=SITE, gather-image=BUFFER, and on Intel's "
    "machine code no-spills, int32-index; join several with +.")]


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
                shard: ShardOpt = "launch", sample_groups: SampleOpt = None, seed: SeedOpt = 0,
                what_if: WhatIfOpt = None) -> None:
        """Analyse every launch of TRACE on every --target: verdict, time estimates, evidence and the
        checklist of fixes (or, with --what-if, the launch before and after one fix).

        Every core is used (TRACEKIT_JOBS=N: N processes, 1 for this one only)."""
        text = run_analyze(trace, list(target or []), _default_format(fmt, output), output,
                           workers=workers, scheduler=scheduler, shard=shard,
                           sample_groups=sample_groups, seed=seed, what_if=what_if)
        if text is not None:
            sys.stdout.write(text)
        elif output:
            typer.echo(f"wrote {printable(output, limit=None)}", err=True)
