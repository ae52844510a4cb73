"""Everything tracekit reads that is not yet a stored trace v1, behind one registry.

:func:`open_trace` opens any trace input: a stored trace (``.tkt`` directory,
``.parquet`` file) or a delimited-text export converted in memory.  :func:`ingest`
converts an export (CSV/TSV, Parquet with other column names, Accel-Sim
``.traceg``) into a stored trace; :func:`detect_and_read` reads other tools'
measurements (Nsight Compute CSV, Oclgrind instruction counts).  The registry,
:mod:`tracekit.formats.registry`, says which format a file is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tracekit.files import check_input, refuse_overwriting_inputs
from tracekit.formats.registry import (
    FORMATS,
    TRACE_FORMATS,
    convert,
    detect,
    detect_and_read,
    is_csv_path,
    is_foreign,
)
from tracekit.trace.reader import Trace

if TYPE_CHECKING:  # the validator (and pyarrow.compute with it) loads when a trace is validated
    from tracekit.trace.validate import ValidationReport


def open_trace(path: str | os.PathLike, **csv_options) -> Trace:
    """Open a trace: ``.tkt`` directory, ``.parquet`` file, or a CSV/TSV export (converted in memory).

    ``csv_options`` (column map, preset, launch facts; see :func:`tracekit.formats.tabular.make_plan`)
    apply to text exports; ``tracekit ingest`` converts one once instead.
    """
    from tracekit.arguments import check_path

    check_path("path", path)
    if is_csv_path(path):
        from tracekit.formats.tabular import read_csv_trace
        return read_csv_trace(path, **csv_options)
    return Trace(Path(path))


def input_files(path: str | os.PathLike, *, launches_file: str | os.PathLike | None = None) -> list[Path]:
    """Every file that reading the trace input ``path`` may read: the path itself and, unless
    it is a ``.tkt`` folder, the launch facts an export comes with (``launches_file``, or the
    ``BASE.launches.json`` sidecar beside it).  Commands pass these to
    :func:`tracekit.files.refuse_overwriting_inputs`."""
    from tracekit.formats.sidecar import sidecar_path
    p = Path(path)
    if p.suffix == ".tkt" and launches_file is None:
        return [p]
    return [p, Path(launches_file) if launches_file else sidecar_path(p)]


def validate_path(path: str | os.PathLike, **csv_options) -> ValidationReport:
    """Validate the trace at ``path``; a text export is checked in file order, with file row numbers."""
    from tracekit.trace.validate import validate
    if is_csv_path(path):
        from tracekit.formats.tabular import read_csv_trace
        return validate(lambda: read_csv_trace(path, sort=False, **csv_options), path=path, file_order=True)
    return validate(lambda: Trace(Path(path)), path=path)


def ingest(src: str | os.PathLike, dst: str | os.PathLike, *, source_format: str | None = None,
           layout: str | None = None, **csv_options):
    """Convert ``src`` into a stored trace at ``dst``; returns what was written.

    Another tool's trace (``.traceg``) is converted by its reader and the result is the
    written path; tables of accesses go through :func:`tracekit.formats.tabular.ingest`,
    whose :class:`~tracekit.formats.tabular.IngestResult` says how columns were mapped.
    """
    check_input(src)
    refuse_overwriting_inputs(dst, input_files(src, launches_file=csv_options.get("launches_file")))
    if is_foreign(src, source_format):
        return convert(src, dst, source_format, layout=layout)
    from tracekit.formats.tabular import ingest as ingest_table
    return ingest_table(src, dst, layout=layout, **csv_options)


__all__ = ["FORMATS", "TRACE_FORMATS", "detect", "detect_and_read", "convert", "is_csv_path", "is_foreign",
           "ingest", "input_files", "open_trace", "validate_path"]
