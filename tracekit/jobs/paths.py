"""Where a job's reports go, and the files they must never replace.

A report is written by renaming a temporary over its path, so whatever had that
path is gone afterwards: the ledger, the jobs file, a trace.  Before a run writes
anything, :func:`check_outputs` compares every report path it is about to write
with those files, by resolved path (so a symbolic link or a different spelling of
the same path is caught) and by device and inode (so a hard link is caught), and
refuses the run if any coincide.

Temporaries are those of :func:`tracekit.files.write_atomic`:
``.NAME.part-PID.XXXXXXXX.EXT``.  :func:`stale_temporaries` picks, in an output
folder, only names of exactly that shape, for a report format, whose writing
process is no longer alive: a file someone else named ``.x.part-1`` or a report
another command is writing right now is left alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tracekit.errors import TracekitError
from tracekit.files import file_identity, stale_temporaries_in, temporary_owner

#: SQLite's files beside a database, which are part of the ledger as much as the file itself.
LEDGER_SIDE_FILES = ("-wal", "-shm", "-journal", ".lock")


class OutputClashError(TracekitError):
    """A report path that is also a file the run reads or keeps (the ledger, the jobs file, a trace)."""


def ledger_files(ledger: Path) -> list[Path]:
    """The ledger and the files SQLite and the run lock keep beside it."""
    return [ledger] + [Path(str(ledger) + side) for side in LEDGER_SIDE_FILES]


class Protected:
    """Files (and trace folders) that no report may replace or be written into."""

    def __init__(self) -> None:
        self._by_path: dict[str, str] = {}
        self._by_inode: dict[tuple[int, int], str] = {}

    def add(self, path: Path, what: str) -> None:
        self._by_path.setdefault(os.path.realpath(path), what)
        ident = file_identity(path)
        if ident is not None:
            self._by_inode.setdefault(ident, what)

    def clash(self, report: Path) -> str | None:
        """What ``report`` would replace or be written into, or None if it is free to write."""
        real = os.path.realpath(report)
        if real in self._by_path:
            return self._by_path[real]
        ident = file_identity(report)
        if ident is not None and ident in self._by_inode:
            return self._by_inode[ident]
        for up in Path(real).parents:   # written inside a trace folder would change the trace
            if str(up) in self._by_path:
                return self._by_path[str(up)]
        return None


def check_outputs(reports: dict[str, dict[Path, list[Path]]], protected: Protected) -> None:
    """Refuse a run whose reports coincide with a protected file or with each other.

    ``reports`` maps each job's name to its traces and the report paths each will get.
    """
    writers: dict[str, tuple[str, Path]] = {}
    for job, by_trace in reports.items():
        for trace, paths in by_trace.items():
            for report in paths:
                what = protected.clash(report)
                if what is not None:
                    raise OutputClashError(f"job '{job}' would write its report {report} over {what}; "
                                           "give the job another 'output' folder")
                other_job, other_trace = writers.setdefault(os.path.realpath(report), (job, trace))
                if other_job != job:
                    raise OutputClashError(f"jobs '{other_job}' and '{job}' would both write the report "
                                           f"{report}; give them different 'output' folders")
                if other_trace != trace:
                    raise OutputClashError(f"job '{job}' would write the report {report} for both "
                                           f"{other_trace} and {trace}; rename one of the traces")


def stale_temporaries(folder: Path, suffixes: Iterable[str]) -> list[Path]:
    """Our own report temporaries in ``folder`` whose writer has died, for the report formats
    whose suffixes are given (the naming and the liveness test are tracekit.files')."""
    suffixes = set(suffixes)
    return [p for p in stale_temporaries_in(folder)
            if p.is_file() and not p.is_symlink() and Path(temporary_owner(p)[0]).suffix in suffixes
            and p.suffix in suffixes]
