"""The ``tracekit`` command line: a thin typer layer over library calls.

Every command is a library call plus printing.  User mistakes raise
:class:`~tracekit.errors.TracekitError` and end with exit code 2 and a one-line
(or short) message; internal failures keep their traceback and exit 1.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from tracekit.errors import TracekitError, printable
from tracekit.files import Terminated, sigterm_unwinds

#: Each command (or command group) and the module of tracekit.cli that registers it, in the
#: order ``tracekit --help`` lists them.  A command's module is imported only when the command
#: is run or its help is shown, so ``tracekit validate`` does not pay for what ``record``,
#: ``analyze`` or ``targets`` import.
COMMANDS = {"ingest": "trace", "validate": "trace", "info": "trace", "compare": "compare",
            "record": "record", "analyze": "analyze", "calibrate": "calibrate", "partition": "scale",
            "isa": "isa", "jobs": "jobs", "targets": "targets"}


def register_all(app: typer.Typer) -> None:
    """Register every command on ``app`` (for an app built without the lazy group)."""
    for module in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(f"tracekit.cli.{module}").register(app)


class LazyCommands(TyperGroup):
    """The top-level group: loads a command's module the first time the command is looked up."""

    def list_commands(self, ctx) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx, cmd_name: str):
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self._load(COMMANDS[cmd_name])
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx, args: list[str]):
        if args and args[0] not in COMMANDS:  # a typo: every name is needed to suggest the closest
            for module in dict.fromkeys(COMMANDS.values()):
                self._load(module)
        return super().resolve_command(ctx, args)

    def _load(self, module: str) -> None:
        """Add the commands that ``tracekit.cli.<module>`` registers to this group."""
        if any(name in self.commands for name, m in COMMANDS.items() if m == module):
            return
        part = typer.Typer(add_completion=False)
        importlib.import_module(f"tracekit.cli.{module}").register(part)
        for name, cmd in typer.main.get_group(part).commands.items():
            self.add_command(cmd, name)


app = typer.Typer(
    name="tracekit",
    help="Replay GPU kernel traces on models of PowerVR, Adreno, Intel and NVIDIA GPUs.",
    cls=LazyCommands,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    # A callback keeps the app a group of commands while none of them is loaded yet.
    pass


err_console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: runs the typer app and maps errors to exit codes.

    SIGTERM unwinds like Ctrl-C, so the output being written is removed on the way
    out; the process then ends by SIGTERM as its sender expects.
    """
    caller_handler = signal.getsignal(signal.SIGTERM)
    with sigterm_unwinds():
        try:
            app(args=argv, prog_name="tracekit")
            return
        except TracekitError as exc:
            err_console.print(f"[bold red]error:[/] {escape(printable(str(exc), newlines=True, limit=None))}")
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            err_console.print("interrupted")
            sys.exit(130)
        except Terminated:
            # The outputs were cleaned up while the exception unwound.  End here, while the
            # exception still holds the interrupted frames: releasing them would run the
            # finalisers of half-built objects (a JIT compile cut short), which only add noise.
            err_console.print("terminated")
            sys.stdout.flush()
            sys.stderr.flush()
            if caller_handler == signal.SIG_DFL:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGTERM)  # end as the signal's sender expects
            sys.exit(128 + signal.SIGTERM)


