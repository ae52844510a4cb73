"""Streaming validation of a trace against trace format v1.

The accesses (and instructions) are read batch by batch with their stored types
and checked with vectorised Arrow/NumPy operations, so a trace far larger than
memory validates in bounded memory.  Every kind of problem is counted over the
whole trace and reported once, with the first row where it occurs.

Row numbers are 1-based positions in the table (row 1 is the first access), the
same for every layout; for a CSV file with a header that is file line ``row + 1``.
Errors make a trace unusable for analysis; warnings mark facts that are missing
(source lines, launch sizes) but that analysis can live without.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tracekit.errors import TracekitError
from tracekit.trace import schema
from tracekit.trace.arrow_numpy import from_numpy, scalar, to_numpy
from tracekit.trace.columns import (
    Bad,
    as_text,
    check_nulls,
    first_true,
    first_unordered,
    normalise_vocabulary,
    to_integer,
)
from tracekit.trace.counts import CountCheck
from tracekit.trace.grouping import distinct_keys
from tracekit.trace.reader import Trace
from tracekit.trace.validate_images import check_image_columns

_INT_COLUMNS = {"accesses": {"launch": (pa.int32(), 0), "group": (pa.int64(), 0), "item": (pa.int32(), 0),
                             "site": (pa.int32(), 0), "seq": (pa.int64(), 0),
                             "address": (pa.uint64(), 0), "size": (pa.uint16(), 1)},
                "instructions": {"launch": (pa.int32(), 0), "group": (pa.int64(), 0),
                                 "item": (pa.int32(), 0), "site": (pa.int32(), 0),
                                 "count": (pa.int64(), 0)}}
_OPCLASS_HELP = ", ".join(schema.OPCLASSES) + ", math_<builtin>"


@dataclass
class Problem:
    """One kind of problem: where it first occurs and how many rows have it."""

    check: str
    message: str
    table: str = "accesses"
    row: int | None = None
    column: str | None = None
    count: int = 1

    def render(self, path: str, header_lines: int = 0) -> str:
        # Messages of problems found while reading a CSV already carry their file line.
        add_line = (header_lines and self.row is not None and self.table == "accesses"
                    and self.check != "unreadable")
        line = f" (file line {self.row + header_lines})" if add_line else ""
        where = [path, self.table if self.table != "accesses" else None,
                 None if self.row is None else f"row {self.row}{line}",
                 None if self.column is None else f"column '{self.column}'"]
        text = ", ".join(w for w in where if w) + f": {self.message}"
        return text + (f" ({self.count:,} rows)" if self.count > 1 else "")


@dataclass
class ValidationReport:
    path: str
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    #: 1 for CSV input (rows are data rows; the header is line 1), else 0.
    header_lines: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors

    def lines(self) -> list[str]:
        return ([f"error: {p.render(self.path, self.header_lines)}" for p in self.errors]
                + [f"warning: {p.render(self.path, self.header_lines)}" for p in self.warnings])


class _Collector:
    def __init__(self):
        self.found: dict[tuple, Problem] = {}

    def add(self, check: str, message: str, *, table: str = "accesses", row=None, column=None,
            count: int = 1, warning: bool = False) -> None:
        key = (warning, table, check, column)
        if key in self.found:
            self.found[key].count += count
        else:
            self.found[key] = Problem(check, message, table, row, column, count)

    def split(self) -> tuple[list[Problem], list[Problem]]:
        errs = [p for (w, *_), p in self.found.items() if not w]
        warns = [p for (w, *_), p in self.found.items() if w]
        return errs, warns


def _dims(d) -> str:
    return " x ".join(str(int(x)) for x in d)


def validate(trace: Trace | str | os.PathLike | Callable[[], Trace], *, path: str | os.PathLike | None = None,
             batch_size: int = 1 << 20, file_order: bool = False) -> ValidationReport:
    """Check a trace and return every kind of problem found.

    ``trace`` is a :class:`Trace`, the path of a stored trace, or a function that opens one
    (called here, so a file that cannot be read is reported as a problem like any other,
    under ``path``).  Text exports are validated through :func:`tracekit.formats.validate_path`.
    ``file_order``: the trace was read from a text export in file order (see
    :func:`tracekit.formats.validate_path`), so row numbers are the file's data rows,
    the first file line is a header, and row order is not checked (ingest sorts rows
    anyway).
    """
    if isinstance(trace, (str, os.PathLike)):
        path, trace = trace, (lambda p=Path(trace): Trace(p))
    report = ValidationReport(path=str(path if path is not None else getattr(trace, "path", "?")))
    out = _Collector()
    if file_order:
        report.header_lines = 1
    try:
        check_trace(trace if isinstance(trace, Trace) else trace(), out, report, batch_size, file_order)
    except TracekitError as exc:
        unreadable(out, exc, report.path)
    report.errors, report.warnings = out.split()
    return report


def check_trace(t: Trace, out: _Collector, report: ValidationReport, batch_size: int,
                file_order: bool) -> None:
    launches = CountCheck(t.launches, out.add, path=report.path)
    seen = _Seen()
    rows = _check_table(t, "accesses", launches, out, seen, batch_size, check_order=not file_order)
    report.counts = {"accesses": rows, "launches": t.launches.num_rows, "sites": t.sites.num_rows}
    report.counts["instructions"] = _check_table(t, "instructions", launches, out, None, batch_size)
    launches.finish()
    _cross_checks(t, launches, seen, out)


def unreadable(out: _Collector, exc: TracekitError, path: str | None = None) -> None:
    """Record an error that stopped the check (the file could not be read on).

    An error in one file of a ``.tkt`` directory keeps that file's name.
    """
    inner = f"{exc.path}: " if exc.path and exc.path != path else ""
    out.add("unreadable", inner + exc.message + (f" ({exc.hint})" if exc.hint else ""), row=exc.row,
            column=exc.column)


class _Seen:
    """Small sets gathered while streaming: launch ids, (launch, kernel) and (kernel, site) pairs."""

    def __init__(self):
        self.launch_kernel: set[tuple[int, str]] = set()
        self.kernel_site: set[tuple[str, int]] = set()


def _check_table(t: Trace, table: str, launches: CountCheck, out: _Collector, seen: _Seen | None,
                 batch_size: int, check_order: bool = True) -> int:
    required = [f.name for f in schema.TABLES[table] if not f.nullable]
    row0 = 0
    last = None
    for batch in t.iter_batches(table, batch_size=batch_size, cast=False):
        missing = [c for c in required if c not in batch.schema.names]
        if missing:
            out.add("missing-column", f"required column(s) missing: {', '.join(missing)}", table=table,
                    column=missing[0])
            return row0 + batch.num_rows
        good = _check_columns(batch, table, row0, out)
        if all(c in good for c in ("launch", "group", "item")):
            _check_ranges(good, table, row0, launches, out)
        elif table == "accesses":
            launches.total_rows += batch.num_rows
        if check_order and table == "accesses" and all(c in good for c in ("launch", "group", "item", "seq")):
            keys = [good[c] for c in ("launch", "group", "item", "seq")]
            i = first_unordered(keys, last)
            if i is not None:
                out.add("order", "rows are not in (launch, group, item, seq) order or repeat a key; "
                        "re-write the trace with `tracekit ingest`", row=row0 + i + 1)
            last = tuple(k[-1] for k in keys) if len(keys[0]) else last
        if seen is not None and all(c in good for c in ("launch", "site", "kernel")):
            for launch, kernel, site in distinct_keys([good["launch"], good["kernel"], good["site"]]):
                seen.launch_kernel.add((launch, kernel))
                seen.kernel_site.add((kernel, site))
        row0 += batch.num_rows
    return row0


def _check_columns(batch: pa.RecordBatch, table: str, row0: int, out: _Collector) -> dict[str, np.ndarray]:
    """Type and value checks per column; returns the columns that passed, as NumPy arrays."""
    good: dict[str, np.ndarray] = {}

    def bad(b: Bad, col: str) -> None:
        out.add(f"value:{b.reason.split(' (')[0]}", f"{b.reason}: {b.value}", table=table,
                row=row0 + b.index + 1, column=col, count=b.count)

    for col, (typ, lo) in _INT_COLUMNS[table].items():
        arr, b = to_integer(batch.column(col), typ, what=col, minimum=lo)
        if b:
            bad(b, col)
        else:
            good[col] = to_numpy(arr)
    vocab = {"space": schema.SPACES, "op": schema.OPS} if table == "accesses" else {}
    for col, allowed in vocab.items():
        _, b = normalise_vocabulary(batch.column(col), allowed, what=col, canonicalise=lambda s: s)
        if b:
            bad(b, col)
    if table == "instructions":
        _check_opclass(batch.column("opclass"), row0, out)
        if "items" in batch.schema.names:  # optional run length: null means one work-item
            items = batch.column("items")
            if pa.types.is_null(items.type):
                items = pa.nulls(len(items), pa.int32())
            if pa.types.is_integer(items.type):
                items = items.fill_null(scalar(1, items.type))
            arr, b = to_integer(items, pa.int32(), what="items", minimum=1)
            if b:
                bad(b, "items")
            else:
                good["items"] = to_numpy(arr)
    kernel, b = as_text(batch.column("kernel"), "kernel")
    b = b or check_nulls(kernel)
    if b:
        bad(Bad(b.index, b.value, b.reason if kernel is None else "empty kernel name", b.count), "kernel")
    else:
        good["kernel"] = kernel
    if table == "accesses" and any(c in batch.schema.names for c in schema.IMAGE_COLUMNS):
        check_image_columns(batch, batch.column("space"), bad)
    if table == "accesses" and "buffer" in batch.schema.names:
        col = batch.column("buffer")
        valid = pc.drop_null(col)
        if len(valid):
            _, b = to_integer(valid, pa.int32(), what="buffer", minimum=0)
            if b:
                out.add("value:buffer", f"{b.reason}: {b.value}", table=table, column="buffer", count=b.count)
    return good


def _check_opclass(col: pa.Array, row0: int, out: _Collector) -> None:
    col, b = as_text(col, "opclass")
    if b:
        out.add("opclass", f"{b.reason}", table="instructions", row=row0 + 1, column="opclass", count=b.count)
        return
    if not pa.types.is_dictionary(col.type):
        col = col.dictionary_encode()
    bad_codes = [i for i, v in enumerate(col.dictionary.to_pylist()) if v is None or not schema.is_opclass(v)]
    if bad_codes:
        mask = pc.is_in(col.indices, value_set=from_numpy(bad_codes, col.indices.type))
        i = first_true(mask)
        if i is None:
            return  # unknown values only in the dictionary, used by no row
        out.add("opclass", f"unknown opclass {col[i].as_py()!r} (allowed: {_OPCLASS_HELP})",
                table="instructions", row=row0 + i + 1, column="opclass", count=pc.sum(mask).as_py())


def _check_ranges(good: dict, table: str, row0: int, launches: CountCheck, out: _Collector) -> None:
    known, _ = launches.lookup(good["launch"])
    if len(launches.ids) and not known.all():
        i = int(np.flatnonzero(~known)[0])
        out.add("unknown-launch", f"launch {good['launch'][i]} has no row in the launches table, so its "
                "sizes are unknown", table=table, row=row0 + i + 1, column="launch",
                count=int((~known).sum()), warning=True)
    launches.rows(table, row0, good["launch"], good["group"], good["item"], good.get("items"))


def _cross_checks(t: Trace, launches: CountCheck, seen: _Seen, out: _Collector) -> None:
    ids = set(launches.ids.tolist())
    kernel_of = {lid: x.kernel for lid, x in launches.by_id.items()}
    for launch, kernel in sorted(seen.launch_kernel):
        if launch in ids and kernel_of[launch] != kernel:
            out.add("kernel-mismatch", f"launch {launch} is kernel '{kernel_of[launch]}' in the launches "
                    f"table but '{kernel}' in the accesses", column="kernel")
    if not launches.ids.size and seen.launch_kernel:
        out.add("no-launches", "the trace has no launches table rows: launch sizes are unknown, so items "
                "and groups cannot be checked and analysis must infer the sizes", table="launches",
                warning=True)
    _check_roles(t, out)
    _check_compiled(t, out)
    _check_operands(t, out)
    if seen.kernel_site:
        known_sites = set(zip(t.sites["kernel"].to_pylist(), t.sites["site"].to_pylist(), strict=True))
        missing = sorted(seen.kernel_site - known_sites, key=lambda ks: (str(ks[0]), ks[1]))
        if missing:
            k, s = missing[0]
            out.add("sites", f"{len(missing)} site(s) used by accesses have no row in the sites table "
                    f"(first: kernel '{k}' site {s}), so their source lines are unknown", table="sites",
                    warning=True)


def _check_compiled(t: Trace, out: _Collector) -> None:
    """``sites.compiled``, where present, counts instructions: null or at least 0."""
    if "compiled" not in t.sites.column_names:
        return
    counts = t.sites["compiled"].to_pylist()
    bad = [(i, c) for i, c in enumerate(counts) if c is not None and c < 0]
    if bad:
        i, c = bad[0]
        out.add("site-compiled", f"site's compiled instruction count {c} is negative (a count, or empty)",
                table="sites", row=i + 1, column="compiled", count=len(bad))


def _check_operands(t: Trace, out: _Collector) -> None:
    """``sites.operands``, where present, name sites of the same kernel: a data-flow edge to a site
    the kernel does not have would make every slice of that kernel wrong."""
    if "operands" not in t.sites.column_names or not t.sites.num_rows:
        return
    kernels = t.sites["kernel"].to_pylist()
    known = set(zip(kernels, t.sites["site"].to_pylist(), strict=True))
    bad = [(i, k, o) for i, (k, ops) in enumerate(zip(kernels, t.sites["operands"].to_pylist(), strict=True))
           for o in ops or () if (k, o) not in known]
    if bad:
        i, k, o = bad[0]
        out.add("site-operands", f"site's operand {o} is not a site of kernel '{k}' (the data-flow graph "
                "names a site the sites table lacks)", table="sites", row=i + 1, column="operands",
                count=len(bad))


def _check_roles(t: Trace, out: _Collector) -> None:
    """``sites.role``, where present, holds only the roles of ``schema.ROLES`` (or null)."""
    if "role" not in t.sites.column_names:
        return
    roles = t.sites["role"].to_pylist()
    bad = [(i, r) for i, r in enumerate(roles) if r is not None and r not in schema.ROLES]
    if bad:
        i, r = bad[0]
        out.add("site-role", f"site role '{r}' is not one of {', '.join(schema.ROLES)} (or empty)",
                table="sites", row=i + 1, column="role", count=len(bad))
