"""The ``tracekit`` command line: the top layer, one module per command group.

Nothing in tracekit or analyzers imports this package; every command is a call
into the library plus printing (see :mod:`tracekit.cli.app`).
"""

from tracekit.cli.app import app, main

__all__ = ["app", "main"]
