"""Error types that separate the user's mistakes from ours.

The CLI maps :class:`TracekitError` (bad input: a trace, a target file, a flag) to
exit code 2 with a one-paragraph message and no traceback; anything else is an
internal failure (exit 1).  Messages always name *where* the problem is (file,
row, column or key) and *what was expected*, because the person reading them is
usually looking at a file they did not write.
"""

from __future__ import annotations


class TracekitError(Exception):
    """Bad input from the user.  ``str()`` is the full, user-facing message."""

    exit_code = 2

    def __init__(self, message: str, *, path: str | None = None, row: int | None = None,
                 column: str | None = None, hint: str | None = None):
        self.message = message
        self.path = None if path is None else str(path)
        self.row = row
        self.column = column
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.path:
            where.append(self.path)
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column:
            where.append(f"column '{self.column}'")
        text = (": ".join([", ".join(where), self.message]) if where else self.message)
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class TraceFormatError(TracekitError):
    """A trace file that does not follow trace format v1 (docs/trace-format.md)."""


class TargetError(TracekitError):
    """A target model file with a missing, unknown or impossible field."""


class RecordError(TracekitError):
    """The recorder could not produce a trace (kernel build failure, bad --arg ...)."""


class MissingToolError(TracekitError):
    """A system tool or library is not installed; the message names the packages."""
