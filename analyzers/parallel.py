"""Independent pieces of one analysis on every core of this machine.

A checklist is priced by many replays of the same launch (every target, every fix alone
and together), and each is independent of the others once the launch's head of
work-groups and its unchanged replay are known.  :func:`map_cores` runs such pieces in
forked worker processes: a fork inherits what the caller already computed (the trace,
the head, the unchanged replays), so only the small task and its result cross between
processes, and nothing is read or replayed twice.  Results come back in the order of the
tasks, so the output does not depend on how many cores ran it.

The number of processes is every core this process may run on, or ``TRACEKIT_JOBS``
(``1`` runs everything in this process).  Inside a worker, further calls run in turn:
processes are never nested.  Off Linux the pieces run in turn.
Beyond one machine the Dask path (:mod:`tracekit.distributed`) is the way.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TypeVar

from tracekit.errors import TracekitError

T = TypeVar("T")
R = TypeVar("R")

#: The environment variable that sets how many processes an analysis uses (default: every core).
JOBS_ENV = "TRACEKIT_JOBS"
#: The most processes :func:`map_cores` starts, whatever is asked.
JOBS_MAX = 256
#: The most memory one launch's analysis on one target takes: the replay streams a launch in chunks,
#: so it does not grow with the trace (``bench/bench_full.py`` measures it against a 1.5 GB budget).
#: Callers pass it as ``memory_each`` so that fewer analyses run at once where memory is short.
ANALYSIS_PEAK_BYTES = 3 << 29

_in_worker = False
_work: tuple[Callable, Sequence] | None = None


def cores() -> int:
    """The cores this process may run on (its CPU affinity, where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def jobs() -> int:
    """How many processes an analysis may use: ``TRACEKIT_JOBS`` when set, else :func:`cores`."""
    text = os.environ.get(JOBS_ENV)
    if text is None or not text.strip():
        return cores()
    try:
        n = int(text.strip())
    except ValueError:
        n = 0
    if not 1 <= n <= JOBS_MAX:
        raise TracekitError(f"{JOBS_ENV}={text!r} is not a number of processes",
                            hint=f"set it to a whole number from 1 to {JOBS_MAX}, or unset it to use "
                                 f"every core ({cores()} here)")
    return n


def available_memory() -> int | None:
    """Bytes of memory the system can give without swapping (``MemAvailable``), None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def map_cores(fn: Callable[[T], R], tasks: Sequence[T], *, processes: int | None = None,
              on_done: Callable[[int, R], None] | None = None, memory_each: int | None = None) -> list[R]:
    """``[fn(t) for t in tasks]``, spread over forked processes when there are several tasks and cores.

    ``fn`` and the tasks reach the workers through the fork (neither is pickled); each result
    is pickled back.  ``on_done(i, result)`` is called here as each task finishes (a progress
    line).  ``memory_each``: the most memory one task may take; no more processes start than
    the free memory holds (an analysis that fits in one process must not swap in several).
    An exception in a task is raised here, as it would be in a loop.
    """
    global _work
    tasks = list(tasks)
    n = min(jobs() if processes is None else processes, len(tasks))
    free = available_memory() if memory_each and n > 1 else None
    if free is not None:
        n = min(n, max(1, free // int(memory_each)))
    if n <= 1 or _in_worker or not _can_fork():
        out = []
        for i, t in enumerate(tasks):
            out.append(fn(t))
            if on_done is not None:
                on_done(i, out[-1])
        return out
    _work = (fn, tasks)
    # The workers share this process's memory until they write to it, and a collection in a worker
    # writes to every object it visits: objects made before the fork are set aside from collection
    # while the pool runs (fewer pages copied into each worker), and handed back to the
    # collector once it is done.
    gc.freeze()
    try:
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"),
                                 initializer=_enter_worker) as pool:
            futures = {pool.submit(_run, i): i for i in range(len(tasks))}
            results: list = [None] * len(tasks)
            for fut in as_completed(futures):
                i = futures[fut]
                results[i] = fut.result()
                if on_done is not None:
                    on_done(i, results[i])
            return results
    finally:
        _work = None
        gc.unfreeze()


def is_worker() -> bool:
    """Whether this process is one of :func:`map_cores`' workers."""
    return _in_worker


def _can_fork() -> bool:
    """Forked workers on Linux only: elsewhere (macOS system libraries) a fork of a process that has
    started threads is not safe, and the pieces run in turn."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _enter_worker() -> None:
    global _in_worker
    _in_worker = True


def _run(i: int):
    fn, tasks = _work
    return fn(tasks[i])
