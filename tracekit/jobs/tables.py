"""Tables for ``jobs history``/``jobs status``: rich on a terminal, plain aligned text otherwise.

Plain output has no colour, no box characters and no wrapping to a guessed
terminal width, so it reads well in cron mail and CI logs and can be cut with
``awk``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tracekit.errors import MESSAGE_LIMIT, printable


def show_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]], *,
               file=None, terminal: bool | None = None) -> None:
    """Print ``rows`` under ``columns``.

    Every cell may come from an input (a kernel name, a path, an error message), so each is
    made printable first, and on a terminal given to rich as plain text, never as markup.
    """
    file = file or sys.stdout
    terminal = file.isatty() if terminal is None else terminal
    title = printable(title, limit=MESSAGE_LIMIT)
    cells = [["" if v is None else printable(v, limit=MESSAGE_LIMIT) for v in row] for row in rows]
    if terminal:
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        table = Table(title=Text(title), title_justify="left")
        for c in columns:
            table.add_column(Text(c), overflow="fold")
        for row in cells:
            table.add_row(*(Text(v) for v in row))
        Console(file=file, emoji=False, highlight=False).print(table)
        return
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    print(title, file=file)
    for row in [list(columns)] + cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip(), file=file)
    if not cells:
        print("(none)", file=file)


def fmt_change(change: float) -> str:
    return "new" if change == float("inf") else f"+{change * 100:.1f}%"
