"""Number formatting shared by templates, charts, the terminal table and job listings.

One place decides how a time, a byte count or a rate reads, so the HTML table,
the SVG label, the comparison delta and ``tracekit analyze -f text`` all agree.
"""

from __future__ import annotations

import math

_TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_BYTE_UNITS = ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB"))
_SI = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def fmt_time(seconds, *, plain: bool = False) -> str:
    """A time to three significant digits in the largest unit that keeps it at or above one.

    ``plain`` writes ASCII (``us``, ``-`` for a missing value) for terminals, logs and mail.
    """
    if _missing(seconds):
        return "-" if plain else "–"
    s = float(seconds)
    if s == 0:
        return "0 s"
    for scale, unit in _TIME_UNITS:
        if abs(s) >= scale:
            return f"{s / scale:.3g} {'us' if plain and unit == 'µs' else unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_bytes(n) -> str:
    if _missing(n):
        return "–"
    n = float(n)
    for scale, unit in _BYTE_UNITS:
        if abs(n) >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} B"


def fmt_num(x, digits: int = 3) -> str:
    """Counts with thousands separators; fractional values to ``digits`` significant digits."""
    if _missing(x):
        return "–"
    x = float(x)
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:.{digits}g}"


def fmt_si(x, unit: str = "") -> str:
    if _missing(x):
        return "–"
    x = float(x)
    for scale, prefix in _SI:
        if abs(x) >= scale:
            return f"{x / scale:.3g} {prefix}{unit}"
    return f"{x:.3g} {unit}".rstrip()


def fmt_pct(fraction, digits: int = 1) -> str:
    if _missing(fraction):
        return "–"
    return f"{100.0 * float(fraction):.{digits}f} %"


def fmt_delta(before, after, kind: str = "num") -> str:
    """Signed change with its relative size, e.g. ``-1.2 ms (-40.0 %)``."""
    if _missing(before) or _missing(after):
        return "–"
    diff = float(after) - float(before)
    if kind == "pct":
        return f"{100.0 * diff:+.1f} pt"
    text = {"time": fmt_time, "bytes": fmt_bytes}.get(kind, fmt_num)(abs(diff))
    sign = "+" if diff > 0 else ("-" if diff < 0 else "±")
    rel = f" ({100.0 * diff / float(before):+.1f} %)" if float(before) else ""
    return f"{sign}{text}{rel}"


FILTERS = {
    "time": fmt_time,
    "bytes": fmt_bytes,
    "num": fmt_num,
    "si": fmt_si,
    "pct": fmt_pct,
}
