"""The memory replay's results, cut per launch and shaped for the time model.

:func:`analyzers.replay.memory.replay_memory` does the replay; this module only reads
its output: the JSON dicts (``memory.*``, ``local_memory.*``) of each launch,
its per-site rows, and the :class:`~analyzers.replay.traffic.MemoryTraffic` the verdict
needs (bytes each level served, load hits per level, load requests and
transactions).  Cache state does not carry over between launches, so replaying
launch by launch gives each launch its own per-level counters.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace

import pandas as pd

from analyzers.replay.cache import TextureCacheStats
from analyzers.replay.patterns import Patterns
from analyzers.replay.sites import LOAD_OPS, MEMORY_SPACES, SITE_SUMS
from analyzers.replay.texture_replay import SITE_SUMS as TEXTURE_SUMS
from analyzers.replay.texture_replay import add_rates, image_site_facts
from analyzers.replay.traffic import LevelTraffic, MemoryTraffic
from analyzers.replay.warm_sample import (
    MemoryEstimate,
    applies,
    plain_estimate,
    replay_warm,
    replay_warm_units,
    warm_units_apply,
)
from tracekit.trace.footprint import launch_footprint


@dataclass(frozen=True)
class CacheStats:
    """One cache level's counts for one launch (recorded work-groups)."""

    level: str
    scope: str
    hits: int
    misses: int
    hit_rate: float
    load_hits: int
    load_misses: int
    load_hit_rate: float

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class GlobalMemoryStats:
    """What a launch's global, constant and image accesses cost (recorded work-groups)."""

    requests: int
    transactions: int
    transactions_per_request: float
    bytes_requested: int
    bytes_moved: int
    caches: tuple[CacheStats, ...]
    dram_bytes_read: int
    dram_bytes_written: int
    #: The texture caches in front of ``caches`` (image reads), nearest first; empty without.
    texture_caches: tuple[TextureCacheStats, ...] = ()
    #: How the counts were obtained: the whole grid, a scaled sample, or a sample at steady
    #: state with the grid's compulsory traffic (:mod:`analyzers.replay.warm_sample`).
    estimate: MemoryEstimate | None = None
    #: The constant cache that served constant loads (``Target.constant_cache``); empty where
    #: constant loads go through ``caches``.
    constant_caches: tuple[TextureCacheStats, ...] = ()

    @property
    def dram_bytes(self) -> int:
        return self.dram_bytes_read + self.dram_bytes_written

    def to_dict(self) -> dict:
        nested = ("caches", "texture_caches", "estimate", "constant_caches")
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in nested}
        d["caches"] = [c.to_dict() for c in self.caches]
        d["texture_caches"] = [c.to_dict() for c in self.texture_caches]
        if self.constant_caches:
            d["constant_caches"] = [c.to_dict() for c in self.constant_caches]
        if self.estimate is not None:
            d["estimate"] = self.estimate.to_dict()
        d["dram_bytes"] = self.dram_bytes
        return d


@dataclass(frozen=True)
class LocalMemoryStats:
    """What a launch's local-memory accesses cost in the banks (recorded work-groups)."""

    requests: int
    cycles: float
    conflict_degree_mean: float
    #: Conflict degree -> local requests that had it.
    conflict_degree_histogram: dict[int, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["conflict_degree_histogram"] = {str(k): v for k, v in self.conflict_degree_histogram.items()}
        return d


@dataclass
class LaunchMemory:
    """One launch's memory results on one target (counts of the recorded work-groups)."""

    memory: GlobalMemoryStats
    local_memory: LocalMemoryStats
    per_site: pd.DataFrame
    traffic: MemoryTraffic
    load_sites: frozenset = field(default_factory=frozenset)
    #: Access-pattern facts of the launch (:mod:`analyzers.replay.patterns`); None when not gathered.
    patterns: Patterns | None = None


def _unit_bytes(level) -> int:
    return int(level.sector_bytes or level.line_bytes)


def _site_table(sites: pd.DataFrame) -> pd.DataFrame:
    """One row per site (a site is one static instruction, so one space and op)."""
    if sites.empty:
        return sites
    cols = [c for c in SITE_SUMS + TEXTURE_SUMS if c in sites.columns]
    first = sites.groupby("site", sort=True)[["space", "op"]].first()
    sums = sites.groupby("site", sort=True)[cols].sum()
    out = first.join(sums)
    req = out["requests"].where(out["requests"] > 0)
    out["transactions_per_request"] = out["transactions"] / req
    if "conflict_degree_mean" in sites.columns:
        w = (sites["conflict_degree_mean"].fillna(0) * sites["requests"]).groupby(sites["site"]).sum()
        out["conflict_degree_mean"] = (w / req).where(out["space"] == "local")
        out["conflict_degree_max"] = sites.groupby("site")["conflict_degree_max"].max()
    for c in ("row_pitch_bytes", "item_rows", "item_columns"):   # per buffer, so one value per site
        if c in sites.columns:
            out[c] = sites.groupby("site")[c].max()
    return add_rates(out).reset_index()


def launch_memory(replay, target, scale: float = 1.0, launch: int | None = None,
                  estimate: MemoryEstimate | None = None) -> LaunchMemory:
    """Shape a single-launch :class:`~analyzers.replay.memory.MemoryReplay` for the verdict.

    ``scale`` (work-groups in the launch / work-groups recorded) turns recorded
    counts into whole-launch traffic for the time model; the typed counts keep
    the recorded ones.  ``estimate`` says how the replay's counts were obtained.
    """
    totals = replay.totals()
    sites = _site_table(replay.per_site)
    levels, caches = [], []
    per_launch = getattr(replay, "per_launch", None)
    busy = _column_sum(per_launch, "first_level_cycles") * scale
    for k, (spec, stats) in enumerate(zip(target.caches, replay.caches, strict=True)):
        accesses = stats.hits + stats.misses
        loads = stats.load_hits + stats.load_misses
        priced = k == 0 and getattr(spec, "cost_unit", "bytes") == "request"
        levels.append(LevelTraffic(
            name=spec.name, scope=spec.scope, bytes=accesses * _unit_bytes(spec) * scale,
            bandwidth_bytes_per_cycle=float(spec.bandwidth_bytes_per_cycle),
            latency_cycles=float(spec.latency_cycles),
            load_accesses=float(loads) * scale, load_hits=float(stats.load_hits) * scale,
            busy_cycles=busy if priced else None,
            store_bytes=(accesses - loads) * _unit_bytes(spec) * scale,
            store_bandwidth_bytes_per_cycle=float(spec.store_bandwidth_bytes_per_cycle),
            sustained_share=float(spec.sustained_share)))
        caches.append(CacheStats(level=stats.level, scope=stats.scope, hits=stats.hits, misses=stats.misses,
                                 hit_rate=stats.hit_rate, load_hits=stats.load_hits,
                                 load_misses=stats.load_misses,
                                 load_hit_rate=stats.load_hits / loads if loads else 0.0))
    memory = GlobalMemoryStats(
        requests=totals.requests, transactions=totals.transactions,
        transactions_per_request=totals.transactions_per_request, bytes_requested=totals.bytes_requested,
        bytes_moved=totals.bytes_moved, caches=tuple(caches), dram_bytes_read=replay.dram_bytes_read,
        dram_bytes_written=replay.dram_bytes_written, estimate=estimate,
        texture_caches=tuple(getattr(replay, "texture_caches", ())),
        constant_caches=tuple(getattr(replay, "constant_caches", ())))
    degrees = getattr(replay, "conflict_degrees", None)
    hist = {}
    if degrees is not None and len(degrees):
        h = degrees.groupby("conflict_degree")["requests"].sum().sort_index()
        hist = {int(k): int(v) for k, v in h.items()}
    local = LocalMemoryStats(requests=totals.local_requests, cycles=totals.local_cycles,
                             conflict_degree_mean=totals.conflict_degree_mean, conflict_degree_histogram=hist)
    loads = sites if sites.empty else sites[sites["space"].isin(MEMORY_SPACES) & sites["op"].isin(LOAD_OPS)]
    requests = float(loads["requests"].sum()) * scale if len(loads) else 0.0
    transactions = float(loads["transactions"].sum()) * scale if len(loads) else 0.0
    lookup_s = 0.0
    if getattr(target, "cache_lookup", "request") == "lane" and levels and requests:
        levels[0], lookup_s = _lane_lookups(levels[0], target, transactions, requests)
    texture = []
    spec = target.texture
    # The first texture level filters every lane's texel, so it is busy for the bytes the lanes
    # receive even where lanes share a texel or a line (ArchProbe's Adreno 640 reads images at
    # 194.5 GB/s whether the whole wave reads one texel or 64 different ones).
    image_reads = sites[(sites["space"] == "image") & sites["op"].isin(LOAD_OPS)] if len(sites) else sites
    texel_bytes = float(image_reads["bytes_requested"].sum()) if len(image_reads) else 0.0
    for k, (lv, stats) in enumerate(zip(spec.caches if spec is not None else (), memory.texture_caches,
                                        strict=False)):
        lookups = stats.hits + stats.misses
        moved = lookups * lv.line_bytes if k else max(lookups * lv.line_bytes, texel_bytes)
        texture.append(LevelTraffic(
            name=lv.name, scope=lv.scope, bytes=moved * scale,
            bandwidth_bytes_per_cycle=float(lv.bandwidth_bytes_per_cycle) / lv.compute_units_per_instance,
            latency_cycles=float(lv.latency_cycles), load_accesses=float(lookups) * scale,
            load_hits=float(stats.hits) * scale))
    cc = getattr(target, "constant_cache", None)
    for stats in memory.constant_caches if cc is not None else ():
        # a read-only cache in front of the data levels, as texture caches are (its hits feed the latency)
        lookups = stats.hits + stats.misses
        texture.append(LevelTraffic(
            name=stats.level, scope="compute_unit", bytes=lookups * cc.line_bytes * scale,
            bandwidth_bytes_per_cycle=0.0, latency_cycles=float(cc.latency_cycles),
            load_accesses=float(lookups) * scale, load_hits=float(stats.hits) * scale))
    fills = fill_traffic(replay, target, launch, scale)
    traffic = MemoryTraffic(
        texture_levels=tuple(texture),
        levels=tuple(levels),
        dram_bytes=float(memory.dram_bytes) * scale,
        load_requests=requests, load_transactions=transactions,
        local_cycles=float(local.cycles) * scale,
        dram_bytes_written=float(memory.dram_bytes_written) * scale, lookup_s_per_request=lookup_s,
        atomic_cycles=_column_sum(per_launch, "atomic_cycles") * scale, **fills)
    patterns = getattr(replay, "patterns", {}) or {}
    pats = patterns.get(launch) if launch is not None else next(iter(patterns.values()), None)
    return LaunchMemory(memory, local, sites, traffic,
                        frozenset(int(s) for s in loads["site"]) if len(loads) else frozenset(), pats)


def _column_sum(per_launch, column: str) -> float:
    """The replay's ``per_launch`` column summed (one launch per replay here); 0 if absent."""
    if per_launch is None or column not in getattr(per_launch, "columns", ()):
        return 0.0
    return float(per_launch[column].sum())


def fill_traffic(replay, target, launch: int | None, scale: float) -> dict:
    """The replay's fill counts (:mod:`analyzers.replay.inflight`) as :class:`MemoryTraffic` fields.

    A lookup that waited on a line another wave of its compute unit had just asked
    for was a hit at the first per-unit level; one that waited on another unit's
    fill, a hit at the first shared level.  Only a launch recorded whole says which
    lines are cold: in a sample (``scale`` > 1) the recorded work-groups find cold
    what the earlier rounds of the whole launch would have brought in, so the waits
    are left out there (the lines per request are kept).
    """
    fills = getattr(replay, "fills", {}) or {}
    f = fills.get(launch) if launch is not None else next(iter(fills.values()), None)
    if not f or not target.caches:
        return {}
    out: dict = {"load_lines": float(f["load_lines"]) * scale}
    if f.get("depth_requests"):
        # where each request's data came from; fill waits count only in a launch recorded whole
        suffix = "_waits" if scale <= 1.0 else ""
        tex = target.texture.caches if target.texture is not None else ()
        names = [c.name for c in tex] + [c.name for c in target.caches] + ["DRAM"]
        for key in ("depth_requests", "depth_lines"):
            out[key] = {n: float(x) * scale for n, x in zip(names, f[key + suffix], strict=True) if x}
    if scale > 1.0:
        return out
    own = next((c.name for c in target.caches if c.scope == "compute_unit"), None)
    shared = next((c.name for c in target.caches if c.scope == "shared"), None)
    waits: dict[str, float] = {}
    for name, n in ((own or shared, f["fill_waits_same_unit"]), (shared or own, f["fill_waits_other_unit"])):
        if name is not None and n:
            waits[name] = waits.get(name, 0.0) + float(n) * scale
    out["fill_waits"] = waits
    return out


def _lane_lookups(first: LevelTraffic, target, transactions: float, requests: float):
    """The first level of a lane-by-lane lookup target, as the latency model needs it.

    Every lane's lookup took a slot of the first level (its ``bytes``, hence its
    throughput term, keep them all), but the lookups after the first of a line in the
    same request hit by construction: a request still waits for its distinct lines, so
    the hit rate that prices its latency is counted per line, and the repeated lookups
    add their service time, one first-level slot each, to the request.
    """
    repeats = max(first.load_accesses - transactions, 0.0)
    per_line = replace(first, load_accesses=first.load_accesses - repeats,
                       load_hits=max(first.load_hits - repeats, 0.0))
    spec = target.caches[0]
    rate = float(spec.bandwidth_bytes_per_cycle)
    slot_cycles = _unit_bytes(spec) / rate if rate else 0.0
    return per_line, repeats / requests * slot_cycles / (float(target.clock_mhz) * 1e6)


def memory_by_launch(trace, target, geos, targets: dict | None = None) -> dict[int, LaunchMemory]:
    """Replay every launch of ``trace`` on ``target``, one launch at a time.

    ``targets`` may give a launch its own variant of the target (the SIMD width
    the compiler chose for that kernel, :mod:`analyzers.machine_code`).
    """
    from analyzers.replay.memory import replay_memory

    sizes = {g.launch: g.work_group_size for g in geos}
    out = {}
    for g in geos:
        t = (targets or {}).get(g.launch, target)
        footprint = launch_footprint(trace, g.launch) if g.sample_scale > 1 else None
        if applies(t, footprint, g.sample_scale):
            first = (g.metadata.get("sampling") or {}).get("mode", "first") == "first"
            rep, estimate = replay_warm(trace, t, g.launch, g.work_group_size, footprint, g.sample_scale,
                                        groups_recorded=g.groups_recorded, total_groups=g.total_groups,
                                        first_groups=first)
        elif warm_units_apply(t, g.sample_scale, g.groups_recorded or g.num_groups, g.total_groups or None):
            rep = replay_warm_units(trace, t, g.launch, g.work_group_size,
                                    total_groups=g.total_groups or None)
            estimate = plain_estimate(g.groups_recorded or g.num_groups, g.total_groups or g.num_groups,
                                      g.sample_scale)
        else:
            rep = replay_memory(trace, t, launches=[g.launch], group_sizes=sizes)
            estimate = plain_estimate(g.groups_recorded or g.num_groups, g.total_groups or g.num_groups,
                                      g.sample_scale)
        mem = out[g.launch] = launch_memory(rep, t, g.sample_scale, g.launch, estimate)
        facts = image_site_facts(trace, g.launch)  # image format and sampler per image site
        if len(facts) and not mem.per_site.empty:
            mem.per_site = mem.per_site.merge(facts, on="site", how="left")
    return out
