"""Traces partitioned by launch: one Parquet file per launch, so a reader opens only its part.

Layout (a ``.tkt`` directory whose big tables are directories)::

    NAME.tkt/
      manifest.json                     {"layout": "partitioned", "partition_by": "launch", ...}
      launches.parquet  sites.parquet
      accesses/launch=0/part-0.parquet  accesses/launch=1/part-0.parquet ...
      instructions/launch=0/part-0.parquet ...

Each part keeps the ``launch`` column (the directory name repeats it, hive style,
so pyarrow.dataset and Spark can read the tree too).  :class:`PartitionedTable`
gives :class:`tracekit.trace.reader.Trace` the few ParquetFile methods it uses, over all
parts in launch order; :func:`launch_batches` streams only chosen launches from
either a plain Parquet file (skipping row groups by their launch statistics) or a
partitioned table (opening only those launches' files).  Dask workers that
analyse a launch therefore read that launch's bytes and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tracekit.errors import TraceFormatError
from tracekit.trace import schema, store
from tracekit.trace.arrow_numpy import empty_table, from_numpy

_PART_RE = re.compile(r"^launch=(-?\d+)$")


@dataclass(frozen=True)
class _Meta:
    num_rows: int


class PartitionedTable:
    """One table stored as ``launch=K/part-*.parquet`` files, read as one (ParquetFile-like)."""

    def __init__(self, root: Path):
        self.root = self.path = Path(root)
        parts: dict[int, list[Path]] = {}
        for d in self.root.iterdir():
            m = _PART_RE.match(d.name)
            if m and d.is_dir():
                parts[int(m.group(1))] = sorted(d.glob("*.parquet"))
        self.parts = {k: parts[k] for k in sorted(parts)}
        self._files: dict[Path, pq.ParquetFile] = {}

    def _pf(self, path: Path) -> pq.ParquetFile:
        pf = self._files.get(path)
        if pf is None:
            pf = self._files[path] = store.open_parquet(path)  # the same clear errors for a damaged part
        return pf

    def files(self, launches: Iterable[int] | None = None) -> list[Path]:
        keep = None if launches is None else {int(x) for x in launches}
        return [p for k, ps in self.parts.items() if keep is None or k in keep for p in ps]

    @property
    def launches(self) -> list[int]:
        return list(self.parts)

    @property
    def schema_arrow(self) -> pa.Schema:
        files = self.files()
        if not files:
            kind = self.root.name
            return schema.TABLES[kind] if kind in schema.TABLES else schema.ACCESSES
        return self._pf(files[0]).schema_arrow

    @property
    def metadata(self) -> _Meta:
        return _Meta(sum(self._pf(p).metadata.num_rows for p in self.files()))

    def read(self, columns: list[str] | None = None) -> pa.Table:
        tables = [self._pf(p).read(columns=columns) for p in self.files()]
        if not tables:
            empty = empty_table(self.schema_arrow)
            return empty.select(columns) if columns else empty
        return pa.concat_tables(tables, promote_options="permissive")

    def iter_batches(self, batch_size: int = 1 << 20, columns: list[str] | None = None,
                     launches: Iterable[int] | None = None) -> Iterator[pa.RecordBatch]:
        for p in self.files(launches):
            yield from row_group_batches(self._pf(p), batch_size, columns)


def is_partitioned(path: Path) -> bool:
    return (Path(path) / "accesses").is_dir()


def _integer_launches(pf) -> bool:
    """True when the stored ``launch`` column is an integer column (its statistics are launch ids)."""
    names = pf.schema_arrow.names
    return "launch" in names and pa.types.is_integer(pf.schema_arrow.field("launch").type)


def _launch_column(pf, group: int) -> pa.Array:
    """One row group's ``launch`` values as int32; a clear error for values that are not launch ids."""
    col = pf.read_row_group(group, columns=["launch"]).column(0)
    return store.cast_column(col, schema.ACCESSES.field("launch"), path=str(getattr(pf, "path", "")) or None,
                             refuse_nulls=True)


def _row_groups(pf: pq.ParquetFile, wanted: set[int]) -> tuple[list[int], list[bool]]:
    """Row groups that may hold a wanted launch, and whether each holds only wanted launches."""
    if not _integer_launches(pf):
        return list(range(pf.num_row_groups)), [False] * pf.num_row_groups
    col = pf.metadata.schema.to_arrow_schema().get_field_index("launch")
    keep, pure = [], []
    lo_w, hi_w = min(wanted), max(wanted)
    for i in range(pf.num_row_groups):
        st = pf.metadata.row_group(i).column(col).statistics
        if st is None or not st.has_min_max:
            keep.append(i)
            pure.append(False)
            continue
        lo, hi = int(st.min), int(st.max)
        if hi < lo_w or lo > hi_w or not any(lo <= w <= hi for w in wanted):
            continue
        keep.append(i)
        pure.append(lo == hi and lo in wanted)
    return keep, pure


def stored_launches(pf) -> set[int]:
    """Launch ids with rows in a table, read from row-group statistics where they settle
    it (a row group of one launch); only mixed row groups have their column decoded."""
    if isinstance(pf, PartitionedTable):
        return set(pf.launches)
    if "launch" not in pf.schema_arrow.names:
        return set()
    col = pf.metadata.schema.to_arrow_schema().get_field_index("launch")
    stats = _integer_launches(pf)
    out: set[int] = set()
    for i in range(pf.num_row_groups):
        rg = pf.metadata.row_group(i)
        if rg.num_rows == 0:
            continue
        st = rg.column(col).statistics if stats else None
        if st is not None and st.has_min_max and st.null_count == 0 and st.min == st.max:
            out.add(int(st.min))
        else:
            import pyarrow.compute as pc  # only when the statistics do not settle it
            out.update(pc.unique(_launch_column(pf, i)).to_pylist())
    return out


def launch_batches(pf, launches: Iterable[int], *, batch_size: int = 1 << 20,
                   columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    """Stream the rows of ``launches`` only, in stored order, reading as little as possible."""
    wanted = {int(x) for x in launches}
    if not wanted:
        return
    read_cols = columns if columns is None or "launch" in columns else [*columns, "launch"]
    if isinstance(pf, PartitionedTable):
        batches = ((b, True) for b in pf.iter_batches(batch_size, read_cols, launches=wanted))
    else:
        groups, pure = _row_groups(pf, wanted)
        batches = _by_group(pf, groups, pure, batch_size, read_cols)
    keys = from_numpy(sorted(wanted), pa.int32())
    field = schema.ACCESSES.field("launch")
    for batch, whole in batches:
        if not whole:
            launch = store.cast_column(batch.column("launch"), field, refuse_nulls=True,
                                       path=str(getattr(pf, "path", "")) or None)
            import pyarrow.compute as pc
            batch = batch.filter(pc.is_in(launch, keys))
        if columns is not None and read_cols is not columns:
            batch = batch.select(columns)
        if batch.num_rows:
            yield batch


def row_group_batches(pf: pq.ParquetFile, batch_size: int, columns, groups: Iterable[int] | None = None):
    """Batches of ``pf`` read row group by row group (all of them, or ``groups``).

    A reader over several row groups cuts its batches wherever a dictionary column
    changes dictionary (at every row group), so batches of ``batch_size`` rows
    would come out as ragged pieces (the tail of one window, the head of the
    next), and it keeps every column chunk it decoded until the file is closed,
    so memory would grow with the file; per row group neither happens.
    """
    for g in range(pf.num_row_groups) if groups is None else groups:
        yield from pf.iter_batches(batch_size=batch_size, columns=columns, row_groups=[g])


def _by_group(pf: pq.ParquetFile, groups: list[int], pure: list[bool], batch_size: int, columns):
    """:func:`row_group_batches` of ``groups``, each batch with its row group's ``pure`` flag."""
    for g, whole in zip(groups, pure, strict=True):
        for b in row_group_batches(pf, batch_size, columns, [g]):
            yield b, whole


def check_partition_by(value: str) -> str:
    if value != "launch":
        raise TraceFormatError(f"cannot partition by '{value}': only 'launch' is supported")
    return value
