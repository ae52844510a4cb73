"""``tracekit isa``: build a trace's kernels with Intel's offline compiler and store the
machine code in the trace (or, given only a kernel file, print what the compiler made).
A thin layer over :mod:`tracekit.isa`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from tracekit.cli.safe import cell
from tracekit.cli.safe import console as make_console

HELP = """Build kernels for the Intel targets with ocloc and keep their machine code.

  tracekit isa T.tkt                 build the kernels the trace launched (source kept in the trace)
  tracekit isa T.tkt --source K.cl   ... from this source file instead
  tracekit isa K.cl -o T.tkt         the same, the kernel file first
  tracekit isa K.cl                  print the summary only (SIMD width, registers, scratch)

Targets: every Intel target with an \\[isa] section, or those named with --target.
"""


def summary_table(kernels) -> Table:
    table = Table(show_lines=False)
    for col in ("target", "kernel", "SIMD", "GRF used/given", "scratch B", "spills", "instr.", "sends",
                "lines"):
        table.add_column(col)
    for k in kernels:
        sends = ", ".join(f"{n} {c}" for c, n in k.send_counts.items() if c != "eot")
        table.add_row(cell(k.target or k.device), cell(k.kernel), str(k.simd_width),
                      f"{k.grf_used}/{k.grf_count}", str(k.scratch_bytes), "yes" if k.spill_fill else "no",
                      str(len(k.instructions)), cell(sends), cell(k.line_mapping))
    return table


def register(app: typer.Typer) -> None:
    @app.command(help=HELP)
    def isa(
        path: Annotated[Path, typer.Argument(help="a trace (.tkt, .parquet), or a kernel file (.cl)")],
        out: Annotated[Path | None, typer.Option(
            "-o", "--out", help="with a .cl file: the trace to add the machine code to")] = None,
        source: Annotated[Path | None, typer.Option(
            "--source", "-s", help="kernel source to build instead of the one kept in the trace")] = None,
        target: Annotated[list[str] | None, typer.Option(
            "--target", "-t",
            help="Intel target name or file (repeatable; default: all with \\[isa])")] = None,
        options: Annotated[str, typer.Option(
            "--build-options", "-b", help="with a .cl file and no trace: build options")] = "",
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="print nothing on success")] = False,
    ) -> None:
        from tracekit.errors import TracekitError
        from tracekit.isa.attach import attach, isa_targets
        from tracekit.isa.compile import compile_source

        console = make_console(width=max(Console().width, 150))
        if path.suffix == ".cl":
            if source is not None:
                raise TracekitError("give the kernel file once: either first or with --source")
            if not path.is_file():
                raise TracekitError("no such kernel file", path=str(path))
            if out is None:
                kernels = []
                for t in isa_targets(target):
                    for k in compile_source(path.read_text(errors="replace"), t.isa.ocloc_device,
                                            t.isa.iga_platform, options=options, source_name=str(path)):
                        k.target = t.name
                        kernels.append(k)
                console.print(summary_table(kernels))
                return
            trace_path, source = out, path
        else:
            if out is not None:
                raise TracekitError("-o is for a kernel file first (tracekit isa K.cl -o T.tkt); a trace is "
                                    "updated in place")
            trace_path = path
        from tracekit.files import refuse_overwriting_inputs
        from tracekit.targets.loader import target_file
        # the trace itself is updated in place; what it is built from must not be it
        refuse_overwriting_inputs(trace_path, [source, *map(target_file, target or [])])
        build = attach(trace_path, target, source_path=source)
        if not quiet:
            console.print(summary_table(build.kernels))
            typer.echo(f"stored machine code of {len(build.kernels)} kernel build(s) in {trace_path}")
