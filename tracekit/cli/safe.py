"""Showing input-derived text with rich: never as markup, never with emoji codes, never raw.

rich reads ``[bold]`` in a string as markup and ``:skull:`` as an emoji code, and passes
escape sequences straight to the terminal.  Names in a trace, a target file or a ledger
are data, so every one of them goes through :func:`cell` before it reaches a console, and
every console is made by :func:`console`, which turns emoji codes off.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from tracekit.errors import VALUE_LIMIT, printable


def cell(value: object, limit: int | None = VALUE_LIMIT) -> str:
    """``value`` as rich markup that shows exactly its printable form (see ``printable``)."""
    return escape(printable(value, limit=limit))


def console(**options) -> Console:
    """A rich console for tracekit output: no emoji codes, no guessing of numbers to highlight."""
    options.setdefault("highlight", False)
    return Console(emoji=False, **options)
