"""Checks of the arguments of the public functions, shared by the command line and notebooks.

A wrong argument must fail where it is given, naming it, not three modules further
down as an ``AttributeError`` about something the caller never wrote.  The errors
raised here are both a :class:`~tracekit.errors.TracekitError` (the command line
prints the message and exits 2) and the built-in type a Python caller expects:
:class:`ArgumentTypeError` is a ``TypeError``, :class:`ArgumentValueError` a
``ValueError``.

The documented limits of the numeric options live here too (docs/cli.md):
:data:`SEED_MAX`, :data:`WORKERS_MAX`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from tracekit.errors import TracekitError

#: Seeds are 32-bit, as NumPy's generators and every documented example use them.
SEED_MAX = 2**32 - 1
#: Local Dask workers: at most four per CPU core of this machine, and never more than 256
#: (each is a process holding its own copy of the models; more only queue).
WORKERS_MAX = max(1, min(256, 4 * (os.cpu_count() or 1)))


class ArgumentTypeError(TracekitError, TypeError):
    """An argument of the wrong type (a number where a path is expected ...)."""


class ArgumentValueError(TracekitError, ValueError):
    """An argument of the right type outside its documented range."""


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_name(value) -> str:
    return type(value).__name__


def check_int(name: str, value, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as a whole number in ``[lo, hi]`` (``bool`` and floats are refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"{name} must be a whole number, got {_type_name(value)} {_shown(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ArgumentValueError(f"{name} must be {_range(lo, hi)}, got {value}")
    return int(value)


def check_seed(name: str, value) -> int:
    """A seed: a whole number from 0 to :data:`SEED_MAX`."""
    return check_int(name, value, 0, SEED_MAX)


def check_fraction(name: str, value) -> float:
    """``value`` as a number in (0, 1] (NaN and infinities are refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentTypeError(f"{name} must be a number in (0, 1], got {_type_name(value)} {_shown(value)}")
    if not (math.isfinite(value) and 0 < value <= 1):
        raise ArgumentValueError(f"{name} must be a fraction in (0, 1], got {value}")
    return float(value)


def _range(lo, hi) -> str:
    if lo is not None and hi is not None:
        return f"from {lo:,} to {hi:,}"
    return f"at least {lo:,}" if lo is not None else f"at most {hi:,}"


def check_choice(name: str, value, choices: Sequence[str]) -> str:
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{name} must be one of {', '.join(choices)}, got {_type_name(value)} "
                                f"{_shown(value)}")
    if value not in choices:
        raise ArgumentValueError(f"{name} must be one of {', '.join(choices)}, got {_shown(value)}")
    return value


def check_optional_str(name: str, value) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ArgumentTypeError(f"{name} must be text or None, got {_type_name(value)} {_shown(value)}")
    return value


def check_path(name: str, value):
    """A path (``str`` or ``os.PathLike``), not empty."""
    if not isinstance(value, (str, os.PathLike)):
        raise ArgumentTypeError(f"{name} must be a path (str or os.PathLike), got {_type_name(value)} "
                                f"{_shown(value)}")
    if not os.fspath(value):
        raise ArgumentValueError(f"{name} must be a path, got an empty one")
    return value


def check_trace(name: str, value):
    """A path, or an object that reads as a trace (a :class:`~tracekit.trace.Trace` or a view of one)."""
    if isinstance(value, (str, os.PathLike)):
        return check_path(name, value)
    if all(hasattr(value, a) for a in ("launches", "iter_batches", "path")):
        return value
    raise ArgumentTypeError(f"{name} must be a trace path (str or os.PathLike) or a Trace from "
                            f"tracekit.open_trace, got {_type_name(value)} {_shown(value)}")


def check_target(name: str, value):
    """A shipped target name, a ``.toml`` path or a loaded Target."""
    if isinstance(value, (str, os.PathLike)):
        return check_path(name, value)
    if hasattr(value, "name") and hasattr(value, "compute_units"):
        return value
    raise ArgumentTypeError(f"{name} must be a target name, a .toml path or a Target, got "
                            f"{_type_name(value)} {_shown(value)}")


def check_targets(name: str, value) -> list:
    """A list (or tuple) of targets; a single name is refused rather than read letter by letter."""
    if isinstance(value, (str, os.PathLike)):
        raise ArgumentTypeError(f"{name} must be a list of targets, got the single {_type_name(value)} "
                                f"{_shown(value)}: write [{_shown(os.fspath(value))}]")
    if not isinstance(value, (list, tuple)):
        raise ArgumentTypeError(f"{name} must be a list of targets (names, .toml paths or Targets), got "
                                f"{_type_name(value)} {_shown(value)}")
    return [check_target(f"{name}[{i}]", t) for i, t in enumerate(value)]


__all__ = ["SEED_MAX", "WORKERS_MAX", "ArgumentTypeError", "ArgumentValueError", "check_choice",
           "check_fraction", "check_int", "check_seed", "check_optional_str", "check_path", "check_target",
           "check_targets", "check_trace"]
