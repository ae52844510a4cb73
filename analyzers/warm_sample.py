"""A sampled launch's memory traffic: shared caches at steady state, compulsory traffic exact.

A recording that keeps the first N of G work-groups has N groups' accesses, and the
plain estimate replays them from cold caches and multiplies every count by G / N.
That charges each recorded group's first touch of shared data as a miss G / N times
over: a GEMM whose 12 MiB fit the L2 comes out at 44 times its DRAM traffic.  When
the recorder also noted what the whole grid touched (:mod:`tracekit.trace.footprint`),
the launch is estimated instead as follows (``method = "warm_sample"``):

1. **Steady state.**  The recorded groups are replayed twice on the same hierarchy.
   Between the runs the per-unit levels are emptied (their dirty data written below)
   and every counter is zeroed, while the shared levels keep what the first run left
   (:meth:`analyzers.cache.CacheHierarchy.settle_shared`).  Only the second run is
   counted: each group meets its compute unit's caches cold, as in the plain replay,
   and the shared levels as they are mid-launch, holding the data other groups of
   the same kind touched.

2. **Compulsory traffic.**  The second run repeats the sample's own first touches,
   which then hit; in the whole grid each unit the grid touches is missed once at
   every shared level.  So each shared level, nearest first, is corrected with the
   footprint: with ``C`` the distinct units (sectors or lines) the whole grid reads,
   ``A`` the level's load lookups and ``m`` the second run's load miss rate (the
   steady-state rate of repeated touches), load misses are ``C + (A - C) m`` and
   lookups at least ``C``.  Where the data fit, ``m = 0`` and only the footprint
   misses; where the launch streams, ``A = C`` and every lookup misses.  ``A`` is the
   second run's lookups, scaled, at the first shared level, and the corrected misses
   of the level above below it.  Stores likewise, with the units the grid writes and
   never reads as their compulsory misses.  DRAM reads are the last level's load
   misses, plus, where it allocates on a store, the units written and never read
   (filled once) and the second run's store fills, scaled; DRAM writes are the units
   the grid writes (each written back once) plus the second run's evictions of dirty
   data before the end-of-launch flush, scaled.

Counts are returned as the recorded groups' share (the whole-launch estimate divided
by G / N), so that the caller scales them like any other sampled count.  Assumptions:
the recorded groups are typical of the grid; a unit the grid writes before it reads
still counts as a compulsory read; per-unit caches do not carry data from one group
to the next on the same compute unit (as in the plain replay).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from analyzers.cache import CacheHierarchy, LevelStats
from analyzers.memory import (
    MemoryReplay,
    _assemble,
    _batch_arrays,
    _chunks,
    _launch_row,
    _LaunchReplay,
    _texture_levels,
    replay_columns,
)
from analyzers.texture_replay import TextureReplay
from analyzers.waves import pack_factor
from tracekit.trace.footprint import LaunchFootprint

METHODS = ("whole", "scaled", "warm_sample")


@dataclass(frozen=True)
class MemoryEstimate:
    """How a launch's memory counts were obtained (``memory.estimate`` in the JSON result).

    ``whole``: every work-group was recorded and replayed.  ``scaled``: a sample was
    replayed from cold shared caches (per-unit caches warmed, :func:`replay_warm_units`)
    and its counts multiplied by ``scale`` (no footprint in the trace).  ``warm_sample``:
    the sample was replayed with the shared caches at steady state and the grid's
    compulsory traffic taken from its footprint (this module's docstring).
    """

    method: str
    groups_recorded: int
    total_groups: int
    scale: float
    #: The whole grid's distinct bytes read and written at the last cache level's unit
    #: (``warm_sample`` only; 0 otherwise).
    compulsory_bytes_read: int = 0
    compulsory_bytes_written: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def plain_estimate(groups_recorded: int, total_groups: int, scale: float) -> MemoryEstimate:
    """``whole`` when every group was recorded, else ``scaled``."""
    return MemoryEstimate("scaled" if scale > 1 else "whole", int(groups_recorded), int(total_groups),
                          float(scale))


def applies(target, footprint: LaunchFootprint | None, scale: float) -> bool:
    """Whether :func:`replay_warm` can estimate the launch: sampled, with a footprint, and a
    shared last level (a per-unit last level has no state that other groups share)."""
    return bool(scale > 1 and footprint is not None and target.caches and target.caches[-1].scope == "shared")


def _two_passes(trace, target, launch: int, group_size: int, settle, chunk_rows: int, *,
                rotate: bool = False, counted_levels=None):
    """Run the recorded groups once, ``settle(hierarchy)``, then count a second run.

    ``rotate``: the counted run moves group g to the unit of group g + n/2 (n the units the
    sample used).  ``counted_levels(levels, dram, hierarchy)`` may correct the counted run's
    level counts and DRAM bytes before they are assembled (it returns them and an extra value
    passed back).  Returns the one-launch :class:`MemoryReplay` and that extra value.
    """
    hierarchy = CacheHierarchy.from_target(target)
    kernels: dict[str, int] = {}
    columns = replay_columns(trace, target)
    block = max(1, target.compute_units) * (pack_factor(target.simd, group_size) if group_size else 1)
    textured = target.texture is not None

    def chunks():
        batches = (_batch_arrays(b, kernels)
                   for b in trace.iter_batches(columns=columns, batch_size=chunk_rows, launches=[launch]))
        return _chunks(batches, lambda _launch: block, chunk_rows)

    def texture():
        return TextureReplay.for_launch(trace, target, launch) if textured else None

    first = _LaunchReplay(target, hierarchy, group_size or None, texture(), patterns=False)
    for cols, _ in chunks():
        first.add(cols)
    settle(hierarchy)
    counted = _LaunchReplay(target, hierarchy, group_size or None, texture(), reset=False)
    if rotate:
        span = max(1, min(int(first.groups_done), int(target.compute_units)))  # units the sample used
        counted.cu_span, counted.cu_shift = span, span // 2
    for cols, _ in chunks():
        counted.add(cols)
    evicted_dirty = hierarchy.dram_bytes_written  # write-backs of the counted run, before the flush
    kernel = next(iter(kernels), "")
    sites, levels, dram, degrees, texture_levels, pats = counted.finish(kernel, launch)
    extra = None
    if counted_levels is not None:
        levels, dram, extra = counted_levels(levels, dram, evicted_dirty)
    row = _launch_row(kernel, launch, counted.accesses, sites, levels, dram, counted.first_level_cycles,
                      counted.atomic_cycles())
    rep = _assemble(target, counted.accesses, [sites], [degrees], [row], [levels])
    rep.texture_caches = _texture_levels([texture_levels])
    rep.constant_caches = _texture_levels([counted.constant.level_stats()] if counted.constant else [])
    if pats is not None:
        rep.patterns = {launch: pats}
    if counted.fills is not None:  # lines per request and where the counted run found each request's data
        rep.fills = {launch: counted.fills.counts()}
    return rep, extra


def replay_warm(trace, target, launch: int, group_size: int, footprint: LaunchFootprint, scale: float,
                *, groups_recorded: int = 0, total_groups: int = 0,
                chunk_rows: int = 1 << 20) -> tuple[MemoryReplay, MemoryEstimate]:
    """Replay one sampled launch as the module docstring says; counts are the recorded share."""
    rep, compulsory_bytes = _two_passes(
        trace, target, launch, group_size, CacheHierarchy.settle_shared, chunk_rows,
        counted_levels=lambda levels, dram, evicted: steady_state(levels, dram, evicted, footprint,
                                                                  target.caches, scale))
    estimate = MemoryEstimate("warm_sample", int(groups_recorded), int(total_groups), float(scale),
                              *compulsory_bytes)
    return rep, estimate


def replay_warm_units(trace, target, launch: int, group_size: int, chunk_rows: int = 1 << 20) -> MemoryReplay:
    """Replay a sample without a footprint with each compute unit's caches warm; counts are the
    recorded share.

    On the device a compute unit runs work-group after work-group (SpMV's 4096 groups, 31
    per SM), so what they all read stays in its first-level cache: the H200 serves 73 % of
    the vector-kernel's L1 lookups.  A sample of 32 groups spread one per unit meets every
    unit cold (17 %).  The recorded groups are replayed once to fill the per-unit levels,
    which keep their lines (:meth:`~analyzers.cache.CacheHierarchy.settle_units`), then
    counted with each group moved to the unit of the group half the sample away: it finds
    another group's data, not its own, and groups that far apart share no neighbours' rows.
    The shared levels start cold in the counted pass, as in the plain sampled replay.
    """
    rep, _ = _two_passes(trace, target, launch, group_size, CacheHierarchy.settle_units, chunk_rows,
                         rotate=True)
    return rep


def warm_units_apply(target, scale: float, groups_recorded: int) -> bool:
    """Whether :func:`replay_warm_units` serves a sample: sampled, with a per-unit cache level, and
    groups enough that half the sample away is another group."""
    return bool(scale > 1 and groups_recorded > 1 and any(c.scope == "compute_unit" for c in target.caches))


def _unit(level) -> int:
    return int(level.sector_bytes or level.line_bytes)


def _corrected(hits: int, misses: int, scale: float, compulsory: int, lookups: float | None = None):
    """(lookups, misses) of the whole launch: ``compulsory + (lookups - compulsory) x miss rate``.

    ``lookups`` overrides the scaled count (the corrected misses of the level above)."""
    seen = hits + misses
    rate = misses / seen if seen else 0.0
    total = seen * scale if lookups is None else max(lookups, seen * scale)
    missed = compulsory + max(total - compulsory, 0.0) * rate
    return max(total, float(compulsory)), missed


def steady_state(levels: list[LevelStats], dram: tuple[int, int], evicted_dirty: int,
                 footprint: LaunchFootprint, caches, scale: float):
    """The shared levels' counts and the DRAM bytes with the grid's compulsory traffic.

    ``levels`` and ``dram`` are the counted run's (recorded share), ``evicted_dirty`` its
    DRAM writes before the flush.  Returns the corrected levels and DRAM bytes (again the
    recorded share) and the compulsory bytes read and written at the last level's unit.
    See the module docstring for the formulas.
    """
    out = list(levels)
    above = None  # corrected load misses of the shared level above, in bytes
    for k, (spec, st) in enumerate(zip(caches, levels, strict=True)):
        if spec.scope != "shared":
            continue
        unit = _unit(spec)
        reads, writes, written_only = footprint.distinct_units(unit)
        loads, load_misses = _corrected(st.load_hits, st.load_misses, scale, reads,
                                        None if above is None else above / unit)
        stores, store_misses = _corrected(st.store_hits, st.store_misses, scale, written_only)
        above = load_misses * unit
        out[k] = replace(st, load_hits=round((loads - load_misses) / scale),
                         load_misses=round(load_misses / scale),
                         store_hits=round((stores - store_misses) / scale),
                         store_misses=round(store_misses / scale))
    last, st = caches[-1], levels[-1]
    unit = _unit(last)
    reads, writes, written_only = footprint.distinct_units(unit)
    fills = max(dram[0] - st.load_misses * unit, 0) * scale  # the counted run's store fills
    if last.write_allocate:
        fills += written_only * unit
    read = (above if above is not None else st.load_misses * unit * scale) + fills
    written = writes * unit + evicted_dirty * scale
    return out, (round(read / scale), round(written / scale)), (reads * unit, writes * unit)
