"""Progress of long runs: a bar with accesses/s on a terminal, plain log lines otherwise.

A scheduled job's log file and a CI console are not terminals: a redrawn bar
would fill them with control codes, so there a line is written every
``interval`` seconds instead (and nothing at all for runs shorter than that).
On a terminal a rich progress bar shows the count, the rate and the time left.

Use :func:`progress` as a context manager and call :meth:`Progress.advance`
with the accesses done; :func:`counting_trace` wraps a trace so that the memory
replay's pass over the accesses advances the bar by itself, without the
analyzers knowing about progress at all.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tracekit.trace.reader import Trace


class Progress:
    """Counts work done against a total; see :func:`progress`."""

    def __init__(self, total: int, description: str = "analyze", *, unit: str = "accesses",
                 stream: TextIO | None = None, terminal: bool | None = None, interval: float = 5.0,
                 enabled: bool = True):
        self.total = max(int(total), 0)
        self.description = description
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.terminal = terminal if terminal is not None else bool(isatty and isatty())
        self.interval = interval
        self.enabled = enabled
        self.done = 0
        self.lines = 0
        self._start = self._last = 0.0
        self._bar = None
        self._task = None

    # -- lifecycle -------------------------------------------------------------
    def __enter__(self) -> Progress:
        self._start = self._last = time.monotonic()
        if self.enabled and self.terminal:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TaskProgressColumn,
                TextColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress
            self._bar = RichProgress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TaskProgressColumn(), TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                console=Console(file=self.stream), transient=False)
            self._bar.start()
            self._task = self._bar.add_task(self.description, total=self.total or None, rate="")
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._bar is not None:
            self._bar.update(self._task, rate=self.rate_text())
            self._bar.stop()
        elif self.enabled and self.lines and exc_type is None:
            self._line(final=True)

    # -- reporting -------------------------------------------------------------
    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._start

    @property
    def rate(self) -> float:
        """Units per second so far."""
        t = self.elapsed
        return self.done / t if t > 0 else 0.0

    def rate_text(self) -> str:
        return f"{self.rate / 1e6:.2f} M {self.unit}/s"

    def advance(self, n: int) -> None:
        self.done += int(n)
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, rate=self.rate_text())
            return
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._line()

    def _line(self, final: bool = False) -> None:
        pct = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        eta = ""
        if not final and self.total and self.rate > 0:
            eta = f", {max(self.total - self.done, 0) / self.rate:.0f} s left"
        what = "done" if final else "progress"
        self.stream.write(f"{self.description}: {what}: {self.done:,}/{self.total:,} {self.unit}{pct}, "
                          f"{self.rate_text()}, {self.elapsed:.1f} s{eta}\n")
        self.stream.flush()
        self.lines += 1


def progress(total: int, description: str = "analyze", **options) -> Progress:
    """A :class:`Progress` for ``total`` units (accesses by default); use it with ``with``."""
    return Progress(total, description, **options)


class _CountingTrace(Trace):
    """A view of a trace whose full-column passes over ``accesses`` advance a progress bar."""

    def iter_batches(self, table: str = "accesses", *, columns=None, **kwargs):
        counting = table == "accesses" and (columns is None or "address" in columns)
        for batch in Trace.iter_batches(self, table, columns=columns, **kwargs):
            if counting:
                self._progress.advance(batch.num_rows)
            yield batch


def counting_trace(trace: Trace, bar: Progress) -> Trace:
    """``trace`` as seen by the analyzers, reporting each replayed batch of accesses to ``bar``.

    Only passes that read addresses count (the memory replay), not the quick
    scans of a column or two that work out launch sizes.
    """
    view = _CountingTrace.__new__(_CountingTrace)
    view.__dict__.update(trace.__dict__)
    view._progress = bar
    return view
