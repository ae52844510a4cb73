"""``tracekit record``: run a kernel (or a whole OpenCL program) on Oclgrind and
write its trace.  A thin layer over :mod:`tracekit.recorder`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tracekit.errors import RecordError

#: Largest --align: a base alignment beyond 1 GiB would put a few buffers past any real address space.
ALIGN_MAX = 1 << 30

HELP = """Record a trace by running OpenCL code on the Oclgrind simulator.

One kernel from its source file:

  tracekit record vadd.cl --kernel vadd --global 1024 --local 64
      --arg float[1024]=rand --arg float[1024]=range --arg float[1024] --arg int:1024 -o vadd.tkt

Every launch of a host program (C, C++, Python with pyopencl):

  tracekit record -o app.tkt -- python host.py

--arg syntax: float[N] (zeros), float[N]=1.5, float[N]=rand[:SEED[:LO:HI]],
int[N]=range[:START[:STEP]], float[N]=@x.npy or @x.npy, int:42, float4:1,2,3,4,
local:BYTES or local:float[256], img:rgba:float:W,H[=INIT] (image1d/2d/3d by the number of sizes),
sampler:ADDRESSING,FILTER[,normalized].  See docs/recording.md.
"""


def register(app: typer.Typer) -> None:
    @app.command(help=HELP, context_settings={"allow_interspersed_args": True})
    def record(
        out: Annotated[Path, typer.Option(
            "-o", "--out", help="trace to write (NAME.tkt or NAME.parquet)")],
        items: Annotated[list[str] | None, typer.Argument(
            metavar="KERNEL.cl | -- COMMAND...",
            help="kernel source file, or the host program after --")] = None,
        kernel: Annotated[str | None, typer.Option(
            "--kernel", "-k", help="kernel name (kernel-file mode)")] = None,
        global_size: Annotated[str | None, typer.Option(
            "--global", "-g", help="global size X[,Y[,Z]]")] = None,
        local_size: Annotated[str | None, typer.Option(
            "--local", "-l", help="work-group size X[,Y[,Z]]")] = None,
        arg: Annotated[list[str] | None, typer.Option(
            "--arg", "-a", help="one per kernel argument, in order")] = None,
        build_options: Annotated[str, typer.Option(
            "--build-options", "-b", help="passed to the OpenCL compiler")] = "",
        define: Annotated[list[str] | None, typer.Option(
            "-D", "--define", help="NAME[=VALUE], added as -DNAME=VALUE")] = None,
        sample: Annotated[str, typer.Option(
            "--sample", help="work-groups to record: all, first:N, every:K, random:N[:SEED]")] = "all",
        align: Annotated[int, typer.Option(
            "--align", min=1, max=ALIGN_MAX,
            help="alignment of global buffer base addresses (bytes, a power of two up to 1 GiB)")] = 4096,
        local_mem_size: Annotated[int | None, typer.Option(
            "--local-mem-size", help="local memory of the simulated device, bytes per work-group "
                                     "(default: that of --target, else the largest of the shipped "
                                     "targets)")] = None,
        target: Annotated[list[str] | None, typer.Option(
            "--target", "-t", help="GPU the trace is for (name or .toml, repeatable): the simulated "
                                   "device gets its local memory (the largest of those named)")] = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="print nothing on success")] = False,
        isa: Annotated[bool, typer.Option(
            "--isa/--no-isa", help="also build the kernels for the Intel targets with ocloc and keep "
                                   "their machine code in the trace")] = True,
    ) -> None:
        items = list(items or [])
        from tracekit.recorder.device import local_memory_limit
        local = local_memory_limit(local_mem_size, list(target or []))
        options = " ".join([build_options] + [f"-D{d}" for d in (define or [])]).strip()
        _refuse_overwriting(out, items, list(arg or []), kernel is not None)
        if kernel is not None:
            if len(items) != 1:
                raise RecordError("with --kernel give exactly one kernel source file "
                                  f"(got {len(items)} positional argument(s))")
            from tracekit.recorder import record_kernel
            result = record_kernel(items[0], kernel, global_size=global_size, local_size=local_size,
                                   args=list(arg or []), out=out, build_options=options,
                                   sample=sample, alignment=align, local_mem_size=local)
        else:
            if not items:
                raise RecordError("nothing to record: give KERNEL.cl --kernel NAME ..., or -- COMMAND ...")
            if items[0].endswith(".cl"):
                raise RecordError(f"{items[0]} is a kernel file: say which kernel with --kernel NAME")
            if arg or global_size or local_size or options:
                raise RecordError("--arg/--global/--local/--build-options only apply with --kernel; "
                                  "a host program sets these itself")
            from tracekit.recorder import record_command
            result = record_command(items, out, sample=sample, alignment=align, local_mem_size=local)
        _report(result, quiet)
        if isa:
            _machine_code(result.path, quiet)


def _text(value) -> str:
    """Compiler and interpreter output, and the kernel names in it, made printable (lines kept)."""
    from tracekit.errors import MESSAGE_LIMIT, printable
    return printable(value, newlines=True, limit=MESSAGE_LIMIT)


def _refuse_overwriting(out: Path, items: list[str], args: list[str], kernel_mode: bool) -> None:
    """The trace must not replace the kernel file, a data file named by ``--arg ...@FILE``, or a
    file handed to the host program (its other arguments may be anything, so only files count)."""
    from tracekit.files import refuse_overwriting_inputs
    data = [a.split("@", 1)[1] for a in args if "@" in a]
    inputs = items if kernel_mode else [i for i in items if Path(i).is_file()]
    refuse_overwriting_inputs(out, [*inputs, *data])


def _machine_code(path, quiet: bool) -> None:
    """Build the recorded kernels for the Intel targets; a failure only costs the Intel
    targets their machine-code model (they fall back to the IR model), never the trace."""
    from tracekit.isa.attach import attach
    build = attach(path, strict=False)
    for note in build.notes:
        typer.secho("note: " + _text(note).replace("\n", "\n  "), fg="yellow", err=True)
    if build.kernels and not quiet:
        widths = ", ".join(sorted({f"{_text(k.target)} {_text(k.kernel)} SIMD{k.simd_width}"
                                   for k in build.kernels}))
        typer.echo(f"machine code for the Intel targets: {widths}")


def _report(result, quiet: bool) -> None:
    n = len(result.launches)
    if not quiet:
        typer.echo(f"recorded {n} launch(es): {result.accesses:,} accesses, "
                   f"{result.instructions:,} instruction-count rows -> {result.path}")
    for (kernel, status) in result.launches:
        if status not in ("ok", "host_failed"):
            typer.secho(f"warning: launch of {_text(kernel)} flagged '{_text(status)}'", fg="yellow",
                        err=True)
    if result.flagged:
        for d in result.diagnostics[:5]:
            typer.secho("  " + _text(d).replace("\n", "\n  "), err=True)
    if result.flagged and not result.accesses and not result.instructions:
        first = next((": ".join(x.strip() for x in str(d).strip().splitlines()[:2])
                      for d in result.diagnostics if str(d).strip()), "")
        raise RecordError("Oclgrind could not run the kernel, so nothing was recorded"
                          + (f" ({_text(first)})" if first else "") + "; the trace written holds no accesses",
                          path=str(result.path))
    if result.host_exit_code:
        raise RecordError(f"the host program exited with status {result.host_exit_code}; the trace keeps "
                          f"the {n} launch(es) recorded before that, flagged in their metadata",
                          path=str(result.path))
