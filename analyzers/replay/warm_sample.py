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
   (:meth:`analyzers.replay.cache.CacheHierarchy.settle_shared`).  Only the second run is
   counted: each group meets its compute unit's caches cold, as in the plain replay,
   and the shared levels as they are mid-launch, holding the data other groups of
   the same kind touched.  A sample of at least :data:`WARM_UNITS_MIN_GROUPS` groups
   keeps its per-unit levels too and counts each group on the unit another group
   warmed, as :func:`replay_warm_units` does (data every group reads, such as SpMV's
   vector, waits in a unit's first level on the device).  Constant caches keep their
   lines in both cases.

2. **Compulsory traffic.**  The second run repeats the sample's own first touches; in
   the whole grid each unit the grid touches is missed once at every shared level.  So
   each shared level, nearest first, is corrected with the footprint: with ``C`` the
   distinct units (sectors or lines) the whole grid reads, ``A`` the level's load
   lookups and ``m`` the second run's miss rate of repeated touches, load misses are
   ``C + (A - C) m`` and lookups at least ``C``.  Where the data fit, ``m = 0`` and only
   the footprint misses; where the launch streams, ``A = C`` and every lookup misses.
   The second run's first touches of its own units that did not survive from the first
   run (the first run's misses less the second's) are left out of ``m`` in the share
   that is the grid's own first touch (``C`` over the sample's units times the scale):
   a transposed write whose lines conflict out between the runs is not charged twice,
   while the other half of a line two groups write still misses.  ``A`` is the second
   run's lookups, scaled, at the first shared level, and below it the corrected misses
   of the level above, its store misses among them where it fetches a line on a store
   (those lines arrive below as loads, the written-only ones compulsory there too).
   Stores likewise, with the units the grid writes and never reads as their compulsory
   misses.  DRAM reads are the last level's corrected misses (store fills included
   where it allocates); DRAM writes are the units the grid writes, or the second run's
   evictions of dirty data before the end-of-launch flush, scaled, where those are more
   (a line evicted half-written is written back twice): at steady state each line's
   first write-back is among those evictions, so the two are not added.  A last level
   that fetches blocks of ``fetch_bytes`` from DRAM misses between once per block and
   once per sector the grid reads (:func:`_fetching`) and reads each block once.

3. **Latency.**  A recording that keeps the first groups has a first run that is the
   whole launch's opening exactly, and where a round runs more groups than were recorded,
   the whole opening round starts cold, whichever were recorded (:func:`cold_weight`).  The step tally
   (:mod:`analyzers.replay.inflight`) is the first run's for the opening, fill waits included,
   and the counted run's for the rest, where its steps stop at a shared level that its
   own first run filled; the misses the footprint adds beyond the opening's move their
   share of those steps one level down (:func:`whole_launch_steps`, :func:`deepen_steps`).

Counts are returned as the recorded groups' share (the whole-launch estimate divided
by G / N), so that the caller scales them like any other sampled count.  Assumptions:
the recorded groups are typical of the grid; a unit the grid writes before it reads
still counts as a compulsory read; below :data:`WARM_UNITS_MIN_GROUPS` recorded groups,
per-unit data caches do not carry data from one group to the next on the same unit.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import cache

import numpy as np

from analyzers.replay.cache import CacheHierarchy, LevelStats
from analyzers.replay.memory import (
    OP_CODES,
    SPACE_CODES,
    LaunchReplay,
    MemoryReplay,
    assemble,
    batch_arrays,
    launch_chunks,
    launch_row,
    replay_columns,
    sum_levels,
)
from analyzers.replay.texture_replay import TextureReplay
from analyzers.replay.waves import pack_factor
from tracekit.trace.footprint import LaunchFootprint

METHODS = ("whole", "scaled", "warm_sample")
#: Rows of a sample whose passes share one read of its chunks and one forming of their requests
#: (about 100 bytes a row are kept between passes).
KEPT_ROWS = 4 << 20


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
                rotate: bool = False, counted_levels=None, warm_passes: int = 1, cold: dict | None = None):
    """Run the recorded groups once, ``settle(hierarchy)``, then count a second run.

    ``rotate``: the counted run moves group g to the unit of group g + n/2 (n the units the
    sample used).  ``warm_passes`` > 1 (with ``rotate``) runs the sample that many times before
    counting, pass k with group g on the unit of group g + k n / (2 passes), so that each unit
    has run as many different groups, as a unit that runs one group after another has by the
    middle of the launch (:func:`unit_warm_passes`).  ``counted_levels(levels, dram, evicted,
    cold)`` may correct the counted run's level counts and DRAM bytes before they are
    assembled (it returns them and an extra value passed back).  ``cold``, a dict, receives
    the cold run's level counts (``levels``), fill counts (``fills``) and the groups one
    round of the replay runs side by side (``round_groups``).  Returns the one-launch
    :class:`MemoryReplay` and that extra value.
    """
    hierarchy = CacheHierarchy.from_target(target)
    kernels: dict[str, int] = {}
    columns = replay_columns(trace, target)
    block = max(1, target.compute_units) * (pack_factor(target.simd, group_size) if group_size else 1)
    textured = target.texture is not None

    def read():
        batches = (batch_arrays(b, kernels)
                   for b in trace.iter_batches(columns=columns, batch_size=chunk_rows, launches=[launch]))
        return launch_chunks(batches, lambda _launch: block, chunk_rows)

    # a sample of at most KEPT_ROWS rows is read once and its requests formed once: each pass
    # takes the chunks and what LaunchReplay.add kept of them (its ``formed``) from the first
    kept: list[tuple[dict, dict]] | None = []
    complete = False

    def chunks():
        nonlocal kept, complete
        if complete:
            yield from kept
            return
        rows = 0
        for cols, _ in read():
            rows += len(cols["site"])
            if kept is not None and rows > KEPT_ROWS:
                kept = None   # too large to keep: every pass reads and forms its chunks again
            if kept is None:
                yield cols, None
            else:
                kept.append((cols, {}))
                yield kept[-1]
        complete = kept is not None

    layouts = TextureReplay.for_launch(trace, target, launch) if textured else None

    def texture():   # each pass meets the texture caches empty, with the launch's layouts read once
        return layouts.fresh() if layouts is not None else None

    first = LaunchReplay(target, hierarchy, group_size or None, texture(), patterns=False, counting=False)
    touched = _SampleUnits(target.caches) if cold is not None else None
    for cols, formed in chunks():
        first.add(cols, formed)
        if touched is not None:
            touched.add(cols)
    # what the cold run's last level missed and fetched: how many units one fetch serves
    cold_fetch = (int(hierarchy.stats()[-1].load_misses), int(hierarchy.dram_bytes_read))
    if cold is not None:
        cold.update(levels=hierarchy.stats(), round_groups=block, units=touched.distinct(),
                    fills=first.fills.counts() if first.fills is not None else None)
    span = max(1, min(int(first.groups_done), int(target.compute_units)))  # units the sample used
    passes = max(1, min(int(warm_passes), span // 2)) if rotate else 1
    for k in range(1, passes):
        warm = LaunchReplay(target, hierarchy, group_size or None, texture(), reset=False, patterns=False,
                            counting=False)
        warm.cu_span, warm.cu_shift = span, k * span // (2 * passes)
        for cols, formed in chunks():
            warm.add(cols, formed)
    settle(hierarchy)
    counted = LaunchReplay(target, hierarchy, group_size or None, texture(), reset=False)
    if counted.constant is not None and first.constant is not None:
        counted.constant.carry(first.constant)  # constants stay in each unit's constant cache
    if rotate:
        counted.cu_span, counted.cu_shift = span, span // 2
    for cols, formed in chunks():
        counted.add(cols, formed)
    evicted_dirty = hierarchy.dram_bytes_written  # write-backs of the counted run, before the flush
    kernel = next(iter(kernels), "")
    sites, levels, dram, degrees, texture_levels, pats = counted.finish(kernel, launch)
    extra = None
    if counted_levels is not None:
        levels, dram, extra = counted_levels(levels, dram, evicted_dirty, cold_fetch)
    row = launch_row(kernel, launch, counted.accesses, sites, levels, dram, counted.first_level_cycles,
                      counted.atomic_cycles())
    rep = assemble(target, counted.accesses, [sites], [degrees], [row], [levels])
    rep.texture_caches = sum_levels([texture_levels])
    rep.constant_caches = sum_levels([counted.constant.level_stats()] if counted.constant else [])
    if pats is not None:
        rep.patterns = {launch: pats}
    if counted.fills is not None:  # lines per request and where the counted run found each request's data
        rep.fills = {launch: counted.fills.counts()}
    return rep, extra


class _SampleUnits:
    """The distinct units (sectors or lines) the recorded groups read and write, at each
    shared level's unit: how many of the counted run's misses can be its own first touches.
    Buffer and constant accesses (an image read reaches the shared levels at its tiled address)."""

    def __init__(self, caches):
        self.shifts = sorted({_unit(c).bit_length() - 1 for c in caches if c.scope == "shared"})
        self._parts: dict[tuple[int, int], list[np.ndarray]] = {}

    def add(self, cols: dict) -> None:
        space, op = cols["space"], cols["op"]
        mem = (space == SPACE_CODES["global"]) | (space == SPACE_CODES["constant"])
        addr = cols["address"] & np.int64(0x7FFFFFFFFFFFFFFF)
        last = addr + np.maximum(cols["size"].astype(np.int64), 1) - 1
        for code, kind in ((OP_CODES["load"], 0), (OP_CODES["store"], 1), (OP_CODES["atomic"], 2)):
            on = mem & (op == code)
            if not on.any():
                continue
            a, b = addr[on], last[on]
            for sh in self.shifts:
                units = np.unique(np.concatenate([a >> sh, b >> sh]))
                for k in ((0, 1) if kind == 2 else (kind,)):
                    self._parts.setdefault((sh, k), []).append(units)

    def distinct(self) -> dict[int, tuple[int, int]]:
        """Unit bytes -> (units read, units written)."""
        out = {}
        for sh in self.shifts:
            n = [len(np.unique(np.concatenate(self._parts[(sh, k)]))) if (sh, k) in self._parts else 0
                 for k in (0, 1)]
            out[1 << sh] = (n[0], n[1])
        return out


def replay_warm(trace, target, launch: int, group_size: int, footprint: LaunchFootprint, scale: float,
                *, groups_recorded: int = 0, total_groups: int = 0, first_groups: bool = True,
                chunk_rows: int = 1 << 20) -> tuple[MemoryReplay, MemoryEstimate]:
    """Replay one sampled launch as the module docstring says; counts are the recorded share.
    ``first_groups``: the recording kept the grid's first groups (not groups drawn across it)."""
    seen = {}
    cold: dict = {}

    def corrected(levels, dram, evicted, cold_fetch):
        out = steady_state(levels, dram, evicted, footprint, target.caches, scale, cold_fetch,
                           cold_levels=cold.get("levels"), sample_units=cold.get("units"))
        seen["before"], seen["after"] = levels, out[0]
        return out

    # groups enough to warm each other's units: those stay warm too, as in replay_warm_units
    units_warm = warm_units_apply(target, scale, groups_recorded, total_groups or None)
    settle = CacheHierarchy.settle_all if units_warm else CacheHierarchy.settle_shared
    rep, compulsory_bytes = _two_passes(trace, target, launch, group_size, settle, chunk_rows,
                                        rotate=units_warm, counted_levels=corrected,
                                        warm_passes=unit_warm_passes(target, total_groups or None),
                                        cold=cold)
    if rep.fills and launch in rep.fills:
        n_tex = len(target.texture.caches) if target.texture is not None else 0
        w_cold = cold_weight(scale, groups_recorded, total_groups, cold["round_groups"], first_groups)
        rep.fills[launch] = whole_launch_steps(rep.fills[launch], cold.get("fills"), seen["before"],
                                               seen["after"], cold.get("levels"), target.caches, n_tex,
                                               scale, w_cold)
    estimate = MemoryEstimate("warm_sample", int(groups_recorded), int(total_groups), float(scale),
                              *compulsory_bytes)
    return rep, estimate


def cold_weight(scale: float, groups_recorded: int, total_groups: int, round_groups: int,
                first_groups: bool = True) -> float:
    """How many recorded samples' worth of the launch meet the caches cold, as the sample's first run.

    A recording that keeps the first groups (``first_groups``) has a cold run that is the
    whole launch's opening groups exactly; where one round of the launch runs more groups side
    by side than were recorded (a grid of fewer groups than the H200 has SMs), every group of
    that round starts cold and waits on the same fills, whichever groups were recorded.  A
    sample drawn across the grid over several rounds has no opening of its own: 0.  At most
    ``scale``.
    """
    n = max(1, int(groups_recorded))
    total = int(total_groups) if total_groups else int(round(n * scale))
    if total <= int(round_groups):
        return float(scale)
    if not first_groups:
        return 0.0
    return float(min(max(n, min(int(round_groups), total)) / n, scale))


def whole_launch_steps(counted: dict, cold: dict | None, before: list[LevelStats], after: list[LevelStats],
                       cold_levels: list[LevelStats] | None, caches, n_tex: int, scale: float,
                       w_cold: float) -> dict:
    """The step tally of the whole launch (recorded share): its opening groups as the cold run
    found them, fill waits included, and the rest as the counted run at steady state with the
    compulsory misses the opening did not take moved down (:func:`deepen_steps`).

    The counted run meets the shared levels holding its own first run's lines; alone it
    would make a grid whose shared data is first read in its opening round (a tiled GEMM's
    matrices, a one-round launch) as fast as its warm middle.
    """
    w_count = scale - w_cold
    if cold is None or cold_levels is None:
        return deepen_steps(counted, before, after, caches, n_tex)
    if w_count <= 0:
        rest = {}
    else:
        # misses per sample's share that the steady-state groups still take
        share = [replace(a, load_misses=max(round((a.load_misses * scale - w_cold * c.load_misses) / w_count),
                                            b.load_misses))
                 for a, b, c in zip(after, before, cold_levels, strict=True)]
        rest = deepen_steps(counted, before, share, caches, n_tex)
    out = dict(counted)
    for key in ("depth_requests", "depth_lines"):
        if key not in counted or key not in cold:
            continue
        # the opening's steps with their fill waits (a line another group asked for is on its way)
        opening = [float(x) for x in cold.get(key + "_waits", cold[key])]
        steady = [float(x) for x in rest.get(key, counted[key])] if rest else [0.0] * len(opening)
        merged = [round((w_cold * o + w_count * r) / scale) for o, r in zip(opening, steady, strict=True)]
        out[key] = out[key + "_waits"] = merged
    return out


def deepen_steps(counts: dict, before: list[LevelStats], after: list[LevelStats], caches, n_tex: int) -> dict:
    """The step tally (:mod:`analyzers.replay.inflight`) with the misses the footprint added.

    The counted run meets the shared levels holding its own first run's lines, so its steps
    stop there where, in the whole launch, the compulsory misses go on below.  At each shared
    level, the share (corrected misses - counted misses) / counted hits of the steps that
    stopped there, with their lines, moves one level down.  A lookup there misses with
    probability p = (corrected misses - counted misses) / counted hits, and a step of l lines
    waits for the slowest: it goes down with probability 1 - (1 - p)^l.
    """
    out = dict(counts)
    for suffix in ("", "_waits"):
        req_key, line_key = "depth_requests" + suffix, "depth_lines" + suffix
        if req_key not in counts or line_key not in counts:
            continue
        req = [float(x) for x in counts[req_key]]
        lines = [float(x) for x in counts[line_key]]
        for k, spec in enumerate(caches):
            if spec.scope != "shared":
                continue
            hits = float(before[k].load_hits)
            extra = float(after[k].load_misses) - float(before[k].load_misses)
            i = n_tex + k
            if hits <= 0 or extra <= 0 or req[i] <= 0:
                continue
            p = min(extra / hits, 1.0)
            share = 1.0 - (1.0 - p) ** max(lines[i] / req[i], 1.0)
            for row in (req, lines):
                moved = row[i] * share
                row[i] -= moved
                row[i + 1] += moved
        out[req_key] = [round(x) for x in req]
        out[line_key] = [round(x) for x in lines]
    return out


def replay_warm_units(trace, target, launch: int, group_size: int, chunk_rows: int = 1 << 20, *,
                      total_groups: int | None = None) -> MemoryReplay:
    """Replay a sample without a footprint with each compute unit's caches warm; counts are the
    recorded share.

    On the device a compute unit runs work-group after work-group (SpMV's 4096 groups, 31
    per SM), so what they all read stays in its first-level cache: the H200 serves 73 % of
    the vector-kernel's L1 lookups.  A sample of 32 groups spread one per unit meets every
    unit cold (17 %).  The recorded groups are replayed once to fill the per-unit levels,
    which keep their lines (:meth:`~analyzers.replay.cache.CacheHierarchy.settle_units`), then
    counted with each group moved to the unit of the group half the sample away: it finds
    another group's data, not its own, and groups that far apart share no neighbours' rows.
    The shared levels start cold in the counted pass, as in the plain sampled replay.
    """
    rep, _ = _two_passes(trace, target, launch, group_size, CacheHierarchy.settle_units, chunk_rows,
                         rotate=True, warm_passes=unit_warm_passes(target, total_groups))
    return rep


#: Most passes of a sample that warm the per-unit caches before the counted one: each costs
#: one replay of the sample, and by the fourth different group a unit's first-level cache
#: holds most of what all groups read (SpMV-vector's 64 KiB vector: L1 hits 35 % after
#: one pass, the device 73 %).
WARM_UNIT_PASSES = 4


def unit_warm_passes(target, total_groups: int | None) -> int:
    """How many different groups each unit runs before the counted pass: the groups one unit
    runs in the whole launch less the counted one, at most :data:`WARM_UNIT_PASSES`."""
    if not total_groups:
        return 1
    per_unit = -(-int(total_groups) // max(1, int(target.compute_units)))
    return max(1, min(WARM_UNIT_PASSES, per_unit - 1))


#: Fewest recorded groups whose compute units warm each other: with fewer, the group half the
#: sample away is a neighbour sharing its data (SGEMM's two recorded tiles read the same rows).
WARM_UNITS_MIN_GROUPS = 4


def warm_units_apply(target, scale: float, groups_recorded: int, total_groups: int | None = None) -> bool:
    """Whether a sample's per-unit caches are warmed (:func:`replay_warm_units`, and
    :func:`replay_warm` with a footprint): sampled, with a per-unit cache level, groups
    enough that half the sample away is another, unrelated group, and (where the grid's
    size is known) more groups than compute units, so that a unit runs one after another."""
    if total_groups is not None and total_groups <= max(1, int(target.compute_units)):
        return False
    return bool(scale > 1 and groups_recorded >= WARM_UNITS_MIN_GROUPS
                and any(c.scope == "compute_unit" for c in target.caches))


def _unit(level) -> int:
    return int(level.sector_bytes or level.line_bytes)


def _corrected(hits: int, misses: int, scale: float, compulsory: float, lookups: float | None = None,
               own: int = 0, cold_misses: int | None = None):
    """(lookups, misses) of the whole launch: ``compulsory + (lookups - compulsory) x miss rate``.

    ``lookups`` overrides the scaled count (the corrected misses of the level above).  The
    rate leaves out the counted run's misses that are the grid's compulsory ones again: of the
    sample's ``own`` distinct units, those that did not survive from the cold run
    (``cold_misses``, the cold run's misses: what the counted run saved is what survived) miss
    on first touch, and the share ``compulsory / (own x scale)`` of those first touches is the
    grid's first touch of a unit (1 where no two groups share a unit).  A transposed write whose
    lines conflict out between the runs is then not charged twice; where two groups write
    halves of one line, the other half's miss stays.
    """
    seen = hits + misses
    first = seen_first = 0.0
    if own and cold_misses is not None:
        survived = max(int(cold_misses) - int(misses), 0)
        share = min(float(compulsory) / (own * scale), 1.0) if scale > 0 else 0.0
        first = min(max(own - survived, 0), own, misses) * share
        seen_first = own * share
    rest = seen - seen_first
    rate = (misses - first) / rest if rest > 0 else 0.0
    total = seen * scale if lookups is None else max(lookups, seen * scale)
    missed = compulsory + max(total - compulsory, 0.0) * rate
    return max(total, float(compulsory)), missed


def _fetching(spec, footprint: LaunchFootprint, reads: int, cold_fetch,
              blocks: int | None = None) -> tuple[float, float]:
    """Compulsory load misses and the bytes one miss brings, for a last level that fetches a
    block of ``fetch_bytes`` around a missing sector.

    Each block the grid reads is fetched once; a lookup of the block's other sector right
    after (the same request) misses as well, one served later hits.  The cold run's misses
    per fetch (units fetched per block over units fetched per miss) says which the kernel
    does, so the compulsory misses lie between the distinct blocks and the distinct sectors.
    ``blocks``: the grid's distinct blocks read, when the caller has them.
    """
    unit = _unit(spec)
    if blocks is None:
        blocks = footprint.distinct_units(int(spec.fetch_bytes))[0]
    per_block = int(spec.fetch_bytes) // unit
    misses, fetched = cold_fetch if cold_fetch else (0, 0)
    bytes_per_miss = fetched / misses if misses and fetched else float(unit)
    compulsory = blocks * per_block * unit / bytes_per_miss if bytes_per_miss > 0 else float(reads)
    return min(max(compulsory, float(blocks)), float(reads)), bytes_per_miss


def steady_state(levels: list[LevelStats], dram: tuple[int, int], evicted_dirty: int,
                 footprint: LaunchFootprint, caches, scale: float, cold_fetch=None, *,
                 cold_levels: list[LevelStats] | None = None, sample_units: dict | None = None):
    """The shared levels' counts and the DRAM bytes with the grid's compulsory traffic.

    ``levels`` and ``dram`` are the counted run's (recorded share), ``evicted_dirty`` its
    DRAM writes before the flush, ``cold_fetch`` the cold run's last-level load misses and
    DRAM bytes read (for a last level with ``fetch_bytes``).  Returns the corrected levels and
    DRAM bytes (again the recorded share) and the compulsory bytes read and written at the
    last level's unit.  ``cold_levels`` (the cold run's counts) and ``sample_units`` (unit
    bytes -> the sample's distinct units read and written) tell the counted run's first
    touches from its repeats (:func:`_corrected`).  See the module docstring for the formulas.
    """
    out = list(levels)
    distinct = cache(footprint.distinct_units)  # bitmaps are walked once per unit size
    above = None  # corrected load misses of the shared level above, in bytes
    fills_from_above = False  # the level above fetches a line on a store miss (its fills are loads here)
    fetch_read = None  # DRAM bytes the last level's load misses fetch, where it fetches blocks
    per_miss = 0.0  # bytes a load miss of the last shared level brings
    for k, (spec, st) in enumerate(zip(caches, levels, strict=True)):
        if spec.scope != "shared":
            continue
        unit = _unit(spec)
        reads, writes, written_only = distinct(unit)
        compulsory, per_miss = float(reads), float(unit)
        fetch = int(getattr(spec, "fetch_bytes", 0) or 0)
        fetching = k == len(caches) - 1 and fetch > unit
        if fetching:
            blocks = distinct(fetch)[0]
            compulsory, per_miss = _fetching(spec, footprint, reads, cold_fetch, blocks)
        own_read, own_written = (sample_units or {}).get(unit, (0, 0))
        store_compulsory = written_only
        if fills_from_above:  # lines the grid only writes arrive here first as loads, then written back
            compulsory += written_only
            own_read, own_written, store_compulsory = own_read + own_written, 0, 0
        cold_st = cold_levels[k] if cold_levels is not None else None
        loads, load_misses = _corrected(st.load_hits, st.load_misses, scale, compulsory,
                                        None if above is None else above / unit, own_read,
                                        None if cold_st is None else cold_st.load_misses)
        stores, store_misses = _corrected(st.store_hits, st.store_misses, scale, store_compulsory, None,
                                          own_written, None if cold_st is None else cold_st.store_misses)
        if fetching:  # blocks once each, then the repeated misses at the cold run's bytes per miss
            fetch_read = blocks * float(fetch) + max(load_misses - compulsory, 0.0) * per_miss
        # a store that misses a write-allocating level fetches its line from the level below
        above = (load_misses + (store_misses if spec.write_allocate else 0.0)) * unit
        fills_from_above = bool(spec.write_allocate)
        out[k] = replace(st, load_hits=round((loads - load_misses) / scale),
                         load_misses=round(load_misses / scale),
                         store_hits=round((stores - store_misses) / scale),
                         store_misses=round(store_misses / scale))
    last, st = caches[-1], levels[-1]
    unit = _unit(last)
    reads, writes, written_only = distinct(unit)
    load_fetch = st.load_misses * (per_miss if fetch_read is not None else unit)
    # Store fills and write-backs: at steady state the counted run's fills and dirty evictions
    # already include each line's first (a group's lines leave before the group after it runs
    # again), so the footprint is a floor, not an addition: a line the grid writes once is
    # fetched and written back once, a line evicted half-written and written again twice.
    fills = max(dram[0] - load_fetch, 0) * scale  # the counted run's store fills
    if last.write_allocate:
        fills = max(fills, float(written_only * unit))
    if fetch_read is not None:
        read = fetch_read + fills
    elif above is None:
        read = st.load_misses * unit * scale + fills
    else:  # the last level's corrected misses, its store fills among them where it allocates
        read = above + (0.0 if last.write_allocate else fills)
    written = max(float(writes * unit), evicted_dirty * scale)
    return out, (round(read / scale), round(written / scale)), (reads * unit, writes * unit)
