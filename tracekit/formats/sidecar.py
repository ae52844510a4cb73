"""Launch facts for traces that carry none: a sidecar JSON file or command-line sizes.

A CSV export holds accesses only.  The launch sizes that validation and every
analyzer need come from ``<base>.launches.json`` next to it (``base`` is the file
name without ``.gz`` and ``.csv``/``.tsv``), from a file named with
``--launches``, or from ``--kernel/--global/--local``.  The JSON shape is
documented in docs/trace-format.md::

    {"launches": [{"kernel": "vadd", "launch": 0, "global_size": [1024, 1, 1],
                   "local_size": [64, 1, 1], "local_mem_bytes": 0, ...}],
     "sites": [{"kernel": "vadd", "site": 0, "opcode": "load", "file": "vadd.cl",
                "line": 4, "column": 12}]}
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pyarrow as pa

from tracekit.errors import TraceFormatError
from tracekit.files import check_input
from tracekit.trace import schema
from tracekit.trace.counts import COUNT_MAX

_LAUNCH_KEYS = {f.name for f in schema.LAUNCHES}
_SITE_KEYS = {f.name for f in schema.SITES}


def sidecar_path(src: Path) -> Path:
    """Where the sidecar of ``src`` is looked for: ``vadd.csv.gz`` -> ``vadd.launches.json``."""
    name = src.name
    for suffix in (".gz", ".csv", ".tsv", ".txt", ".parquet"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return src.with_name(name + ".launches.json")


def parse_dims(text: str | int | list | tuple, *, what: str, where: str = "") -> list[int]:
    """``"64"``, ``"64,4"``, ``"64x4x1"`` or ``[64, 4]`` -> three positive ints (missing dims are 1)."""
    if isinstance(text, (list, tuple)):
        parts = list(text)
    elif isinstance(text, int):
        parts = [text]
    else:
        parts = [p for p in re.split(r"[,x\s]+", str(text).strip()) if p]
    try:
        dims = [int(p) for p in parts]
        if isinstance(text, (list, tuple)) and any(isinstance(p, bool) or not isinstance(p, int)
                                                   for p in parts):
            raise ValueError
    except (TypeError, ValueError):
        raise TraceFormatError(f"{what} must be 1 to 3 whole numbers like 64,4,1; got {text!r}",
                               path=where or None) from None
    if not 1 <= len(dims) <= 3 or any(d < 1 or d > COUNT_MAX for d in dims):
        raise TraceFormatError(f"{what} must be 1 to 3 positive numbers like 64,4,1 (at most 2^63-1 each); "
                               f"got {text!r}",
                               path=where or None)
    return dims + [1] * (3 - len(dims))


def num_groups(global_size: list[int], local_size: list[int]) -> list[int]:
    """Work-groups per dimension (a partial last group counts, as OpenCL 2 allows)."""
    return [math.ceil(g / max(lsz, 1)) for g, lsz in zip(global_size, local_size, strict=True)]


def load_sidecar(path: Path) -> tuple[pa.Table, pa.Table | None]:
    """Read a sidecar file into (launches, sites) tables; errors name the file and key."""
    if not os.path.lexists(path):
        raise TraceFormatError("launch facts file not found", path=str(path))
    try:
        doc = json.loads(check_input(path, kind="JSON file", dirs=False).read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise TraceFormatError(f"cannot be read ({exc.strerror or exc})", path=str(path)) from None
    except (ValueError, RecursionError) as exc:
        raise TraceFormatError(f"is not valid JSON ({exc})", path=str(path)) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("launches"), list) or not doc["launches"]:
        raise TraceFormatError("expected an object with a non-empty list under \"launches\"",
                               path=str(path))
    unknown = set(doc) - {"launches", "sites", "format", "version"}
    if unknown:
        raise TraceFormatError(f"unknown key(s) {', '.join(sorted(unknown))} (expected launches, sites)",
                               path=str(path))
    rows = []
    for i, entry in enumerate(doc["launches"]):
        key = f"launches[{i}]"
        if not isinstance(entry, dict):
            raise TraceFormatError(f"{key} must be an object", path=str(path))
        bad = set(entry) - _LAUNCH_KEYS
        if bad:
            raise TraceFormatError(f"{key} has unknown key(s) {', '.join(sorted(bad))} "
                                   f"(expected {', '.join(sorted(_LAUNCH_KEYS))})", path=str(path))
        for need in ("kernel", "global_size", "local_size"):
            if need not in entry:
                raise TraceFormatError(f"{key} lacks the required key '{need}'", path=str(path))
        row = dict(entry)
        row.setdefault("launch", i)
        row["global_size"] = parse_dims(entry["global_size"], what=f"{key}.global_size", where=str(path))
        row["local_size"] = parse_dims(entry["local_size"], what=f"{key}.local_size", where=str(path))
        row.setdefault("local_mem_bytes", 0)
        if isinstance(row.get("metadata"), (dict, list)):
            row["metadata"] = json.dumps(row["metadata"], sort_keys=True)
        rows.append(row)
    launches = launches_table(rows, where=str(path))
    sites = None
    if doc.get("sites") is not None:
        if not isinstance(doc["sites"], list):
            raise TraceFormatError("\"sites\" must be a list of objects", path=str(path))
        for i, entry in enumerate(doc["sites"]):
            bad = set(entry) - _SITE_KEYS if isinstance(entry, dict) else {"(not an object)"}
            if bad:
                raise TraceFormatError(f"sites[{i}] has unknown key(s) {', '.join(sorted(bad))}",
                                       path=str(path))
        sites = _table(doc["sites"], schema.SITES, str(path), "sites")
    return launches, sites


def _table(rows: list[dict], target: pa.Schema, where: str, what: str) -> pa.Table:
    cols = {f.name: [r.get(f.name) for r in rows] for f in target}
    try:
        return pa.Table.from_pydict(cols, schema=target)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as exc:
        raise TraceFormatError(f"{what} entries have a value of the wrong type ({exc})",
                               path=where) from None


def launches_table(rows: list[dict], *, where: str = "") -> pa.Table:
    """Build a canonical launches table from dicts (kernel, launch, global_size, local_size...)."""
    return _table(rows, schema.LAUNCHES, where, "launches")


def launches_from_flags(pairs: list[tuple[int, str]], global_size: list[int], local_size: list[int],
                        local_mem_bytes: int = 0) -> pa.Table:
    """One launches row per (launch, kernel) seen in the accesses, all with the given sizes."""
    meta = json.dumps({"source": "command-line sizes"})
    return launches_table([
        {"kernel": k, "launch": lid, "global_size": global_size, "local_size": local_size,
         "local_mem_bytes": local_mem_bytes, "metadata": meta} for lid, k in sorted(pairs)])
