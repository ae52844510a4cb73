"""``python -m tracekit.cli``: the same as the ``tracekit`` command."""

from tracekit.cli.app import main

main()
