"""Forgiving readers for the report's inputs (the hatchet habit: lax in, strict out).

The analysis result of a target may arrive as an object with ``to_dict()`` or as
the dict itself (a JSON file written by ``tracekit analyze``); findings may be
dataclasses or dicts.  These helpers turn all of them into plain dicts and
numbers, so the builder reads one shape.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any


def as_dict(obj: Any) -> dict:
    """A plain dict from a mapping, a dataclass or an object with ``to_dict()``."""
    if obj is None:
        return {}
    if isinstance(obj, Mapping):
        return dict(obj)
    if hasattr(obj, "to_dict"):
        return dict(obj.to_dict())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    raise TypeError(f"cannot read {type(obj).__name__} as a mapping")


def num(value: Any) -> float | None:
    """A finite float, or None for missing, NaN or non-numeric values."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def integer(value: Any) -> int | None:
    out = num(value)
    return None if out is None else int(round(out))


def dig(d: Mapping | None, *path: str, default: Any = None) -> Any:
    """``d[a][b]...`` with ``default`` where any step is missing."""
    cur: Any = d
    for key in path:
        if not isinstance(cur, Mapping) or key not in cur:
            return default
        cur = cur[key]
    return cur


def first(d: Mapping | None, *keys: str, default: Any = None) -> Any:
    """The value of the first key present (names differ slightly between producers)."""
    if not isinstance(d, Mapping):
        return default
    for key in keys:
        if key in d and d[key] is not None:
            return d[key]
    return default


def records(value: Any) -> list[dict]:
    """A list of row dicts from a DataFrame, a list of dicts or a dict of columns."""
    if value is None:
        return []
    if hasattr(value, "to_dict") and hasattr(value, "columns"):
        return [dict(r) for r in value.to_dict(orient="records")]
    if isinstance(value, Mapping):
        cols = {k: list(v) for k, v in value.items() if isinstance(v, (list, tuple))}
        if cols and len({len(v) for v in cols.values()}) == 1:
            n = len(next(iter(cols.values())))
            return [{k: v[i] for k, v in cols.items()} for i in range(n)]
        return []
    return [as_dict(r) for r in value]


def launch_results(result: Any) -> list[dict]:
    """The per-launch result dicts of one target's analysis."""
    d = as_dict(result) if not isinstance(result, list) else {"launches": result}
    rows = first(d, "launches", "results", default=None)
    if rows is None:
        return [d] if ("kernel" in d or "memory" in d) else []
    if isinstance(rows, Mapping):
        rows = list(rows.values())
    return [as_dict(r) for r in rows]
