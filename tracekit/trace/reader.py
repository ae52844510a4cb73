"""The :class:`Trace` object: one trace on disk, read lazily, table by table.

:func:`open_stored` opens every stored layout of trace v1 (``.tkt`` directory, single
``.parquet`` file; CSV exports are read by :func:`tracekit.open_trace`).  The big
``accesses`` table is never read whole unless asked: :meth:`Trace.iter_batches`
streams it in record batches so traces larger than memory can be validated and
analysed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from functools import cached_property
from pathlib import Path

import pyarrow as pa

from tracekit.errors import TraceFormatError
from tracekit.files import check_input
from tracekit.trace import limits, metadata, schema, store
from tracekit.trace.arrow_numpy import from_numpy, valid_values
from tracekit.trace.partition import (
    PartitionedTable,
    is_partitioned,
    launch_batches,
    row_group_batches,
    stored_launches,
)
from tracekit.trace.runs import expand_batches, expand_runs


class Trace:
    """A trace v1 on disk (or in memory).  :func:`tracekit.open_trace` opens one from any input."""

    def __init__(self, path: str | os.PathLike, *, _tables: dict[str, pa.Table] | None = None):
        from tracekit.arguments import check_path

        self.path = Path(check_path("path", path))
        self._mem = _tables  # in-memory trace (CSV ingested on open, tests)
        if self._mem is None:
            check_input(self.path, kind="trace (.tkt directory or .parquet file)")
            if self.path.is_dir():
                self.layout = "tkt"
                if not (self.path / "accesses.parquet").exists() and not is_partitioned(self.path):
                    raise TraceFormatError("is a directory but not a trace: accesses.parquet is missing",
                                           path=str(self.path))
            elif self.path.is_file():
                self.layout = "parquet"
            elif self.path.exists():
                raise TraceFormatError("is not a regular file or a .tkt directory", path=str(self.path))
            else:
                raise TraceFormatError("no such file or directory", path=str(self.path))
            self._pf = self._open_table("accesses")
            missing = [c for c in schema.ACCESS_REQUIRED if c not in self._pf.schema_arrow.names]
            if missing:
                raise TraceFormatError(
                    f"not a canonical trace: accesses lacks column(s) {', '.join(missing)}",
                    path=str(self.path),
                    hint="convert other exports with `tracekit ingest SRC -o DST --map ...`")
        else:
            self.layout = "memory"

    # -- locations -----------------------------------------------------------
    def _table_path(self, kind: str) -> Path:
        if self.layout == "tkt":
            return self.path / f"{kind}.parquet"
        return self.path

    def _open_table(self, kind: str):
        """A ParquetFile, or a :class:`PartitionedTable` for a trace partitioned by launch."""
        if self.layout == "tkt" and (self.path / kind).is_dir():
            return PartitionedTable(self.path / kind)
        return store.open_parquet(self._table_path(kind))

    @cached_property
    def _small(self) -> dict[str, pa.Table]:
        small = self._read_small()
        launches_path = self.path / "launches.parquet" if self.layout == "tkt" else self.path
        _check_declared(small, str(launches_path))
        metadata.check_table(small["launches"], str(launches_path))
        return small

    def _read_small(self) -> dict[str, pa.Table]:
        if self._mem is not None:
            return {k: self._mem.get(k, schema.empty(k))
                    for k in ("launches", "sites", "instructions", "machine_code")}
        if self.layout == "parquet":
            # add_key_value_metadata() writes to the file footer, not the Arrow schema.
            meta = dict(self._pf.schema_arrow.metadata or {})
            meta.update(self._pf.metadata.metadata or {})
            return store.small_tables_from_parquet_metadata(self.path, meta)
        out = {}
        for kind in ("launches", "sites", "instructions", "machine_code"):
            p = self._table_path(kind)
            if not p.exists() and not (self.path / kind).is_dir():
                out[kind] = schema.empty(kind)
            elif kind == "instructions":
                continue  # read lazily: can be large
            else:
                out[kind] = store.conform(store.open_parquet(p).read(), kind, path=str(p))
        return out

    # -- tables ---------------------------------------------------------------
    @property
    def launches(self) -> pa.Table:
        return self._small["launches"]

    @property
    def sites(self) -> pa.Table:
        return self._small["sites"]

    @property
    def machine_code(self) -> pa.Table:
        """The optional ``machine_code`` table (empty when the trace has none; see tracekit.isa)."""
        return self._small["machine_code"]

    @cached_property
    def instructions(self) -> pa.Table:
        """The whole ``instructions`` table in memory, one row per work-item (runs expanded)."""
        return expand_runs(self._instruction_runs)

    @cached_property
    def _instruction_runs(self) -> pa.Table:
        """The ``instructions`` table as stored (rows may stand for runs of work-items)."""
        if "instructions" in self._small:
            return self._small["instructions"]
        return store.conform(self._open_table("instructions").read(), "instructions",
                             path=str(self._table_path("instructions")))

    @property
    def accesses(self) -> pa.Table:
        """The whole accesses table in memory (use :meth:`iter_batches` for big traces)."""
        if self._mem is not None:
            return self._mem["accesses"]
        path = self._table_path("accesses")
        table = store.conform(self._pf.read(columns=self._access_columns()), "accesses", path=str(path))
        for batch in table.to_batches():
            _check_values(batch, path)
        return table

    @property
    def access_columns(self) -> list[str]:
        """Names of the accesses columns the trace stores (optional ones only where present)."""
        if self._mem is not None:
            return list(self._mem["accesses"].column_names)
        return self._access_columns()

    def _access_columns(self) -> list[str]:
        names = self._pf.schema_arrow.names
        return [f.name for f in schema.ACCESSES_WITH_IMAGES if f.name in names]

    @property
    def num_accesses(self) -> int:
        if self._mem is not None:
            return self._mem["accesses"].num_rows
        return self._pf.metadata.num_rows

    def iter_batches(self, table: str = "accesses", *, columns: list[str] | None = None,
                     batch_size: int = 1 << 20, cast: bool = True,
                     launches: Iterable[int] | None = None, runs: bool = False) -> Iterator[pa.RecordBatch]:
        """Stream a table in record batches of at most ``batch_size`` rows.

        Batches of ``accesses`` are checked against the trace's limits as they come
        (:mod:`tracekit.trace.limits`): the kernel names their dictionaries hold and the
        launches they start.
        """
        batches = self._iter_batches(table, columns=columns, batch_size=batch_size, cast=cast,
                                     launches=launches, runs=runs)
        return _within_limits(batches, str(self.path)) if table == "accesses" else batches

    def _iter_batches(self, table: str = "accesses", *, columns: list[str] | None = None,
                      batch_size: int = 1 << 20, cast: bool = True,
                      launches: Iterable[int] | None = None, runs: bool = False) -> Iterator[pa.RecordBatch]:
        """:meth:`iter_batches` without the limits.

        Batches of ``accesses``/``instructions`` come in stored order and with the
        canonical types of the columns asked for.  ``cast=False`` hands over the
        columns as stored, which lets the validator report a bad value by row
        instead of failing on the first cast.  ``launches`` keeps only those
        launches' rows and skips the row groups (or partition files) without them.

        ``instructions`` rows that stand for runs of work-items (``items``, see
        :mod:`tracekit.trace.runs`) come expanded to one row per work-item, unless
        ``runs=True`` (for readers that weight by ``items`` themselves); expanded
        batches may be longer than ``batch_size`` by one work-group's rows.
        """
        if table not in ("accesses", "instructions"):
            yield from self._small[table].to_batches(max_chunksize=batch_size)
            return
        if table == "instructions" and not runs and cast:
            want = columns
            read = None if columns is None else list(dict.fromkeys(
                [*columns, "launch", "group", "item", "site", "items"]))
            stored = self.iter_batches(table, columns=read, batch_size=batch_size, launches=launches,
                                       runs=True)
            for b in expand_batches(stored):
                yield b if want is None else b.select(want)
            return
        # the image columns are optional: asked for from a trace without them, they come as nulls
        target = schema.ACCESSES_WITH_IMAGES if table == "accesses" else schema.TABLES[table]
        t = self._in_memory(table)
        if t is not None:
            if launches is not None and t.num_rows:
                import pyarrow.compute as pc
                span = pc.min_max(t["launch"])
                lo, hi = span["min"].as_py(), span["max"].as_py()
                if not (lo == hi and lo in set(launches)):   # a table of one wanted launch is kept whole
                    t = t.filter(pc.is_in(t["launch"], from_numpy(sorted(launches), pa.int32())))
            if columns:
                for c in columns:  # an optional column the table lacks comes as nulls
                    if c not in t.column_names and c in target.names and target.field(c).nullable:
                        t = t.append_column(target.field(c), pa.nulls(len(t), target.field(c).type))
                t = t.select(columns)
            for batch in t.to_batches(max_chunksize=batch_size):
                yield _check_values(batch, self.path) if cast else batch
            return
        pf = self._pf if table == "accesses" else self._open_table(table)
        present = pf.schema_arrow.names
        cols = columns or [f.name for f in target if f.name in present]
        sub = pa.schema([target.field(c) for c in cols])
        read = [c for c in cols if c in present]
        if launches is not None:
            batches = launch_batches(pf, launches, batch_size=batch_size, columns=read)
        elif isinstance(pf, PartitionedTable):
            batches = pf.iter_batches(batch_size=batch_size, columns=read)
        else:
            batches = row_group_batches(pf, batch_size, read)
        for batch in batches:
            if not cast:
                yield batch
                continue
            if not batch.schema.equals(sub):
                batch = _cast_batch(batch, sub, self.path)
            yield _check_values(batch, self._table_path(table))

    def launch_ids(self, table: str = "accesses") -> set[int]:
        """Launches with rows in ``table`` (``accesses`` or ``instructions``), from the
        Parquet row-group statistics where they settle it, without decoding the column."""
        t = self._in_memory(table)
        if t is not None:
            import pyarrow.compute as pc
            found = set(pc.unique(t["launch"]).to_pylist()) if t.num_rows else set()
        else:
            found = stored_launches(self._pf if table == "accesses" else self._open_table(table))
        limits.check_launches(len(found), path=str(self.path))
        return found

    def _in_memory(self, table: str) -> pa.Table | None:
        """``accesses`` or ``instructions`` (as stored) when it is held in memory, else None."""
        if self._mem is not None or (table == "instructions" and self.layout == "parquet"):
            return self.accesses if table == "accesses" else self._instruction_runs
        return None

    def to_pandas(self, table: str = "accesses"):
        """One table as a pandas DataFrame (``accesses`` by default)."""
        if table == "accesses":
            return self.accesses.to_pandas()
        if table == "instructions":
            return self.instructions.to_pandas()
        return self._small[table].to_pandas()

    # -- facts ----------------------------------------------------------------
    @property
    def kernels(self) -> list[str]:
        return sorted(set(self.launches.column("kernel").to_pylist()))

    def launch_metadata(self, launch: int) -> dict:
        """The parsed ``metadata`` JSON of one launch ({} if none)."""
        row = self._launch_rows().get(launch)
        if row is None:
            return {}
        text = self.launches["metadata"][row].as_py()
        return metadata.parse(text, path=str(self.path), launch=launch)

    def _launch_rows(self) -> dict[int, int]:
        """Launch id -> its (first) row of the launches table, built once per table: a lookup per
        launch must not scan the table, or a summary of many launches takes quadratic time."""
        table = self.launches
        cached = self.__dict__.get("_launch_row_cache")
        if cached is None or cached[0] is not table:
            rows: dict[int, int] = {}
            for i, launch in enumerate(table["launch"].to_pylist()):
                rows.setdefault(launch, i)
            cached = self.__dict__["_launch_row_cache"] = (table, rows)
        return cached[1]

    def __repr__(self) -> str:
        return f"<Trace {self.path} layout={self.layout} accesses={self.num_accesses}>"

    def _repr_html_(self) -> str:
        from tracekit.trace.summary import summarize, summary_html
        return summary_html(summarize(self))



#: Values every analyzer relies on, checked on each batch read from a file: the vocabulary
#: columns (analyzers map them to codes) and the site (an index into per-site arrays).
_VOCABULARY = {"space": frozenset(schema.SPACES), "op": frozenset(schema.OPS)}
_HINT = "`tracekit validate {path}` names the first bad row"


def _check_declared(small: dict[str, pa.Table], path: str) -> None:
    """Refuse a launches table over the trace limits, before anything is done per launch.

    Its rows are counted first, so the names are gathered from a bounded table (with
    Python's set: the quick commands do not load Arrow's compute module)."""
    launches = small["launches"]
    limits.check_launches(launches.num_rows, path=path)
    if launches.num_rows and "kernel" in launches.column_names:
        limits.check_kernel_names(len(set(launches["kernel"].to_pylist())), path=path)


def _within_limits(batches: Iterator[pa.RecordBatch], path: str) -> Iterator[pa.RecordBatch]:
    """``batches`` of accesses, refused once they name more kernels or start more launches than a
    trace may hold.  Rows come launch by launch, so launches are counted where ``launch`` changes
    (one comparison per row, no set of ids)."""
    started = 0
    last = None
    for batch in batches:
        names = batch.schema.names
        if "kernel" in names and pa.types.is_dictionary(batch.schema.field("kernel").type):
            limits.check_kernel_names(len(batch.column("kernel").dictionary), path=path)
        if "launch" in names and batch.num_rows:
            ids = valid_values(batch.column("launch"))
            if ids is not None and len(ids):
                started += int((ids[1:] != ids[:-1]).sum()) + int(last is None or ids[0] != last)
                last = ids[-1]
                limits.check_launches(started, path=path)
        yield batch


def _check_values(batch: pa.RecordBatch, path: Path) -> pa.RecordBatch:
    """``batch`` once the values analyzers index with are known to be in range.

    Only the small dictionaries are looked at unless they hold an unknown word (then
    whether a row uses it), and the site column's minimum: cheap next to any analysis.
    """
    names = batch.schema.names
    for col, allowed in _VOCABULARY.items():
        if col not in names:
            continue
        arr = batch.column(col)
        if not pa.types.is_dictionary(arr.type):
            arr = arr.dictionary_encode()
        words = arr.dictionary.to_pylist()
        unknown = [i for i, w in enumerate(words) if w not in allowed]
        if not unknown:
            continue
        import pyarrow.compute as pc  # only for a word outside the vocabulary

        from tracekit.trace.columns import first_true
        used = pc.is_in(arr.indices, value_set=from_numpy(unknown, arr.indices.type))
        if pc.any(used).as_py():
            word = arr[first_true(used)].as_py()
            raise TraceFormatError(f"unknown {col} {word!r} (allowed: {', '.join(sorted(allowed))})",
                                   path=str(path), column=col, hint=_HINT.format(path=path))
    for col, least, what in (("site", 0, "sites number a kernel's instructions from 0"),
                             ("items", 1, "a row stands for a run of at least one work-item")):
        if col in names and batch.num_rows:
            values = valid_values(batch.column(col))
            low = int(values.min()) if values is not None and len(values) else None
            if low is not None and low < least:
                raise TraceFormatError(f"{col} {low} is below {least}: {what}", path=str(path), column=col,
                                       hint=_HINT.format(path=path))
    return batch


def _cast_batch(batch: pa.RecordBatch, sub: pa.Schema, path: Path) -> pa.RecordBatch:
    arrays = []
    names = set(batch.schema.names)
    for field in sub:
        if field.name not in names and field.nullable:  # an optional column the file lacks
            arrays.append(pa.nulls(batch.num_rows, field.type))
            continue
        if field.name not in names:
            raise TraceFormatError("the table has no required column", path=str(path), column=field.name)
        arrays.append(store.cast_column(batch.column(field.name), field, path=str(path), refuse_nulls=True,
                                        hint=f"`tracekit validate {path}` names the first bad row"))
    return pa.RecordBatch.from_arrays(arrays, schema=sub)


def open_stored(path: str | os.PathLike) -> Trace:
    """Open a stored trace v1: a ``.tkt`` directory (plain or partitioned) or one ``.parquet`` file.

    Other inputs (CSV exports, other tools' formats) are read by :func:`tracekit.open_trace`,
    which converts them through :mod:`tracekit.formats`.
    """
    return Trace(Path(path))
