"""Convert other tools' access dumps (CSV/TSV, plain or gzip, and Parquet) into trace v1.

The conversion streams: the source is read in batches, each batch is renamed
(column map or preset), type-checked with row-exact errors, given launch ids,
kernel names and linear ids where the source lacks them, and written through
:class:`~tracekit.trace.store.TraceWriter`.  Two things need state across batches and
are kept small: the per-work-item access counter used when the source has no
``seq`` column (counted in file order, one counter per work-item), and the
(launch, kernel) pairs seen.  A source that is not already in the canonical
(launch, group, item, seq) order is re-read and sorted out of core
(:mod:`tracekit.trace.extsort`), so memory stays bounded either way.

Row numbers in messages are 1-based data rows (the first row after a CSV header
is row 1); for CSV the file line is given too.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from tracekit.errors import TraceFormatError, printable_list
from tracekit.files import check_input, refuse_overwriting_inputs
from tracekit.formats.presets import DEFAULT, PRESETS, TARGETS, Preset
from tracekit.formats.sidecar import launches_from_flags, load_sidecar, num_groups, parse_dims, sidecar_path
from tracekit.formats.sources import Source, open_source
from tracekit.trace import schema
from tracekit.trace.columns import Bad, first_true, first_unordered, normalise_vocabulary, to_integer
from tracekit.trace.counts import check_grid
from tracekit.trace.reader import Trace
from tracekit.trace.store import TraceWriter

#: Integer columns: canonical type and smallest allowed value.
INTEGER_COLUMNS = {"launch": (pa.int32(), 0), "group": (pa.int64(), 0), "item": (pa.int32(), 0),
                   "site": (pa.int32(), 0), "seq": (pa.int64(), 0), "address": (pa.uint64(), 0),
                   "size": (pa.uint16(), 1), "buffer": (pa.int32(), 0), "issue": (pa.int64(), 0)}
#: What each column must hold, for error messages.
EXPECTED = {
    "launch": "a launch number (whole number, 0 or more)",
    "group": "a linear work-group id (whole number, 0 or more)",
    "item": "a linear local id (whole number, 0 or more)",
    "site": "a static instruction id (whole number, 0 or more)",
    "seq": "the work-item's access counter (whole number, 0 or more)",
    "address": "a byte address (whole number, 0 or more)",
    "size": "the access size in bytes (whole number, 1 to 65535)",
    "buffer": "a kernel argument index (whole number, 0 or more, or empty)",
    "issue": "the loop iterations the access belongs to, as one tag (whole number, 0 or more, or empty)",
    "space": f"one of {', '.join(schema.SPACES)}",
    "op": f"one of {', '.join(schema.OPS)}",
    "kernel": "a kernel name",
}
_ALWAYS_NEEDED = ("site", "space", "op", "address", "size")


@dataclass
class IngestResult:
    path: Path
    accesses: int
    launches: int
    seq_derived: bool
    resorted: bool
    columns: dict[str, str]
    notes: list[str] = field(default_factory=list)


@dataclass
class Plan:
    """What to read from the source and how to complete it."""

    source: Source
    columns: dict[str, str]  # canonical (or *_x/_y/_z) -> source column
    preset: Preset
    launches: pa.Table | None = None  # facts known before reading (sidecar, embedded)
    sites: pa.Table | None = None
    kernel: str | None = None
    global_size: list[int] | None = None
    local_size: list[int] | None = None
    notes: list[str] = field(default_factory=list)


def parse_map(text: str | None) -> dict[str, str]:
    """``"address=addr,item=tid"`` -> ``{"address": "addr", "item": "tid"}``."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise TraceFormatError(f"--map entry '{part.strip()}' is not CANONICAL=SOURCE "
                                   f"(e.g. address=addr)")
        key, value = (s.strip() for s in part.split("=", 1))
        if key not in TARGETS:
            raise TraceFormatError(f"--map names unknown column '{key}' "
                                   f"(trace columns: {', '.join(TARGETS)})")
        out[key] = value
    return out


def resolve_columns(columns: list[str], mapping: dict[str, str], preset: Preset,
                    path: Path) -> dict[str, str]:
    """Pick the source column for each canonical column: --map, then exact name, then alias."""
    by_lower = {c.lower(): c for c in columns}
    out = {}
    for target, src in mapping.items():
        if src.lower() not in by_lower:
            raise TraceFormatError(f"--map {target}={src}: the source has no column '{src}' "
                                   f"(columns: {', '.join(columns)})", path=str(path), column=src)
        out[target] = by_lower[src.lower()]
    taken = set(out.values())
    for target in TARGETS:
        if target in out:
            continue
        for name in (target, *preset.aliases.get(target, ())):
            real = by_lower.get(name.lower())
            if real is not None and real not in taken:
                out[target] = real
                taken.add(real)
                break
    return out


def make_plan(src: str | os.PathLike, *, mapping: dict[str, str] | str | None = None,
              preset: str | None = None, kernel: str | None = None, global_size=None,
              local_size=None, launches_file: str | os.PathLike | None = None,
              delimiter: str | None = None) -> Plan:
    """Open the source and decide the column map and where launch facts come from."""
    path = Path(src)
    if preset is not None and preset not in PRESETS:
        raise TraceFormatError(f"unknown preset '{preset}' (known: {', '.join(PRESETS)})")
    pre = PRESETS[preset] if preset else DEFAULT
    mapping = parse_map(mapping) if isinstance(mapping, str) or mapping is None else dict(mapping)
    if delimiter is not None and delimiter.lower() in ("tab", "\\t"):
        delimiter = "\t"
    source = open_source(path, delimiter=delimiter)
    cols = resolve_columns(source.columns, mapping, pre, path)
    plan = Plan(source=source, columns=cols, preset=pre, kernel=kernel)
    if (global_size is None) != (local_size is None):
        raise TraceFormatError("give both --global and --local (or neither)")
    if global_size is not None:
        plan.global_size = parse_dims(global_size, what="--global")
        plan.local_size = parse_dims(local_size, what="--local")
    side = Path(launches_file) if launches_file else sidecar_path(path)
    if launches_file or side.exists():
        # Command-line sizes, when given, still win over the file's launches (see Converter.launches).
        plan.launches, plan.sites = load_sidecar(side)
        plan.notes.append(f"launch facts from {side}" if plan.global_size is None
                          else f"sites from {side}; launch sizes from the command line")
    elif source.embedded:
        plan.launches = source.embedded.get("launches")
        plan.sites = source.embedded.get("sites")
    _check_required(plan)
    return plan


def _check_required(plan: Plan) -> None:
    cols, path = plan.columns, plan.source.path
    have = printable_list(plan.source.columns)
    for target in _ALWAYS_NEEDED + ("group", "item"):
        if target in cols:
            continue
        dims = [f"{target}_{d}" for d in "xyz"]
        if target in ("group", "item") and dims[0] in cols:
            if plan.global_size is None and plan.launches is None:
                raise TraceFormatError(f"per-dimension {target} ids need the launch sizes: pass --global "
                                       f"and --local or a launches file", path=str(path), column=dims[0])
            continue
        names = (target, *plan.preset.aliases.get(target, ()))
        raise TraceFormatError(
            f"missing required column '{target}' (looked for {', '.join(names)}; columns here: {have})",
            path=str(path), column=target, hint=f"name it with --map {target}=YOUR_COLUMN")
    if "kernel" not in cols and plan.kernel is None and plan.launches is None:
        raise TraceFormatError(f"no 'kernel' column (columns here: {have}) and no kernel name given",
                               path=str(path), column="kernel",
                               hint="pass --kernel NAME, a launches file, or --map kernel=YOUR_COLUMN")


class _LaunchLookup:
    """Vectorised per-row access to the launch facts (kernel name, sizes) by launch id."""

    def __init__(self, plan: Plan):
        self.path = plan.source.path
        self._check_sizes(plan)
        if plan.global_size is not None:
            self.ids = None
            self.local = np.array([plan.local_size])
            self.groups = np.array([num_groups(plan.global_size, plan.local_size)])
            self.kernels = [plan.kernel]
        elif plan.launches is not None and plan.launches.num_rows:
            order = np.argsort(plan.launches["launch"].to_numpy())
            self.ids = plan.launches["launch"].to_numpy()[order]
            gs = np.array(plan.launches["global_size"].to_pylist())[order]
            ls = np.array(plan.launches["local_size"].to_pylist())[order]
            self.local = ls
            self.groups = -(-gs // ls)
            self.kernels = [plan.launches["kernel"][int(i)].as_py() for i in order]
        else:
            self.ids, self.local, self.groups, self.kernels = None, None, None, [plan.kernel]

    def _check_sizes(self, plan: Plan) -> None:
        """Sizes whose products overflow are refused before any row is read (they would wrap round)."""
        if plan.global_size is not None:
            check_grid(plan.global_size, plan.local_size, path=str(self.path), what="--global/--local")
        elif plan.launches is not None:
            for row in plan.launches.select(["launch", "global_size", "local_size"]).to_pylist():
                check_grid(row["global_size"], row["local_size"], path=str(self.path),
                           what=f"launch {row['launch']}")

    def positions(self, launch: np.ndarray, row0: int, where) -> np.ndarray:
        if self.ids is None:
            return np.zeros(len(launch), dtype=np.int64)
        pos = np.searchsorted(self.ids, launch)
        pos_c = np.minimum(pos, len(self.ids) - 1)
        missing = self.ids[pos_c] != launch
        if missing.any():
            i = int(np.flatnonzero(missing)[0])
            row = row0 + i + 1
            raise TraceFormatError(f"launch {launch[i]} is not in the launch facts (known launches: "
                                   f"{', '.join(map(str, self.ids))}){where(row)}", path=str(self.path),
                                   row=row, column="launch")
        return pos_c


class Converter:
    """Turns source batches into canonical accesses tables, one batch at a time."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.lookup = _LaunchLookup(plan)
        self.rows = 0
        self.pairs: set[tuple[int, str]] = set()
        self.ordered = True
        self._last: tuple | None = None
        self._seq_counts = pd.Series(dtype=np.int64)

    @property
    def seq_derived(self) -> bool:
        return "seq" not in self.plan.columns

    def tables(self, batch_rows: int = 1 << 20) -> Iterator[pa.Table]:
        wanted = sorted(set(self.plan.columns.values()), key=self.plan.source.columns.index)
        for batch in self.plan.source.batches(wanted, batch_rows):
            if batch.num_rows:
                yield self.convert(batch)
        if self.rows == 0:
            what = "a header line but no data rows" if self.plan.source.kind == "csv" else "no rows"
            raise TraceFormatError(f"has {what}: a trace needs at least one access",
                                   path=str(self.plan.source.path))

    def _fail(self, bad, column: str, target: str, row0: int):
        row = row0 + bad.index + 1
        more = f" ({bad.count} such rows in this batch)" if bad.count > 1 else ""
        raise TraceFormatError(f"{bad.reason}: {bad.value}; expected {EXPECTED[target]}{more}"
                               f"{self.plan.source.where(row)}", path=str(self.plan.source.path),
                               row=row, column=column)

    def _int(self, batch: pa.RecordBatch, target: str, row0: int, typ=None, what=None):
        col = self.plan.columns[target]
        base = target.split("_")[0]
        t, lo = INTEGER_COLUMNS[base]
        arr = batch.column(col)
        if target in ("buffer", "issue"):
            return self._optional_int(arr, col, row0, target, t)
        out, bad = to_integer(arr, typ or t, what=what or base, minimum=lo)
        if bad:
            self._fail(bad, col, base, row0)
        return out

    def _optional_int(self, arr, col: str, row0: int, target: str, typ):
        """A column that may be empty (``buffer``, ``issue``): empty cells become nulls."""
        if pa.types.is_string(arr.type):
            arr = pc.if_else(pc.equal(pc.utf8_trim_whitespace(arr), ""), pa.scalar(None, pa.string()), arr)
        valid = pc.is_valid(arr)
        filled = pc.fill_null(arr, pa.scalar("0" if pa.types.is_string(arr.type) else 0, arr.type))
        out, bad = to_integer(filled, typ, what=target, minimum=0)
        if bad:
            self._fail(bad, col, target, row0)
        return pc.if_else(valid, out, pa.scalar(None, typ))

    def _kernel(self, arr: pa.Array, col: str, row0: int) -> pa.Array:
        arr = arr.cast(pa.string()) if not pa.types.is_dictionary(arr.type) else arr.cast(pa.string())
        empty = pc.fill_null(pc.equal(pc.utf8_trim_whitespace(arr), ""), True)
        if pc.any(empty).as_py():
            bad = Bad(first_true(empty), "''", "empty kernel name", pc.sum(empty).as_py())
            self._fail(bad, col, "kernel", row0)
        return arr.dictionary_encode()

    def _linear(self, batch, name: str, row0: int, pos: np.ndarray, dims: np.ndarray, typ) -> pa.Array:
        cols = self.plan.columns
        if name in cols:
            return self._int(batch, name, row0)
        parts = [self._int(batch, f"{name}_{d}", row0, pa.int64()).to_numpy()
                 if f"{name}_{d}" in cols else np.zeros(batch.num_rows, dtype=np.int64) for d in "xyz"]
        d = dims[pos]
        return pa.array(parts[0] + d[:, 0] * (parts[1] + d[:, 1] * parts[2]), typ)

    def convert(self, batch: pa.RecordBatch) -> pa.Table:
        row0, n, cols, pre = self.rows, batch.num_rows, self.plan.columns, self.plan.preset
        out: dict[str, pa.Array] = {}
        launch = self._int(batch, "launch", row0) if "launch" in cols else pa.array(np.zeros(n, np.int32))
        launch_np = launch.to_numpy()
        pos = self.lookup.positions(launch_np, row0, self.plan.source.where)
        out["group"] = self._linear(batch, "group", row0, pos, self.lookup.groups, pa.int64())
        out["item"] = self._linear(batch, "item", row0, pos, self.lookup.local, pa.int32())
        self._check_range(out, pos, row0)
        if "kernel" in cols:
            out["kernel"] = self._kernel(batch.column(cols["kernel"]), cols["kernel"], row0)
        else:
            names = pa.array(self.lookup.kernels, pa.string())
            out["kernel"] = pa.DictionaryArray.from_arrays(pa.array(pos, pa.int32()), names)
        for target in ("site", "address", "size"):
            out[target] = self._int(batch, target, row0)
        for target, allowed, aliases in (("space", schema.SPACES, pre.space_values),
                                         ("op", schema.OPS, pre.op_values)):
            arr, bad = normalise_vocabulary(batch.column(cols[target]), allowed, what=target,
                                            aliases=aliases, canonicalise=pre.canonical_op)
            if bad:
                self._fail(bad, cols[target], target, row0)
            out[target] = arr
        if "buffer" in cols:
            out["buffer"] = self._int(batch, "buffer", row0)
        if "issue" in cols:
            out["issue"] = self._int(batch, "issue", row0)
        out["launch"] = launch
        out["seq"] = self._int(batch, "seq", row0) if "seq" in cols else self._derive_seq(launch_np, out)
        table = pa.table({f.name: out[f.name] for f in schema.ACCESSES if f.name in out})
        self._track(table, row0)
        self.rows += n
        return table

    def _check_range(self, out: dict, pos: np.ndarray, row0: int) -> None:
        """item below the work-group size and group below the number of groups, when sizes are known."""
        lk = self.lookup
        if lk.local is None:
            return
        for name, limit, what in (("item", lk.local.prod(axis=1), "work-group size"),
                                  ("group", lk.groups.prod(axis=1), "number of work-groups")):
            values = out[name].to_numpy()
            over = values >= limit[pos]
            if over.any():
                i = int(np.flatnonzero(over)[0])
                row = row0 + i + 1
                col = self.plan.columns.get(name, self.plan.columns.get(f"{name}_x", name))
                raise TraceFormatError(
                    f"{name} {values[i]} is outside the launch's {what} ({limit[pos[i]]}); expected 0 to "
                    f"{limit[pos[i]] - 1}{self.plan.source.where(row)}", path=str(self.plan.source.path),
                    row=row, column=col)

    def _derive_seq(self, launch: np.ndarray, out: dict) -> pa.Array:
        """Number each work-item's accesses 0, 1, 2 ... in file order, across batches."""
        idx = pd.MultiIndex.from_arrays([launch, out["group"].to_numpy(), out["item"].to_numpy()])
        frame = pd.DataFrame({"k": np.zeros(len(launch), np.int8)}, index=idx)
        within = frame.groupby(level=[0, 1, 2], sort=False).cumcount().to_numpy()
        if len(self._seq_counts):
            base = self._seq_counts.reindex(idx).fillna(0).to_numpy(np.int64)
        else:
            base = 0
        counts = frame.groupby(level=[0, 1, 2], sort=False).size()
        self._seq_counts = (counts if not len(self._seq_counts)
                            else self._seq_counts.add(counts, fill_value=0).astype(np.int64))
        return pa.array(within + base, pa.int64())

    def _track(self, table: pa.Table, row0: int) -> None:
        pairs = table.select(["launch", "kernel"]).group_by(["launch", "kernel"]).aggregate([])
        self.pairs.update(zip(pairs["launch"].to_pylist(), pairs["kernel"].to_pylist(), strict=True))
        if self.ordered:
            keys = [table[c].to_numpy() for c in ("launch", "group", "item", "seq")]
            if first_unordered(keys, self._last) is not None:
                self.ordered = False
            self._last = tuple(k[-1] for k in keys)

    def launches(self) -> pa.Table | None:
        p = self.plan
        if p.global_size is not None:
            return launches_from_flags(self.pairs, p.global_size, p.local_size)
        return p.launches


class _Unordered(Exception):
    """Raised internally when the source turns out not to be in canonical row order."""


def ingest(src: str | os.PathLike, dst: str | os.PathLike, *, layout: str | None = None,
           sort_budget_rows: int = 4 << 20, **options) -> IngestResult:
    """Convert ``src`` into a canonical trace at ``dst`` (``.tkt`` directory or ``.parquet``).

    ``options``: ``mapping``, ``preset``, ``kernel``, ``global_size``, ``local_size``,
    ``launches_file``, ``delimiter`` (see :func:`make_plan`).  ``dst`` is replaced
    only when the whole conversion succeeded.
    """
    from tracekit.trace.extsort import write_sorted
    src, dst = check_input(src, kind="CSV, Parquet or trace file"), Path(dst)
    refuse_overwriting_inputs(dst, [src, options.get("launches_file") or sidecar_path(src)])
    plan = make_plan(src, **options)
    conv = Converter(plan)
    resorted = False
    try:
        with TraceWriter(dst, layout=layout) as writer:
            for table in _regroup(conv.tables()):
                if not conv.ordered:
                    raise _Unordered
                writer.write_accesses(table)
            _finish(writer, conv, plan)
    except _Unordered:  # start over through a scratch file and sort out of core
        conv = Converter(plan)
        with TraceWriter(dst, layout=layout) as writer:
            write_sorted(conv.tables(), writer, budget_rows=sort_budget_rows)
            _finish(writer, conv, plan)
        resorted = True
    launches = conv.launches()
    notes = list(plan.notes)
    if conv.seq_derived:
        notes.append("no seq column: each work-item's accesses were numbered in file order")
    if resorted:
        notes.append("rows were not in (launch, group, item, seq) order and were sorted")
    if launches is None:
        notes.append(f"no launch facts (sizes): add {sidecar_path(src).name} or pass --global/--local; "
                     "analysis will have to infer them")
    return IngestResult(path=dst, accesses=conv.rows, launches=0 if launches is None else launches.num_rows,
                        seq_derived=conv.seq_derived, resorted=resorted, columns=plan.columns, notes=notes)


def _regroup(tables: Iterator[pa.Table], rows: int = 1 << 20) -> Iterator[pa.Table]:
    """Join small converted batches into tables of about ``rows`` rows (one Parquet row group each)."""
    pending, count = [], 0
    for t in tables:
        pending.append(t)
        count += t.num_rows
        if count >= rows:
            yield pa.concat_tables(pending)
            pending, count = [], 0
    if pending:
        yield pa.concat_tables(pending)


def _finish(writer: TraceWriter, conv: Converter, plan: Plan) -> None:
    launches = conv.launches()
    if launches is not None:
        writer.set_launches(launches)
    if plan.sites is not None:
        writer.set_sites(plan.sites)
    instr = plan.source.embedded.get("instructions")
    if instr is not None and instr.num_rows:
        for batch in instr.to_batches(max_chunksize=1 << 20):
            writer.write_instructions(batch)


def read_csv_trace(path: str | os.PathLike, *, sort: bool = True, **options) -> Trace:
    """Read a CSV (or any ingestible file) into an in-memory :class:`Trace`.

    Rows are sorted into canonical order unless ``sort=False`` (the validator keeps
    file order so that its row numbers are the file's).
    """
    plan = make_plan(path, **options)
    conv = Converter(plan)
    accesses = pa.concat_tables(list(conv.tables()))
    if sort and not conv.ordered:
        accesses = accesses.sort_by([(c, "ascending") for c in ("launch", "group", "item", "seq")])
    from tracekit.trace.store import conform
    tables = {"accesses": conform(accesses, "accesses")}
    launches = conv.launches()
    if launches is not None:
        tables["launches"] = launches
    if plan.sites is not None:
        tables["sites"] = plan.sites
    return Trace(path, _tables=tables)
