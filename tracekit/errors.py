"""Error types that separate the user's mistakes from ours.

The CLI maps :class:`TracekitError` (bad input: a trace, a target file, a flag) to
exit code 2 with a one-paragraph message and no traceback; anything else is an
internal failure (exit 1).  Messages always name *where* the problem is (file,
row, column or key) and *what was expected*, because the person reading them is
usually looking at a file they did not write.
"""

from __future__ import annotations

import re


class TracekitError(Exception):
    """Bad input from the user.  ``str()`` is the full, user-facing message."""

    exit_code = 2

    def __init__(self, message: str, *, path: str | None = None, row: int | None = None,
                 column: str | None = None, hint: str | None = None):
        # Every part may quote the input (a kernel name, a header, a value), so each is made
        # printable here, once, for every way the error is shown later.
        self.message = printable(message, newlines=True, limit=MESSAGE_LIMIT)
        self.path = None if path is None else printable(path, limit=MESSAGE_LIMIT)
        self.row = row
        self.column = None if column is None else printable(column, limit=MESSAGE_LIMIT)
        self.hint = None if hint is None else printable(hint, newlines=True, limit=MESSAGE_LIMIT)
        super().__init__(self._render())

    def __reduce__(self):
        # raised in a worker process and shown here: keep every part, not only the rendered text
        return (_rebuild, (type(self), dict(self.__dict__)))

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


def _rebuild(cls, state: dict) -> TracekitError:
    err = cls.__new__(cls)
    err.__dict__.update(state)
    Exception.__init__(err, err._render())
    return err


class TraceFormatError(TracekitError):
    """A trace file that does not follow trace format v1 (docs/trace-format.md)."""


class TargetError(TracekitError):
    """A target model file with a missing, unknown or impossible field."""


class RecordError(TracekitError):
    """The recorder could not produce a trace (kernel build failure, bad --arg ...)."""


class MissingToolError(TracekitError):
    """A system tool or library is not installed; the message names the packages."""


# -- printable text ---------------------------------------------------------------------

#: Characters a terminal (or a reader) would act on instead of showing: C0 and C1 controls
#: (ESC starts colour, clear-screen and title sequences, BEL ends a title), DEL, lone
#: surrogates (which cannot even be encoded for output), line and paragraph separators, and
#: the invisible format characters, bidirectional overrides among them (which reorder what
#: follows them on the line).
_INVISIBLE = ("\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
              "\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff"
              "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
              "\U000e0001\U000e0020-\U000e007f")
_UNPRINTABLE = re.compile(f"[\x00-\x1f{_INVISIBLE}]")
#: The same less line feed and tab, for text of several lines.
_UNPRINTABLE_KEEP_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_INVISIBLE}]")

#: The longest value shown in full; anything from an input longer than this is cut, with a
#: marker saying how much was left out.
VALUE_LIMIT = 200
#: The same for a whole error message, which may quote several values.
MESSAGE_LIMIT = 4000


_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape_char(match: re.Match) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(value: object, *, limit: int | None = VALUE_LIMIT, newlines: bool = False) -> str:
    """``value`` as text that is safe to show on a terminal, in a log or in a table cell.

    Control and invisible format characters are written as visible escapes (``\\x1b``,
    ``\\u202e``), so a name can neither move the cursor, recolour or clear the screen, set
    the window title nor reorder the line, and the reader still sees that they are there.
    ``newlines=True`` keeps line feeds and tabs (a message of several lines).  Bytes are
    decoded as UTF-8 with anything undecodable escaped, never shown raw.  Text longer than
    ``limit`` characters is cut, with a marker giving the full length.
    """
    if isinstance(value, bytes | bytearray | memoryview):
        return _printable_bytes(bytes(value), limit)
    text = value if isinstance(value, str) else str(value)
    total = len(text)
    cut = limit is not None and total > limit
    if cut:
        text = text[:limit]
    text = (_UNPRINTABLE_KEEP_LINES if newlines else _UNPRINTABLE).sub(_escape_char, text)
    return text + f"... [{total - limit:,} more characters]" if cut else text


def _printable_bytes(data: bytes, limit: int | None) -> str:
    """Bytes as escaped text: valid UTF-8 is shown as text, every other byte as ``\\xNN``."""
    cut = limit is not None and len(data) > limit
    text = data[:limit] if cut else data
    text = _UNPRINTABLE.sub(_escape_char, text.decode("utf-8", errors="backslashreplace"))
    return text + f"... [{len(data) - limit:,} more bytes]" if cut else text


def printable_list(items, *, each: int = 40, most: int = 20) -> str:
    """A short, printable, comma-separated excerpt of ``items`` (names read from an input).

    At most ``most`` items of at most ``each`` characters are shown, with a count of the rest,
    so a binary file read as a header, or a file with a million columns, cannot fill the
    screen with one message.
    """
    items = list(items)
    shown = ", ".join(printable(x, limit=each) for x in items[:most])
    return shown + (f", ... ({len(items) - most:,} more)" if len(items) > most else "")
