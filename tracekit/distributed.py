"""Analysis spread over Dask workers: one task per (target, launch), or per compute unit.

``shard="launch"`` is exact: cache state starts empty at every launch and dirty
lines are flushed when it ends (see :mod:`analyzers.replay.memory`), so a launch
analysed alone gives the same numbers as inside the whole trace.  Each task runs
the ordinary :func:`analyzers.analyze` on a *view* of the trace that holds one
launch, and the results are put back together in launch order: the JSON is
byte-identical to a single-process run.

``shard="compute_unit"`` cuts one launch further, by the compute unit each
virtual work-group is assigned to (``v % compute_units``, as in
:func:`analyzers.replay.waves.schedule`).  Each task replays its unit's work-groups,
in their order, on a one-unit copy of the target, so the per-unit levels (L1)
see exactly the stream they see in the full replay.  Shared levels are the
approximation: each task gets ``1/units`` of their sets (its fair share of the
capacity), so contention between units is modelled by the smaller size, but a
line one unit brought in is never found by another.  docs/distributed.md says
how large the difference is on the sample traces.  The execution models and the
verdict then run once per launch on the summed memory results.

Workers open the trace themselves (from the path), and with a trace partitioned
by launch (:mod:`tracekit.trace.partition`) each reads only its launch's files.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow.compute as pc

from tracekit.arguments import WORKERS_MAX, check_int
from tracekit.errors import TracekitError
from tracekit.formats import open_trace
from tracekit.trace.reader import Trace
from tracekit.trace.views import launch_groups, launch_view

SHARDS = ("launch", "compute_unit")
#: How many more times a task runs after it raised or its worker died, before the analysis fails.
TASK_RETRIES = 2
#: Seconds to wait for the scheduler named by ``--scheduler`` to answer.
CONNECT_TIMEOUT_S = 5
#: Single-threaded local workers per CPU core beyond which ``--workers`` is refused: more only
#: adds processes to start and memory to hold, and a count in the thousands would never start.
#: Address schemes a Dask scheduler listens on.
SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")


# -- worker side ----------------------------------------------------------------------

_OPEN: dict[str, Trace] = {}


def _trace(path: str) -> Trace:
    t = _OPEN.get(path)
    if t is None:
        t = _OPEN[path] = open_trace(path)
    return t


def analyze_launch_task(path: str, target, launch: int):
    """Worker task: the whole analysis of one launch on one target (an AnalysisResult)."""
    from analyzers import analyze
    return analyze(launch_view(_trace(path), [launch]), target)


def _launch_groups_task(path: str, launch: int) -> np.ndarray:
    """Worker task: the work-group ids of one launch, in execution order."""
    return launch_groups(_trace(path), launch)


def unit_target(target, units: int):
    """A one-compute-unit copy of ``target`` whose shared levels keep ``1/units`` of their sets."""
    caches = []
    for c in target.caches:
        if c.scope != "compute_unit" and units > 1:
            sets = max(1, c.sets // units)
            c = dataclasses.replace(c, size_bytes=sets * c.ways * c.line_bytes)
        caches.append(c)
    return dataclasses.replace(target, compute_units=1, caches=tuple(caches))


def replay_unit_task(path: str, target, launch: int, groups: np.ndarray, group_size: int):
    """Worker task: the memory replay of one compute unit's work-groups of one launch."""
    from analyzers.replay import replay_memory
    view = launch_view(_trace(path), [launch], groups)
    return replay_memory(view, unit_target(target, max(1, target.compute_units)), launches=[launch],
                         group_sizes={launch: group_size})


def unit_shards(groups: np.ndarray, compute_units: int, pack: int) -> list[np.ndarray]:
    """Work-group ids per compute unit: virtual group ``rank // pack`` runs on unit ``v % units``."""
    rank = np.arange(len(groups))
    unit = (rank // max(1, pack)) % compute_units
    return [groups[unit == u] for u in range(compute_units)]


# -- client side ----------------------------------------------------------------------

def check_workers(workers) -> int:
    """``workers`` if it is a count of local workers this machine can start
    (:data:`tracekit.arguments.WORKERS_MAX`), else an error naming the argument."""
    return check_int("workers", workers, 1, WORKERS_MAX)


def check_scheduler_address(address: str) -> str:
    """``address`` if it has the form SCHEME://HOST:PORT of a Dask scheduler, else a TracekitError."""
    from distributed.comm.addressing import parse_address, parse_host_port

    expected = "expected SCHEME://HOST:PORT, e.g. tcp://127.0.0.1:8786"
    try:
        scheme, location = parse_address(address, strict=True)
        if scheme not in SCHEMES:
            raise ValueError(f"unknown scheme '{scheme}' (known: {', '.join(SCHEMES)})")
        if scheme != "inproc":
            host, port = parse_host_port(location)
            if not host or not 0 < int(port) < 65536:
                raise ValueError("no host or no port in 1 .. 65535")
    except (ValueError, TypeError) as exc:
        raise TracekitError(f"--scheduler '{address}' is not a Dask scheduler address ({exc}); {expected}") \
            from None
    return address


def connect(address: str):
    """A client of the scheduler at ``address``; one that does not answer within
    :data:`CONNECT_TIMEOUT_S` seconds is a TracekitError, not a wait of its own."""
    from dask.distributed import Client

    check_scheduler_address(address)
    try:
        return Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        raise TracekitError(f"cannot connect to the Dask scheduler at '{address}' within "
                            f"{CONNECT_TIMEOUT_S} s ({type(exc).__name__}: {exc})",
                            hint="start it first (`dask scheduler`) and check the address and port, "
                                 "or run on this machine with --workers N") from None


def _client(workers: int | None, scheduler: str | None):
    from dask.distributed import Client, LocalCluster
    if scheduler:
        return connect(scheduler), None
    cluster = LocalCluster(n_workers=check_workers(workers), threads_per_worker=1,
                           processes=True, dashboard_address=":0")
    return Client(cluster), cluster


def analyze_distributed(trace_path, targets, *, workers: int | None = None, scheduler: str | None = None,
                        shard: str = "launch", client=None, progress=None) -> list:
    """Analyse every launch of the trace at ``trace_path`` on every target, on Dask workers.

    Give ``workers=N`` (a local cluster of N single-threaded processes, closed at
    the end), ``scheduler="tcp://host:port"`` (an existing cluster) or a ready
    ``client``.  Returns one :class:`analyzers.AnalysisResult` per target, equal
    to :func:`analyzers.analyze`'s (exactly so for ``shard="launch"``).
    ``progress`` (a :class:`tracekit.progress.Progress`) advances by each
    finished task's accesses.
    """
    from analyzers.analyze import resolve_target

    if shard not in SHARDS:
        raise TracekitError(f"unknown shard '{shard}' (expected one of: {', '.join(SHARDS)})")
    if client is None and workers is None and not scheduler:
        raise TracekitError("give workers=N (a local Dask cluster) or scheduler=ADDRESS")
    if client is None and scheduler:
        check_scheduler_address(scheduler)
    elif client is None:
        check_workers(workers)
    path = str(trace_path)
    trace = open_trace(path)
    targets = [resolve_target(t) for t in targets]
    own, cluster = (None, None) if client is not None else _client(workers, scheduler)
    client = client or own
    try:
        if shard == "launch":
            return _by_launch(client, path, trace, targets, progress)
        return _by_unit(client, path, trace, targets, progress)
    finally:
        if own is not None:
            own.close()
        if cluster is not None:
            cluster.close()


def run_tasks(keys: list, submit, done, describe) -> dict:
    """Run one task per key (``submit(key)`` returns its future) and return the results by key.

    A task whose worker died (the scheduler gives up on it with ``KilledWorker``) or whose
    future was cancelled under it (its worker, or the data it needed, was lost) is submitted
    again, up to :data:`TASK_RETRIES` times; then the analysis stops with a TracekitError
    naming the task (``describe(key)``).  ``done(key, result)`` is called as each one ends.
    """
    from dask.distributed import as_completed

    futures = {submit(key): key for key in keys}
    lost: dict = {}
    results = {}
    pending = as_completed(list(futures))
    for fut in pending:
        key = futures.pop(fut)
        try:
            result = fut.result()
        except _lost_errors() as exc:
            lost[key] = lost.get(key, 0) + 1
            if lost[key] > TASK_RETRIES:
                for other in futures:
                    other.cancel()
                raise TracekitError(
                    f"{describe(key)}: the Dask worker running it was lost {lost[key]} times "
                    f"({type(exc).__name__}: {exc}); the analysis stopped",
                    hint="a worker that runs out of memory is killed: give the workers more memory, "
                         "or cut the trace (tracekit partition) and check the worker logs") from None
            again = submit(key)
            futures[again] = key
            pending.add(again)
            continue
        results[key] = result
        if done is not None:
            done(key, result)
    return results


def _lost_errors() -> tuple[type[BaseException], ...]:
    """The exceptions a future raises when its task, not its code, failed: the worker died,
    the task or its data was cancelled, the connection to the worker closed."""
    from asyncio import CancelledError as AsyncCancelled
    from concurrent.futures import CancelledError

    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker
    return (KilledWorker, CancelledError, AsyncCancelled, CommClosedError)


def _launch_sizes(trace: Trace) -> dict[int, int]:
    counts: dict[int, int] = {}
    for b in trace.iter_batches("accesses", columns=["launch"]):
        vc = pc.value_counts(b.column(0))
        for v, n in zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist(), strict=True):
            counts[int(v)] = counts.get(int(v), 0) + int(n)
    return counts


def _all_launches(trace: Trace, sizes: dict[int, int]) -> list[int]:
    known = set(trace.launches["launch"].to_pylist()) | set(sizes)
    if trace.instructions.num_rows:
        known |= set(pc.unique(trace.instructions["launch"]).to_pylist())
    return sorted(int(x) for x in known)


def _by_launch(client, path, trace, targets, progress):
    from analyzers.analyze import AnalysisResult

    sizes = _launch_sizes(trace)
    launches = _all_launches(trace, sizes)
    scattered: dict[int, object] = {}

    def submit(key):
        ti, launch = key
        if ti not in scattered or scattered[ti].status != "finished":  # again, if its workers died
            scattered[ti] = client.scatter(targets[ti], broadcast=True)
        return client.submit(analyze_launch_task, path, scattered[ti], launch, pure=False,
                             retries=TASK_RETRIES)

    def done(key, _result):
        if progress is not None:
            progress.advance(sizes.get(key[1], 0))

    keys = [(ti, launch) for ti in range(len(targets)) for launch in launches]
    parts = run_tasks(keys, submit, done, lambda key: f"launch {key[1]} on {targets[key[0]].name}")
    out = []
    for ti, target in enumerate(targets):
        results = [parts[(ti, launch)] for launch in launches]
        out.append(AnalysisResult(path, target, [r for res in results for r in res.launches],
                                  [w for res in results for w in res.warnings]))
    return out


def _by_unit(client, path, trace, targets, progress):
    from analyzers.analyze import AnalysisResult, analyze_launch
    from analyzers.geometry import launch_geometries
    from analyzers.machine_code import kernels_for_target, launch_target
    from analyzers.replay import launch_memory, merge_replays, pack_factor

    geos, warnings = launch_geometries(trace)
    sizes = {g.launch: g.work_group_size for g in geos}
    groups = run_tasks([g.launch for g in geos],
                       lambda launch: client.submit(_launch_groups_task, path, launch, pure=False,
                                                    retries=TASK_RETRIES),
                       None, lambda launch: f"the work-groups of launch {launch}")
    tasks = {}
    # the machine code of each launch per target (Intel targets replay at the compiler's SIMD width)
    code = [{g.launch: kernels_for_target(trace, t).get((g.kernel, g.build_options or "")) for g in geos}
            for t in targets]
    for ti, base in enumerate(targets):
        units = max(1, base.compute_units)
        for g in geos:
            target = launch_target(base, code[ti][g.launch])
            pack = pack_factor(target.simd, sizes[g.launch]) if sizes[g.launch] else 1
            for u, shard in enumerate(unit_shards(groups[g.launch], units, pack)):
                if len(shard):
                    tasks[(ti, g.launch, u)] = (target, shard, sizes[g.launch])

    def submit(key):
        target, shard, size = tasks[key]
        return client.submit(replay_unit_task, path, target, key[1], shard, size, pure=False,
                             retries=TASK_RETRIES)

    def done(_key, rep):
        if progress is not None:
            progress.advance(rep.accesses)

    replays = run_tasks(list(tasks), submit, done,
                        lambda key: f"compute unit {key[2]} of launch {key[1]} on {targets[key[0]].name}")
    parts: dict[tuple[int, int], list] = {}
    for (ti, launch, _), rep in sorted(replays.items(), key=lambda kv: kv[0]):
        parts.setdefault((ti, launch), []).append(rep)
    site_table = trace.sites.to_pandas() if trace.sites.num_rows else None
    out = []
    for ti, target in enumerate(targets):
        launches = []
        for g in geos:
            replayed = launch_target(target, code[ti][g.launch])
            merged = merge_replays(parts.get((ti, g.launch), []), replayed)
            mem = launch_memory(merged, replayed, g.sample_scale, g.launch) if merged is not None else None
            rows = trace.iter_batches("instructions", launches=[g.launch], runs=True)
            launches.append(analyze_launch(g, target, rows, mem, site_table, code[ti][g.launch]))
        out.append(AnalysisResult(path, target, launches, list(warnings)))
    return out
