"""Nsight Compute CSV output as measured metrics per kernel launch.

Two exports are read:

* ``ncu --csv --page raw``: one row per profiled launch, one column per metric,
  with a units row under the header (``byte``, ``ns``, ``%``...);
* ``ncu --csv --page details [--print-rule-details]``: one row per (launch,
  section metric or rule); the ``SOLBottleneck`` rule's text is Nsight
  Compute's own Speed-of-Light verdict, mapped here to ours (alu | memory |
  latency).

ncu prints its own banner lines (``==PROF== ...``, ``==WARNING== ...``) and
whatever the profiled program printed around the CSV, so the header row is found
by its content (``"ID"`` and ``"Kernel Name"`` columns), not by position.
Numbers come with thousands separators (``"1,398,192"``); they are parsed to
floats and prefixed units are scaled to the base unit (``Kbyte`` -> ``byte``,
``usecond`` -> ``ns``).
"""

from __future__ import annotations

import csv
import difflib
import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tracekit.errors import TraceFormatError, TracekitError
from tracekit.files import check_input

_ID_COLUMNS = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
               "Block Size", "Grid Size", "Device", "CC")
_DIM3 = re.compile(r"^\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$")
_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_TIME_NS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
            "second": 1e9, "s": 1e9}


def normalise_unit(unit: str) -> tuple[str, float]:
    """(base unit, factor) for an ncu unit: ``Mbyte`` -> (``byte``, 1e6), ``usecond`` -> (``ns``, 1e3)."""
    u = (unit or "").strip()
    if u in _TIME_NS:
        return "ns", _TIME_NS[u]
    for base in ("byte", "hz", "Hz"):
        if u.endswith(base) and u[: -len(base)] in _PREFIX:
            return base.lower(), _PREFIX[u[: -len(base)]]
    m = re.match(r"^([KMGT]?)byte/(n|u|m)?second$", u)
    if m:
        per = {"n": 1e9, "u": 1e6, "m": 1e3, None: 1.0}[m.group(2)]
        return "byte/second", _PREFIX[m.group(1)] * per
    return u, 1.0


#: What ncu prints where a metric has no value for a launch.
_NO_VALUE = ("", "n/a", "na", "nan", "-", "--")


def no_value(text: str) -> bool:
    """True for a cell that says the metric was not collected (empty, ``n/a``)."""
    return (text or "").strip().lower() in _NO_VALUE


def to_number(text: str) -> float | None:
    """``"1,398,192"`` -> 1398192.0; None for text that is not a number (``"PolicySpread"``, ``n/a``)."""
    s = (text or "").strip().replace(",", "")
    if no_value(s):
        return None
    try:
        return float(s)
    except ValueError:
        return None


def dim3(text: str) -> tuple[int, int, int] | None:
    m = _DIM3.match((text or "").strip())
    return tuple(int(v) for v in m.groups()) if m else None


def _rows(path: Path) -> tuple[list[str], list[list[str]], int]:
    """(header, rows after it, 1-based header line) of an ncu CSV with banners around it."""
    check_input(path, kind="CSV export of Nsight Compute", dirs=False)
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise TraceFormatError(f"cannot read: {exc.strerror}", path=str(path)) from None
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if line.startswith('"ID"') or line.startswith("ID,"):
            header = next(csv.reader([line]))
            if "Kernel Name" in header:
                body = list(csv.reader(io.StringIO("\n".join(lines[n + 1:]))))
                return header, [r for r in body if r and not r[0].startswith("==")], n + 1
    raise TraceFormatError(
        "not Nsight Compute CSV output: no header row starting with \"ID\" and naming \"Kernel Name\"",
        path=str(path), hint="export with `ncu --csv --page raw ...` (or --page details for rule output)")


@dataclass
class NcuRaw:
    """``--page raw``: one row per launch; numbers in base units (see :attr:`units`)."""

    path: Path
    frame: pd.DataFrame
    units: dict[str, str] = field(default_factory=dict)

    @property
    def metrics(self) -> list[str]:
        return [c for c in self.frame.columns if c not in _ID_COLUMNS and c not in ("grid", "block")]

    def metric(self, name: str) -> pd.Series:
        """One metric for every launch; a clear error when the export lacks it."""
        if name not in self.frame.columns:
            near = difflib.get_close_matches(name, self.metrics, n=3, cutoff=0.6)
            raise TracekitError(f"metric '{name}' is not in this Nsight Compute export"
                                + (f" (closest: {', '.join(near)})" if near else ""), path=str(self.path),
                                hint="add it to the --metrics list of the ncu run")
        col = self.frame[name]
        if not pd.api.types.is_numeric_dtype(col):  # kept as text: a value is neither a number nor n/a
            k = next(i for i, v in enumerate(col) if to_number(v) is None and not no_value(v))
            line = self.frame.attrs.get("first_line", 0) + k
            raise TracekitError(f"line {line}: metric '{name}' is '{col.iloc[k]}' for launch "
                                f"{self.frame['ID'].iloc[k]}, not a number", path=str(self.path),
                                column=name, hint="export with `ncu --csv --page raw`; values may carry "
                                "thousands separators or be n/a")
        return col

    def launch(self, i: int) -> pd.DataFrame:
        """One launch as a long table: metric, unit, value (numbers where the value is one)."""
        row = self.frame.iloc[i]
        names = self.metrics
        return pd.DataFrame({"kernel": row["Kernel Name"], "grid": [row["grid"]] * len(names),
                             "block": [row["block"]] * len(names), "metric": names,
                             "unit": [self.units.get(m, "") for m in names],
                             "value": [row[m] for m in names]})

    def per_launch(self) -> list[pd.DataFrame]:
        return [self.launch(i) for i in range(len(self.frame))]


def read_ncu_raw(path: str | os.PathLike) -> NcuRaw:
    """Parse an ``ncu --csv --page raw`` export."""
    path = Path(path)
    header, rows, hline = _rows(path)
    if "Metric Name" in header:
        raise TraceFormatError("is a --page details export (one row per metric); expected --page raw",
                               path=str(path))
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise TraceFormatError(f"column '{dup}' appears twice in the header (line {hline})", path=str(path))
    unit_row = None
    if rows and not rows[0][0].strip():
        unit_row, rows = rows[0], rows[1:]
    if not rows:
        raise TraceFormatError("has a header but no profiled launches", path=str(path))
    for k, r in enumerate(rows):
        if len(r) != len(header):
            raise TraceFormatError(f"line {hline + 2 + k}: {len(r)} fields, the header has {len(header)}",
                                   path=str(path))
    cols, units = {}, {}
    for j, name in enumerate(header):
        values = [r[j] for r in rows]
        if name in _ID_COLUMNS:
            cols[name] = values
            continue
        unit, factor = normalise_unit(unit_row[j] if unit_row and j < len(unit_row) else "")
        nums = [to_number(v) for v in values]
        if all(n is not None or no_value(v) for n, v in zip(nums, values, strict=True)):
            cols[name] = np.array([np.nan if n is None else n * factor for n in nums], dtype=float)
        else:
            cols[name] = values
        units[name] = unit
    frame = pd.DataFrame(cols)
    if "ID" not in frame.columns:
        raise TraceFormatError(f"has no \"ID\" column in its header (line {hline})", path=str(path))
    ids = pd.to_numeric(frame["ID"].str.replace(",", ""), errors="coerce")
    bad = np.flatnonzero(ids.isna().to_numpy() | (ids.fillna(0) % 1 != 0).to_numpy())
    if len(bad):
        k = int(bad[0])
        raise TraceFormatError(f"line {hline + 1 + (unit_row is not None) + k}: ID '{frame['ID'][k]}' is not "
                               "a launch number", path=str(path), column="ID")
    frame["ID"] = ids.astype("Int64")
    frame.attrs["first_line"] = hline + 1 + (unit_row is not None)
    frame["grid"] = [dim3(v) for v in frame.get("Grid Size", [""] * len(frame))]
    frame["block"] = [dim3(v) for v in frame.get("Block Size", [""] * len(frame))]
    return NcuRaw(path, frame, units)


# -- Speed-of-Light rule ---------------------------------------------------------------------

#: Text of the SOLBottleneck rule -> our verdict vocabulary (None: decided from the throughputs).
SOL_PATTERNS = (
    ("compute is more heavily utilized", "alu"),
    ("memory is more heavily utilized", "memory"),
    ("low compute throughput and memory bandwidth", "latency"),
    ("grid is too small", "latency"),
    ("greater than 80", None),
)


def sol_verdict(text: str, compute_pct: float | None, memory_pct: float | None) -> str | None:
    """Our verdict for one SOLBottleneck rule text (None when the text is not recognised)."""
    low = (text or "").lower()
    for pattern, verdict in SOL_PATTERNS:
        if pattern in low:
            if verdict is None:
                if compute_pct is None or memory_pct is None:
                    return None
                return "alu" if compute_pct >= memory_pct else "memory"
            return verdict
    return None


def read_ncu_sol(path: str | os.PathLike) -> pd.DataFrame:
    """Per launch of a ``--page details`` export: kernel, grid, block, SOL throughputs and verdict."""
    path = Path(path)
    header, rows, _ = _rows(path)
    need = ("Section Name", "Metric Name", "Metric Value")
    missing = [c for c in need if c not in header]
    if missing:
        raise TraceFormatError(f"is not a --page details export: no column(s) {', '.join(missing)}",
                               path=str(path))
    ix = {name: header.index(name) for name in header}

    def get(r, name):
        j = ix.get(name)
        return r[j] if j is not None and j < len(r) else ""

    out: dict[int, dict] = {}
    for r in rows:
        lid = int(to_number(get(r, "ID")) or 0)
        d = out.setdefault(lid, {"ID": lid, "kernel": get(r, "Kernel Name"),
                                 "grid": dim3(get(r, "Grid Size")), "block": dim3(get(r, "Block Size")),
                                 "compute_pct": None, "memory_pct": None, "duration_ns": None,
                                 "sol_rule": None, "sol_type": None})
        metric = get(r, "Metric Name")
        if metric == "Compute (SM) Throughput":
            d["compute_pct"] = to_number(get(r, "Metric Value"))
        elif metric == "Memory Throughput":
            d["memory_pct"] = to_number(get(r, "Metric Value"))
        elif metric == "Duration":
            unit, factor = normalise_unit(get(r, "Metric Unit"))
            v = to_number(get(r, "Metric Value"))
            d["duration_ns"] = None if v is None else v * factor
        if get(r, "Rule Name") == "SOLBottleneck":
            d["sol_rule"], d["sol_type"] = get(r, "Rule Description"), get(r, "Rule Type")
    if not out:
        raise TraceFormatError("has a header but no profiled launches", path=str(path))
    frame = pd.DataFrame(sorted(out.values(), key=lambda d: d["ID"]))
    frame["sol_verdict"] = [sol_verdict(t, c, m) for t, c, m in
                            zip(frame["sol_rule"], frame["compute_pct"], frame["memory_pct"], strict=True)]
    return frame
