"""Readers for what ``tracekit ingest`` accepts: CSV/TSV (plain or gzip) and Parquet.

Each source is read in record batches, never whole: CSV through pyarrow's
streaming reader with every used column read as text (so a bad cell is reported
by our own checks, with its row, instead of failing inside the parser), Parquet
row group by row group.  A source also reports any trace tables it already
carries (a tracekit ``.parquet`` file or ``.tkt`` directory being re-laid-out).
"""

from __future__ import annotations

import csv
import gzip
import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv

from tracekit.errors import TraceFormatError, printable
from tracekit.files import check_input
from tracekit.trace import store
from tracekit.trace.store import open_parquet

GZIP_MAGIC = b"\x1f\x8b"
# CSV bytes per batch (about 50k rows of a typical dump).  pyarrow's streaming reader
# reads several dozen blocks ahead, so the block size, not the file, bounds memory:
# 2 MiB blocks keep the read-ahead near 100 MB.  Ingest regroups batches before writing.
BLOCK_BYTES = 2 << 20


@dataclass
class Source:
    path: Path
    kind: str  # "csv" or "parquet"
    columns: list[str]
    #: Tables a tracekit file already carries (launches, sites, instructions).
    embedded: dict[str, pa.Table] = field(default_factory=dict)
    delimiter: str = ","
    compression: str | None = None
    _pf: object = None

    def where(self, row: int) -> str:
        """Extra location text for a 1-based data row (the CSV line, header being line 1)."""
        return f" (file line {row + 1})" if self.kind == "csv" else ""

    def batches(self, columns: list[str], batch_rows: int = 1 << 20) -> Iterator[pa.RecordBatch]:
        if self.kind == "parquet":
            yield from self._pf.iter_batches(batch_size=batch_rows, columns=columns)
            return
        yield from self._csv_batches(columns)

    def _stream(self):
        return pa.input_stream(str(self.path), compression=self.compression)

    def _csv_batches(self, columns: list[str]) -> Iterator[pa.RecordBatch]:
        invalid: list = []

        def on_invalid(row) -> str:
            invalid.append(row)
            return "error"

        try:
            reader = pacsv.open_csv(
                self._stream(),
                read_options=pacsv.ReadOptions(column_names=self.columns, skip_rows=1,
                                               block_size=BLOCK_BYTES),
                parse_options=pacsv.ParseOptions(delimiter=self.delimiter, invalid_row_handler=on_invalid),
                convert_options=pacsv.ConvertOptions(
                    include_columns=columns, column_types={c: pa.string() for c in columns},
                    strings_can_be_null=False, quoted_strings_can_be_null=False))
            yield from reader
        except (pa.ArrowInvalid, OSError, EOFError) as exc:
            if invalid:
                self._ragged(invalid[0])
            raise TraceFormatError(f"cannot be read as {'gzip-compressed ' if self.compression else ''}"
                                   f"CSV: {_first_line(exc)}", path=str(self.path)) from None


    def _ragged(self, row) -> None:
        """Locate a row with the wrong number of fields (only on this error path: a Python scan)."""
        line_no = None
        opener = gzip.open if self.compression else open
        with opener(self.path, "rt", encoding="utf-8-sig", errors="replace", newline="") as fh:
            for n, line in enumerate(fh, start=1):
                if line.rstrip("\r\n") == row.text:
                    line_no = n
                    break
        where = dict(row=line_no - 1) if line_no else {}
        extra = f" (file line {line_no})" if line_no else ""
        raise TraceFormatError(f"has {row.actual_columns} fields, expected {row.expected_columns} like the "
                               f"header{extra}: {row.text[:120]!r}", path=str(self.path), **where) from None


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def open_source(path: str | Path, *, delimiter: str | None = None) -> Source:
    """Open ``path`` as a CSV/TSV or Parquet source; a tracekit ``.tkt`` directory also works."""
    path = check_input(path, kind="CSV, Parquet or trace file")
    if path.is_dir():
        if not (path / "accesses.parquet").exists():
            raise TraceFormatError("is a directory but not a .tkt trace (no accesses.parquet)",
                                   path=str(path))
        from tracekit.trace.reader import Trace
        t = Trace(path)
        src = _parquet_source(path / "accesses.parquet")
        src.path = path
        src.embedded = {"launches": t.launches, "sites": t.sites, "instructions": t.instructions}
        return src
    if not path.exists():
        raise TraceFormatError("no such file", path=str(path))
    with open(path, "rb") as fh:
        head = fh.read(4)
    if path.suffix.lower() == ".parquet" or head == b"PAR1":
        src = _parquet_source(path)
        meta = dict(src._pf.schema_arrow.metadata or {})
        meta.update(src._pf.metadata.metadata or {})
        if any(k.startswith(store.META_PREFIX) for k in meta):
            src.embedded = store.small_tables_from_parquet_metadata(path, meta)
        return src
    return _csv_source(path, head, delimiter)


def _parquet_source(path: Path) -> Source:
    pf = open_parquet(path)
    names = list(pf.schema_arrow.names)
    _check_duplicates(names, path)
    return Source(path=path, kind="parquet", columns=names, _pf=pf)


def _csv_source(path: Path, head: bytes, delimiter: str | None) -> Source:
    compression = "gzip" if head[:2] == GZIP_MAGIC else None
    try:
        if compression:
            with gzip.open(path, "rb") as fh:
                raw = fh.read(1 << 16)
        else:
            with open(path, "rb") as fh:
                raw = fh.read(1 << 16)
    except (OSError, EOFError) as exc:
        raise TraceFormatError(f"cannot be decompressed: {exc}", path=str(path)) from None
    _refuse_binary(path, raw)
    text = raw.decode("utf-8-sig", errors="replace")  # utf-8-sig drops a byte-order mark
    first = text.split("\n", 1)[0].rstrip("\r")
    if not first.strip():
        raise TraceFormatError("is empty: expected a header line naming the columns, then one row "
                               "per access", path=str(path))
    if delimiter is None:
        lower = path.name.lower()
        if ".tsv" in lower:
            delimiter = "\t"
        else:
            counts = {d: first.count(d) for d in (",", "\t", ";")}
            delimiter = max(counts, key=lambda d: (counts[d], d == ","))
    try:
        names = [c.strip() for c in next(csv.reader(io.StringIO(first), delimiter=delimiter))]
    except csv.Error as exc:
        raise TraceFormatError(f"the header line cannot be read as CSV ({exc})", path=str(path),
                               row=0) from None
    if any(not n for n in names):
        i = names.index("")
        raise TraceFormatError(f"header column {i + 1} has no name", path=str(path), row=0)
    _check_duplicates(names, path)
    return Source(path=path, kind="csv", columns=names, delimiter=delimiter, compression=compression)


#: The first bytes of compressed files a CSV export may come in that ingest does not unpack.
_OTHER_COMPRESSION = {b"\xfd7zXZ\x00": "xz", b"BZh": "bzip2", b"\x28\xb5\x2f\xfd": "zstd",
                      b"PK\x03\x04": "zip"}
#: Bytes no CSV text holds: C0 controls other than tab, line feed, carriage return and form feed.
_BINARY = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")


def _refuse_binary(path: Path, raw: bytes) -> None:
    """Refuse a file whose first line is not text (a compressed or binary file, not a CSV)."""
    for magic, name in _OTHER_COMPRESSION.items():
        if raw.startswith(magic):
            raise TraceFormatError(f"is {name}-compressed, which CSV ingest does not read "
                                   f"(plain or gzip only)", path=str(path),
                                   hint="decompress it first, or recompress it with gzip")
    first = raw.split(b"\n", 1)[0]
    if _BINARY.search(first):
        raise TraceFormatError(f"is not a text CSV file: its header line holds binary data "
                               f"(it starts {printable(first, limit=16)})", path=str(path))


def _check_duplicates(names: list[str], path: Path) -> None:
    counts = Counter(n.lower() for n in names)
    dup = [n for n in names if counts[n.lower()] > 1]
    if dup:
        pos = [i + 1 for i, n in enumerate(names) if n.lower() == dup[0].lower()]
        raise TraceFormatError(f"duplicate column name (columns {', '.join(map(str, pos))} are both "
                               f"called '{dup[0]}'); every column needs a distinct name",
                               path=str(path), column=dup[0])
