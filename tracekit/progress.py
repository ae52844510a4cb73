"""Progress of long runs: a bar with accesses/s on a terminal, plain log lines otherwise.

A scheduled job's log file and a CI console are not terminals: a redrawn bar
would fill them with control codes, so there a line is written every
``interval`` seconds instead (and nothing at all for runs shorter than that).
On a terminal a rich progress bar shows the count, the rate and the time left.

Use :func:`progress` as a context manager and call :meth:`Progress.advance`
with the units done; :func:`counting_trace` wraps a trace so that the model's
passes over the accesses advance the bar by themselves (:class:`LaunchCredit`
turns them into accesses analysed), without the analyzers knowing about
progress at all, and :func:`finish_counting` closes a target's share.
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
        self.done = 0.0
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

    def advance(self, n: float) -> None:
        """``n`` more units done; the count stops at the total (work beyond it is not progress)."""
        self.done += max(float(n), 0.0)
        if self.total:
            self.done = min(self.done, float(self.total))
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=int(self.done), rate=self.rate_text())
            return
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._line()

    def _line(self, final: bool = False) -> None:
        pct = f" ({int(100 * self.done / self.total)}%)" if self.total else ""   # 100 % only when done
        eta = ""
        if not final and self.total and self.rate > 0:
            left = max(self.total - self.done, 0) / self.rate
            eta = f", {left:.0f} s left" if left >= 0.5 or not left else ", under 1 s left"
        what = "done" if final else "progress"
        self.stream.write(f"{self.description}: {what}: {int(self.done):,}/{self.total:,} {self.unit}{pct}, "
                          f"{self.rate_text()}, {self.elapsed:.1f} s{eta}\n")
        self.stream.flush()
        self.lines += 1


def progress(total: int, description: str = "analyze", **options) -> Progress:
    """A :class:`Progress` for ``total`` units (accesses by default); use it with ``with``."""
    return Progress(total, description, **options)


class LaunchCredit:
    """Turns every pass over a launch's accesses into progress that stays within the launch's share.

    The unit of progress is one access analysed on one target, so the total is known before the
    analysis starts.  An analysis reads a launch more than once, though: a sampled launch is
    replayed cold and then warm (up to five passes), an image launch once more for its row
    pitches, and how often is the model's business, not known ahead.  Counting every access read
    would pass 100 % and then say "0 s left" while passes remain.  Instead, the accesses read of a
    launch of ``n`` accesses earn ``n (1 - 2^(-read/n))``: half its share after one pass, three
    quarters after two, never all of it; the rest comes when the launch is done (the analysis moved
    to another launch, or finished).  Progress so never goes back, never passes the total, and a
    launch that needs more passes keeps moving instead of standing at its end.
    """

    def __init__(self, bar: Progress, sizes: dict[int, int]):
        self.bar = bar
        self.sizes = {int(k): int(v) for k, v in sizes.items() if v > 0}
        self.read: dict[int, int] = {}
        self.earned: dict[int, float] = {}
        self.current: int | None = None

    def add(self, launch: int, n: int, *, moved_on: bool = True) -> None:
        """``n`` accesses of ``launch`` were read.  A launch other than the last one read means the
        analysis moved on and the last one is done, unless ``moved_on`` is False (a pass spread over
        several launches without saying which it reads)."""
        size = self.sizes.get(launch)
        if not size or n <= 0:
            return
        if moved_on and self.current is not None and self.current != launch:
            self.finish(self.current)
        if moved_on:
            self.current = launch
        self.read[launch] = self.read.get(launch, 0) + int(n)
        self._earn(launch, size * (1.0 - 0.5 ** (self.read[launch] / size)))

    def finish(self, launch: int | None = None) -> None:
        """``launch`` (every launch, without one) is done: the rest of its share is earned."""
        for key in ([launch] if launch is not None else list(self.sizes)):
            self._earn(key, float(self.sizes.get(key, 0)))

    def _earn(self, launch: int, value: float) -> None:
        before = self.earned.get(launch, 0.0)
        if value > before:
            self.earned[launch] = value
            self.bar.advance(value - before)


class _CountingTrace(Trace):
    """A view of a trace whose full-column passes over ``accesses`` advance a progress bar."""

    def iter_batches(self, table: str = "accesses", *, columns=None, **kwargs):
        counting = table == "accesses" and (columns is None or "address" in columns)
        wanted = kwargs.get("launches")
        wanted = list(wanted) if wanted is not None else None
        if counting and wanted is not None:
            kwargs["launches"] = wanted
        for batch in Trace.iter_batches(self, table, columns=columns, **kwargs):
            if counting:
                self._count(batch, wanted)
            yield batch

    def _count(self, batch, wanted) -> None:
        credit = self._credit
        if wanted is not None and len(wanted) == 1:
            credit.add(int(wanted[0]), batch.num_rows)
            return
        if "launch" in batch.schema.names:
            import pyarrow.compute as pc
            vc = pc.value_counts(batch.column("launch"))
            for v, n in zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist(), strict=True):
                credit.add(int(v), int(n))
            return
        # a pass that does not say which launch it reads: spread it over the launches it may read
        keys = wanted if wanted is not None else sorted(credit.sizes)
        total = sum(credit.sizes.get(int(k), 0) for k in keys) or 1
        for k in keys:
            credit.add(int(k), batch.num_rows * credit.sizes.get(int(k), 0) // total, moved_on=False)


def launch_sizes(trace: Trace) -> dict[int, int]:
    """Accesses per launch (one pass over the ``launch`` column)."""
    import pyarrow.compute as pc
    counts: dict[int, int] = {}
    for b in Trace.iter_batches(trace, "accesses", columns=["launch"]):
        vc = pc.value_counts(b.column(0))
        for v, n in zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist(), strict=True):
            counts[int(v)] = counts.get(int(v), 0) + int(n)
    return counts


def counting_trace(trace: Trace, bar: Progress, sizes: dict[int, int] | None = None) -> Trace:
    """``trace`` as seen by the analyzers of one target, reporting the passes over its accesses to
    ``bar`` through a :class:`LaunchCredit` (``sizes``: accesses per launch, counted when not given).

    Only passes that read addresses count (the memory replay), not the quick scans of a column or
    two that work out launch sizes.  Call :func:`finish_counting` when the target's analysis is
    done, so that its launches' last passes are earned.
    """
    view = _CountingTrace.__new__(_CountingTrace)
    view.__dict__.update(trace.__dict__)
    view._credit = LaunchCredit(bar, launch_sizes(trace) if sizes is None else sizes)
    return view


def finish_counting(view: Trace) -> None:
    """The analysis of ``view`` (a :func:`counting_trace`) is done: every launch's share is earned."""
    credit = getattr(view, "_credit", None)
    if credit is not None:
        credit.finish()


def uncounted(view: Trace) -> Trace:
    """The trace behind a :func:`counting_trace` (``view`` itself when it counts nothing): what a
    worker process reads, so that only this process draws the progress line."""
    if getattr(view, "_credit", None) is None:
        return view
    plain = Trace.__new__(Trace)
    plain.__dict__.update({k: v for k, v in view.__dict__.items() if k != "_credit"})
    return plain


def launch_done(view: Trace, launch: int) -> None:
    """``launch`` was analysed elsewhere (a worker read it): its whole share of ``view``'s progress
    is earned here."""
    credit = getattr(view, "_credit", None)
    if credit is not None:
        credit.finish(int(launch))

