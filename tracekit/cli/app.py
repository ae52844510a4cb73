"""The ``tracekit`` command line: a thin typer layer over library calls.

Every command is a library call plus printing.  User mistakes raise
:class:`~tracekit.errors.TracekitError` and end with exit code 2 and a one-line
(or short) message; internal failures keep their traceback and exit 1.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape

from tracekit.errors import TracekitError


def register_all(app: typer.Typer) -> None:
    from tracekit.cli import analyze as analyze_cmds
    from tracekit.cli import calibrate as calibrate_cmds
    from tracekit.cli import compare as compare_cmds
    from tracekit.cli import isa as isa_cmds
    from tracekit.cli import jobs as jobs_cmds
    from tracekit.cli import record as record_cmds
    from tracekit.cli import scale as scale_cmds
    from tracekit.cli import targets as targets_cmds
    from tracekit.cli import trace as trace_cmds

    trace_cmds.register(app)
    jobs_cmds.register(app)
    targets_cmds.register(app)
    compare_cmds.register(app)
    record_cmds.register(app)
    analyze_cmds.register(app)
    calibrate_cmds.register(app)
    scale_cmds.register(app)
    isa_cmds.register(app)


app = typer.Typer(
    name="tracekit",
    help="Replay GPU kernel traces on models of PowerVR, Adreno, Intel and NVIDIA GPUs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
register_all(app)

err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: runs the typer app and maps errors to exit codes."""
    try:
        app(args=argv, prog_name="tracekit")
    except TracekitError as exc:
        err_console.print(f"[bold red]error:[/] {escape(str(exc))}")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)


