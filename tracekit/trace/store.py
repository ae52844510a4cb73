"""Reading and writing trace v1 on disk (Parquet directory, single Parquet file).

Two layouts hold the same four tables:

* ``NAME.tkt/``: a directory with ``accesses.parquet``, ``instructions.parquet``,
  ``launches.parquet``, ``sites.parquet`` and ``manifest.json``;
* ``NAME.parquet``: one file holding ``accesses``, with the three small tables
  stored as Arrow IPC streams (base64) in the file's key-value metadata.

Writers never touch the destination until they have finished: everything is
written under a temporary name beside it and renamed into place, so a failed or
killed run leaves whatever the user had there intact.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import struct
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tracekit.errors import TraceFormatError
from tracekit.files import check_input, output_error, replace_entry, temporary_folder, write_atomic
from tracekit.trace import limits, schema
from tracekit.trace.arrow_numpy import valid_values

MANIFEST = "manifest.json"
META_PREFIX = b"tracekit."

# Encodings chosen so a recorded trace costs well under 4 bytes per access on disk
# and is cheap to write while recording: string columns are dictionary/RLE
# encoded, and every integer column is split into byte streams (byte k of every
# value, then byte k+1, ...).  Neighbouring rows share their high bytes
# (addresses, groups, work-items, sequence numbers), so zstd all but removes
# those streams; on recorded traces this is as small as delta-packing, a third
# faster to write and as fast to read (docs/trace-format.md).  zstd's fastest
# level loses little on such runs; large write batches cut per-batch work.
_DICT_COLUMNS = ["kernel", "space", "op", "opclass"]


#: What pyarrow raises while decoding a damaged file: a page header or body that does not
#: decode, a size past the end, a checksum that does not match, a name that is not UTF-8.
READ_ERRORS = (OSError, pa.ArrowException, EOFError, UnicodeDecodeError)


@contextmanager
def reading(path: str | os.PathLike):
    """Turn a failure to decode ``path``'s bytes into a :class:`TraceFormatError` naming it."""
    try:
        yield
    except READ_ERRORS as exc:
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise TraceFormatError(f"cannot be read: part of its data is damaged or missing ({detail})",
                               path=str(path), hint="the file was cut short or changed after it was "
                               "written; write it again from its source") from None


class StoredParquet(pq.ParquetFile):
    """A ParquetFile of a stored trace table whose reads name the file when its pages are damaged.

    Every read tracekit makes of a stored table goes through one of these (:func:`open_parquet`),
    so a damaged page anywhere ends as a :class:`TraceFormatError`, never as pyarrow's own
    exception.  Page checksums, where the writer stored them, are checked.
    """

    def __init__(self, path: Path):
        super().__init__(path, page_checksum_verification=True)
        self.path = Path(path)

    def read(self, *args, **kwargs) -> pa.Table:
        with reading(self.path):
            return _check_text(super().read(*args, **kwargs))

    def read_row_group(self, *args, **kwargs) -> pa.Table:
        with reading(self.path):
            return _check_text(super().read_row_group(*args, **kwargs))

    def read_row_groups(self, *args, **kwargs) -> pa.Table:
        with reading(self.path):
            return _check_text(super().read_row_groups(*args, **kwargs))

    def iter_batches(self, *args, **kwargs):
        with reading(self.path):
            batches = super().iter_batches(*args, **kwargs)
        while True:
            with reading(self.path):
                batch = next(batches, None)
                if batch is not None:
                    _check_text(batch)
            if batch is None:
                return
            yield batch


def _check_text(data: pa.Table | pa.RecordBatch):
    """``data`` once its strings are valid UTF-8 and its dictionary indices in range (else ArrowInvalid).

    Parquet readers hand both over unchecked, so a damaged byte would surface much
    later, far from the file, as a decoding error or an index out of bounds.  A
    dictionary column costs one min/max over its indices and a look at its (small)
    dictionary.
    """
    for col in data.columns:
        for arr in (col.chunks if isinstance(col, pa.ChunkedArray) else [col]):
            if pa.types.is_dictionary(arr.type):
                indices = valid_values(arr.indices)
                low, high = (int(indices.min()), int(indices.max())) if len(indices) else (None, None)
                if low is not None and (low < 0 or high >= len(arr.dictionary)):
                    raise pa.ArrowInvalid(f"dictionary index {low if low < 0 else high} is outside "
                                          f"the dictionary of {len(arr.dictionary)} value(s)")
                arr = arr.dictionary
            if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
                arr.validate(full=True)
    return data


def open_parquet(path: Path) -> StoredParquet:
    """A Parquet file, or a :class:`TraceFormatError` that says what is wrong with it."""
    path = check_input(path, kind="Parquet file", dirs=False)
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise TraceFormatError(f"cannot be opened ({exc.strerror})", path=str(path)) from None
    if not head:
        raise TraceFormatError("is empty (0 bytes), not a Parquet file", path=str(path))
    if head != b"PAR1":
        raise TraceFormatError("is not a Parquet file (it does not start with the Parquet magic bytes "
                               "PAR1); CSV exports are converted with `tracekit ingest`", path=str(path))
    try:
        pf = StoredParquet(path)
        pf.schema_arrow  # noqa: B018 - decodes the schema now, so a damaged one is reported here
    except READ_ERRORS as exc:
        # It starts like Parquet, so the end (footer) is what is missing or damaged.
        why = ("is truncated or damaged: it starts like a Parquet file but its footer (at the end of "
               f"the file) cannot be read ({(str(exc).strip().splitlines() or [''])[0]})")
        raise TraceFormatError(why, path=str(path)) from None
    check_inflated_sizes(pf.metadata, path)
    return pf


#: Bytes per value of Parquet's fixed-width physical types.
_WIDTH = {"BOOLEAN": 1, "INT32": 4, "INT64": 8, "INT96": 12, "FLOAT": 4, "DOUBLE": 8}


def check_inflated_sizes(meta: pq.FileMetaData, path: Path) -> None:
    """Refuse a file whose column chunks declare more decompressed bytes than their values can fill.

    Each column chunk says how many values it holds and how large it is decompressed; a
    number column needs at most its values' width apiece (plus levels and page headers), a
    text column at most :data:`tracekit.trace.limits.MAX_TEXT_BYTES`.  A few kilobytes that
    would inflate to gigabytes are refused here, from the footer, before any page is read.
    """
    for i in range(meta.num_row_groups):
        group = meta.row_group(i)
        for j in range(group.num_columns):
            col = group.column(j)
            width = _WIDTH.get(col.physical_type)
            values = max(int(col.num_values), 0)
            most = (values * (width + 1) + (1 << 20) if width is not None
                    else values * 8 + limits.MAX_TEXT_BYTES)
            if int(col.total_uncompressed_size) > most:
                raise TraceFormatError(
                    f"column '{col.path_in_schema}' (row group {i}) declares "
                    f"{int(col.total_uncompressed_size):,} bytes decompressed for {values:,} value(s), more "
                    f"than the {most:,} they can take; refused before inflating it "
                    "(docs/trace-format.md, Limits)", path=str(path))


def _parquet_options(table_schema: pa.Schema) -> dict:
    names = set(table_schema.names)
    encoding = {f.name: "BYTE_STREAM_SPLIT" for f in table_schema
                if pa.types.is_integer(f.type) or pa.types.is_floating(f.type)}
    return dict(
        compression="zstd",
        compression_level=1,
        write_batch_size=1 << 16,
        use_dictionary=[c for c in _DICT_COLUMNS if c in names],
        column_encoding=encoding,
        write_statistics=["launch", "group"] if "group" in names else True,
        # A CRC per page: readers then tell a damaged page from data (a few bytes per page).
        write_page_checksum=True,
    )


def cast_column(col, field: pa.Field, *, path: str | None = None, hint: str | None = None,
                refuse_nulls: bool = False):
    """``col`` as ``field.type`` (strings are dictionary-encoded where the schema says so).

    A value that cannot be cast raises :class:`TraceFormatError` naming the column;
    so does an empty value in a required column when ``refuse_nulls`` (readers of
    stored tables set it: analyzers rely on those columns being filled).
    """
    if refuse_nulls and not field.nullable and col.null_count:
        raise TraceFormatError(f"has {col.null_count:,} empty value(s) in a column every row must fill",
                               path=path, column=field.name, hint=hint)
    if col.type == field.type:
        return col
    try:
        if pa.types.is_dictionary(field.type) and not pa.types.is_dictionary(col.type):
            return col.cast(pa.string()).dictionary_encode().cast(field.type)
        return col.cast(field.type)
    except pa.ArrowException as exc:
        raise TraceFormatError(f"cannot be read as {field.type} ({exc})", path=path, column=field.name,
                               hint=hint) from None


def conform(table: pa.Table | pa.RecordBatch, kind: str, *, path: str | None = None) -> pa.Table:
    """Cast ``table`` to the canonical schema of ``kind``, adding optional columns.

    An accesses table keeps the optional image columns when it has any of them
    (:func:`tracekit.trace.schema.accesses_schema`).  Raises :class:`TraceFormatError`
    naming the column (and ``path``, when given) that cannot be cast.  With ``path`` (a
    table read from that file) empty values in required columns are refused too.
    """
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    target = schema.accesses_schema(table.column_names) if kind == "accesses" else schema.TABLES[kind]
    cols = []
    for field in target:
        if field.name in table.column_names:
            cols.append(cast_column(table.column(field.name), field, path=path,
                                    refuse_nulls=path is not None))
        elif field.nullable:
            cols.append(pa.nulls(len(table), field.type))
        else:
            raise TraceFormatError(f"the {kind} table has no required column '{field.name}'",
                                   path=path, column=field.name)
    return pa.Table.from_arrays(cols, schema=target)


def _ipc_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return base64.b64encode(sink.getvalue().to_pybytes())


def _from_ipc(data: bytes) -> pa.Table:
    raw = base64.b64decode(data)
    if _ipc_compressed(raw):
        # tracekit writes these tables uncompressed, so the footer's size is what they take;
        # a compressed body could inflate to any size before it could be checked
        raise pa.ArrowInvalid("its body is compressed (tracekit writes these tables uncompressed; a "
                              "compressed one is refused before inflating it, docs/trace-format.md, Limits)")
    return pa.ipc.open_stream(raw).read_all()


def _fb_field(buf: bytes, table: int, index: int) -> int:
    """The offset of field ``index`` inside the flatbuffer table at ``table`` (0: absent)."""
    vtable = table - struct.unpack_from("<i", buf, table)[0]
    size = struct.unpack_from("<H", buf, vtable)[0]
    return struct.unpack_from("<H", buf, vtable + 4 + 2 * index)[0] if 4 + 2 * index < size else 0


def _fb_table(buf: bytes, table: int, index: int) -> int | None:
    """The table that field ``index`` of the table at ``table`` points to (None: absent)."""
    off = _fb_field(buf, table, index)
    if not off:
        return None
    return table + off + struct.unpack_from("<I", buf, table + off)[0]


def _ipc_compressed(raw: bytes) -> bool:
    """Whether any record batch of an Arrow IPC stream declares a compressed body.

    Read from each message's header (Arrow's flatbuffer schema: Message.header is a
    RecordBatch, or a DictionaryBatch holding one, whose field 3 is its compression),
    so nothing is inflated to find out."""
    for message in pa.ipc.MessageReader.open_stream(pa.BufferReader(raw)):
        meta = message.metadata.to_pybytes()
        try:
            root = struct.unpack_from("<I", meta, 0)[0]
            kind_at = _fb_field(meta, root, 1)
            kind = meta[root + kind_at] if kind_at else 0
            batch = _fb_table(meta, root, 2)
            if kind == 2 and batch is not None:  # a dictionary batch: its data is a record batch
                batch = _fb_table(meta, batch, 1)
            if kind in (2, 3) and batch is not None and _fb_field(meta, batch, 3):
                return True
        except (struct.error, IndexError):
            raise pa.ArrowInvalid("a message header of the stream is damaged") from None
    return False


def temporary_beside(dest: Path) -> Path:
    """A new temporary folder beside ``dest`` (see :func:`tracekit.files.temporary_folder`), for
    a trace written whole before it is renamed into place; an unwritable destination is a
    clear error here."""
    return temporary_folder(dest)


class TraceWriter:
    """Streams a trace to disk; call :meth:`close` (or use ``with``) to publish it.

    ``write_accesses``/``write_instructions`` take record batches or tables in any
    castable schema and may be called many times; ``launches``/``sites`` are set
    once.  Nothing appears at ``path`` until :meth:`close` succeeds; on an
    exception inside ``with`` the temporary output is removed and ``path`` keeps
    its previous contents.
    """

    def __init__(self, path: str | os.PathLike, *, layout: str | None = None):
        from tracekit.arguments import check_path

        self.path = Path(check_path("path", path))
        self.layout = layout or ("parquet" if self.path.suffix == ".parquet" else "tkt")
        if self.layout not in ("parquet", "tkt"):
            raise TraceFormatError(f"unknown trace layout '{self.layout}' (expected tkt or parquet)")
        self._tmp = temporary_beside(self.path)
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._small: dict[str, pa.Table] = {}
        self._instr_batches: list[pa.Table] = []
        self.rows = {"accesses": 0, "instructions": 0}
        self._closed = False

    @contextmanager
    def _writing(self):
        """A write that fails on the disk (full, read-only, size limit) removes the temporary
        output and becomes a :class:`TracekitError` naming the destination."""
        try:
            yield
        except OSError as exc:
            self.abort()
            raise output_error(self.path, exc) from None

    # -- streaming tables -------------------------------------------------
    def _writer(self, kind: str, target: pa.Schema | None = None) -> pq.ParquetWriter:
        w = self._writers.get(kind)
        if w is None:
            target = target or schema.TABLES[kind]
            w = pq.ParquetWriter(self._tmp / self._file(kind), target, **_parquet_options(target))
            self._writers[kind] = w
        return w

    def _file(self, kind: str) -> str:
        return "accesses.parquet" if self.layout == "parquet" else f"{kind}.parquet"

    def write_accesses(self, batch: pa.Table | pa.RecordBatch) -> None:
        t = conform(batch, "accesses")
        if not len(t):
            return
        with self._writing():
            w = self._writers.get("accesses")
            if w is not None and len(t.schema) > len(w.schema):
                self._widen_accesses()
            elif w is not None and len(t.schema) < len(w.schema):
                t = conform(t.append_column(schema.IMAGE_FIELDS[0], pa.nulls(len(t), pa.int32())), "accesses")
            self._writer("accesses", t.schema).write_table(t, row_group_size=1 << 20)
        self.rows["accesses"] += len(t)

    def _widen_accesses(self) -> None:
        """Rewrite the accesses written so far with the image columns (null), once: the
        first image rows can come after a launch without images (a host program)."""
        self._writers.pop("accesses").close()
        narrow = self._tmp / (self._file("accesses") + ".narrow")
        os.replace(self._tmp / self._file("accesses"), narrow)
        w = self._writer("accesses", schema.ACCESSES_WITH_IMAGES)
        pf = pq.ParquetFile(narrow)
        for i in range(pf.num_row_groups):
            t = pf.read_row_group(i)
            t = conform(t.append_column(schema.IMAGE_FIELDS[0], pa.nulls(len(t), pa.int32())), "accesses")
            w.write_table(t, row_group_size=1 << 20)
        pf.close()
        narrow.unlink()

    def write_instructions(self, batch: pa.Table | pa.RecordBatch) -> None:
        t = conform(batch, "instructions")
        if not len(t):
            return
        self.rows["instructions"] += len(t)
        if self.layout == "parquet":
            self._instr_batches.append(t)  # goes into the footer metadata
        else:
            with self._writing():
                self._writer("instructions").write_table(t, row_group_size=1 << 20)

    def set_launches(self, table: pa.Table) -> None:
        self._small["launches"] = conform(table, "launches")

    def set_sites(self, table: pa.Table) -> None:
        self._small["sites"] = conform(table, "sites")

    def set_machine_code(self, table: pa.Table) -> None:
        """The optional ``machine_code`` table (written only when it has rows)."""
        self._small["machine_code"] = conform(table, "machine_code")

    # -- publishing -------------------------------------------------------
    def close(self) -> Path:
        if self._closed:
            return self.path
        try:
            with self._writing():
                self._publish()
        except BaseException:
            self.abort()  # interrupted (SIGTERM, Ctrl-C) while publishing: no temporary stays behind
            raise
        self._closed = True
        return self.path

    def _publish(self) -> None:
        for kind in ("accesses", "instructions"):
            if kind == "instructions" and self.layout == "parquet":
                continue
            self._writer(kind)  # make sure an (empty) file exists
        launches = self._small.get("launches", schema.empty("launches"))
        sites = self._small.get("sites", schema.empty("sites"))
        machine = self._small.get("machine_code")
        if machine is not None and not machine.num_rows:
            machine = None
        if self.layout == "parquet":
            instr = (pa.concat_tables(self._instr_batches) if self._instr_batches
                     else schema.empty("instructions"))
            meta = {
                META_PREFIX + b"version": str(schema.FORMAT_VERSION).encode(),
                META_PREFIX + b"launches": _ipc_bytes(launches),
                META_PREFIX + b"sites": _ipc_bytes(sites),
                META_PREFIX + b"instructions": _ipc_bytes(instr),
            }
            if machine is not None:
                meta[META_PREFIX + b"machine_code"] = _ipc_bytes(machine)
            self._writers["accesses"].add_key_value_metadata(meta)
        for w in self._writers.values():
            w.close()
        if self.layout == "tkt":
            for kind in ("launches", "sites"):
                t = self._small.get(kind, schema.empty(kind))
                pq.write_table(t, self._tmp / f"{kind}.parquet", **_parquet_options(t.schema))
            if machine is not None:
                write_machine_code_file(machine, self._tmp / "machine_code.parquet")
            (self._tmp / MANIFEST).write_text(json.dumps(
                {"format": "tracekit-trace", "version": schema.FORMAT_VERSION,
                 "rows": self.rows}, indent=1) + "\n")
            replace_entry(self._tmp, self.path, folder=True)
        else:
            replace_entry(self._tmp / "accesses.parquet", self.path, folder=False)
            shutil.rmtree(self._tmp, ignore_errors=True)

    def abort(self) -> None:
        for w in self._writers.values():
            try:
                w.close()
            except Exception:  # noqa: BLE001 - best effort while unwinding
                pass
        shutil.rmtree(self._tmp, ignore_errors=True)
        self._closed = True

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def write_trace(path: str | os.PathLike, accesses: pa.Table, *, instructions: pa.Table | None = None,
                launches: pa.Table | None = None, sites: pa.Table | None = None,
                layout: str | None = None) -> Path:
    """Write whole in-memory tables as a trace (convenience for tests and notebooks)."""
    from tracekit.arguments import ArgumentTypeError, check_path

    check_path("path", path)
    for name, table in (("accesses", accesses), ("instructions", instructions), ("launches", launches),
                        ("sites", sites)):
        if (table is not None or name == "accesses") and not isinstance(table, pa.Table):
            raise ArgumentTypeError(f"{name} must be a pyarrow Table, got {type(table).__name__}")
    with TraceWriter(path, layout=layout) as w:
        w.write_accesses(accesses)
        if instructions is not None:
            w.write_instructions(instructions)
        if launches is not None:
            w.set_launches(launches)
        if sites is not None:
            w.set_sites(sites)
    return Path(path)


def write_machine_code_file(table: pa.Table, dest: Path) -> None:
    """Write the ``machine_code`` table to ``dest`` (a ``.tkt`` member), atomically."""
    write_atomic(dest, lambda tmp: pq.write_table(conform(table, "machine_code"), tmp, compression="zstd"))


def small_tables_from_parquet_metadata(path: Path, meta: dict[bytes, bytes] | None) -> dict[str, pa.Table]:
    """Decode the launches/sites/instructions (and machine_code) tables kept in a single-file trace."""
    out = {}
    meta = meta or {}
    for kind in ("launches", "sites", "instructions", "machine_code"):
        raw = meta.get(META_PREFIX + kind.encode())
        if raw is None:
            out[kind] = schema.empty(kind)
            continue
        try:
            out[kind] = conform(_check_text(_from_ipc(raw)), kind, path=str(path))
        except TraceFormatError:
            raise
        except Exception as exc:  # noqa: BLE001 - corrupt metadata is bad input
            raise TraceFormatError(f"the '{kind}' table in the file metadata is unreadable ({exc})",
                                   path=str(path)) from None
    return out
