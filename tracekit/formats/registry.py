"""The one registry of input formats: what tracekit reads, how each is recognised, who reads it.

Trace-shaped inputs become a trace v1:

* ``csv``: delimited text (CSV/TSV, plain or gzip) with trace v1 columns or other names
  (presets and ``--map``, :mod:`tracekit.formats.presets`), read by :mod:`tracekit.formats.tabular`;
* ``parquet``: a Parquet export with other column names, likewise;
* ``traceg``: Accel-Sim ``.traceg`` kernel traces -> a trace v1 (:func:`convert` writes
  one; :func:`read` returns it in memory);
* ``ncu``: Nsight Compute ``--csv --page raw`` (or ``--page details``) -> measured metrics
  per launch (:class:`~tracekit.formats.ncu.NcuRaw` / a DataFrame);
* ``instcounts``: Oclgrind ``--inst-counts`` output -> an instruction-mix DataFrame.

:func:`detect` tells them apart by content, so a file's name does not matter.
docs/foreign-formats.md describes each format and how it maps.
"""

from __future__ import annotations

import lzma
import os
from pathlib import Path

from tracekit.errors import TraceFormatError
from tracekit.files import check_input

#: Other tools' formats, told apart by content (:func:`detect`).
FORMATS = ("traceg", "ncu", "instcounts")
#: Every format a source may be named with (``tracekit ingest --format``).
TRACE_FORMATS = ("csv", "parquet", "traceg")
_TEXT_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".txt", ".txt.gz")


def is_csv_path(path: str | os.PathLike) -> bool:
    """True for names read as delimited text (.csv, .tsv, .txt, optionally .gz)."""
    return Path(path).name.lower().endswith(_TEXT_SUFFIXES)


def is_foreign(src: str | os.PathLike, fmt: str | None = None) -> bool:
    """True when ``src`` is another tool's export (``traceg``), not a table of accesses."""
    src = Path(src)
    if fmt is None:
        name = src.name.lower()
        if name.endswith((".parquet", ".tkt", *_TEXT_SUFFIXES)):
            return False
        return detect(check_input(src)) is not None
    if fmt in ("csv", "parquet"):
        return False
    if fmt not in FORMATS:
        raise TraceFormatError(f"unknown --format '{fmt}' (expected one of {', '.join(TRACE_FORMATS)})")
    return True


def _head(path: Path, size: int = 65536) -> str:
    path = check_input(path, kind="file", dirs=False)
    xz = path.suffix == ".xz"
    try:
        with (lzma.open if xz else open)(path, "rb") as fh:
            return fh.read(size).decode("utf-8", errors="replace")
    except lzma.LZMAError as exc:
        raise TraceFormatError(f"is not valid xz-compressed data ({exc})", path=str(path)) from None
    except EOFError:
        raise TraceFormatError("the xz-compressed data ends early: the file is truncated",
                               path=str(path)) from None
    except OSError as exc:
        raise TraceFormatError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None


def detect(path: str | os.PathLike) -> str | None:
    """``traceg``, ``ncu``, ``instcounts`` or None, from the file's first bytes."""
    p = check_input(path)
    if p.is_dir():
        from tracekit.formats.traceg_io import is_traceg_name
        names = [c.name for c in p.iterdir()]
        if "kernelslist.g" in names or any(is_traceg_name(Path(n)) for n in names):
            return "traceg"
        return None
    head = _head(p)
    lines = [s.strip() for s in head.splitlines()]
    if any(s.startswith("-kernel name") for s in lines[:40]):
        return "traceg"
    listed = any(s.startswith("kernel-") and ".trace" in s for s in lines[:40])
    if listed and p.name.startswith("kernelslist"):
        return "traceg"
    if any(s.startswith(('"ID","Process ID"', "ID,Process ID")) for s in lines):
        return "ncu"
    if any(s.startswith("Instructions executed for kernel '") for s in lines):
        return "instcounts"
    return None


def _format(path, format: str | None) -> str:
    fmt = format or detect(path)
    if fmt is None:
        raise TraceFormatError("is not a format tracekit reads from other tools (Accel-Sim .traceg, "
                               "Nsight Compute CSV, Oclgrind --inst-counts)", path=str(path))
    if fmt not in FORMATS:
        raise TraceFormatError(f"unknown format '{fmt}' (expected one of {', '.join(FORMATS)})")
    return fmt


def detect_and_read(path: str | os.PathLike, format: str | None = None):
    """Read ``path`` with the reader its content calls for.

    Returns a :class:`~tracekit.trace.reader.Trace` (traceg, converted in memory), an
    :class:`~tracekit.formats.ncu.NcuRaw` or SOL DataFrame (ncu raw / details page),
    or an instruction-count DataFrame (instcounts).
    """
    fmt = _format(path, format)
    if fmt == "traceg":
        from tracekit.formats.traceg_io import read_traceg
        return read_traceg(path)
    if fmt == "ncu":
        from tracekit.formats.ncu import read_ncu_raw, read_ncu_sol
        return read_ncu_sol(path) if '"Metric Name"' in _head(Path(path)) else read_ncu_raw(path)
    from tracekit.formats.instcounts import read_instcounts
    return read_instcounts(path)


def convert(src: str | os.PathLike, dst: str | os.PathLike, format: str | None = None, *,
            layout: str | None = None) -> Path:
    """Convert a trace-shaped foreign source (``.traceg``) into a trace v1 file at ``dst``."""
    fmt = _format(src, format)
    if fmt != "traceg":
        raise TraceFormatError(f"holds {fmt} data (measurements, not per-access trace rows); read it with "
                               "tracekit.formats.detect_and_read instead of converting it", path=str(src))
    from tracekit.formats.traceg_io import convert_traceg
    return convert_traceg(src, dst, layout=layout)
