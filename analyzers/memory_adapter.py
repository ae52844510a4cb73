"""The memory replay's results, cut per launch and shaped for the time model.

:func:`analyzers.memory.replay_memory` does the replay; this module only reads
its output: the JSON dicts (``memory.*``, ``local_memory.*``) of each launch,
its per-site rows, and the :class:`~analyzers.bound.MemoryTraffic` the verdict
needs (bytes each level served, load hits per level, load requests and
transactions).  Cache state does not carry over between launches, so replaying
launch by launch gives each launch its own per-level counters.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pandas as pd

from .bound import LevelTraffic, MemoryTraffic

MEMORY_SPACES = ("global", "constant", "image")
LOAD_OPS = ("load", "atomic")
_SUM_COLS = ("requests", "accesses", "transactions", "bytes_requested", "bytes_moved", "local_cycles")


@dataclass
class LaunchMemory:
    """One launch's memory results on one target (counts of the recorded work-groups)."""

    memory: dict
    local_memory: dict
    per_site: pd.DataFrame
    traffic: MemoryTraffic
    load_sites: frozenset = field(default_factory=frozenset)


def _unit_bytes(level) -> int:
    return int(level.sector_bytes or level.line_bytes)


def _site_table(sites: pd.DataFrame) -> pd.DataFrame:
    """One row per site (a site is one static instruction, so one space and op)."""
    if sites.empty:
        return sites
    cols = [c for c in _SUM_COLS if c in sites.columns]
    first = sites.groupby("site", sort=True)[["space", "op"]].first()
    sums = sites.groupby("site", sort=True)[cols].sum()
    out = first.join(sums)
    req = out["requests"].where(out["requests"] > 0)
    out["transactions_per_request"] = out["transactions"] / req
    if "conflict_degree_mean" in sites.columns:
        w = (sites["conflict_degree_mean"].fillna(0) * sites["requests"]).groupby(sites["site"]).sum()
        out["conflict_degree_mean"] = (w / req).where(out["space"] == "local")
        out["conflict_degree_max"] = sites.groupby("site")["conflict_degree_max"].max()
    return out.reset_index()


def launch_memory(replay, target, scale: float = 1.0) -> LaunchMemory:
    """Shape a single-launch :class:`~analyzers.memory.MemoryReplay` for the verdict.

    ``scale`` (work-groups in the launch / work-groups recorded) turns recorded
    counts into whole-launch traffic for the time model; the JSON dicts keep the
    recorded counts.
    """
    doc = replay.to_dict()
    sites = _site_table(replay.per_site)
    levels = []
    for spec, stats in zip(target.caches, replay.caches, strict=True):
        accesses = stats["hits"] + stats["misses"]
        levels.append(LevelTraffic(
            name=spec.name, scope=spec.scope, bytes=accesses * _unit_bytes(spec) * scale,
            bandwidth_bytes_per_cycle=float(spec.bandwidth_bytes_per_cycle),
            latency_cycles=float(spec.latency_cycles),
            load_accesses=float(stats["load_hits"] + stats["load_misses"]) * scale,
            load_hits=float(stats["load_hits"]) * scale))
        doc["memory"]["caches"][len(levels) - 1].update(
            load_hits=stats["load_hits"], load_misses=stats["load_misses"],
            load_hit_rate=(stats["load_hits"] / (stats["load_hits"] + stats["load_misses"])
                           if stats["load_hits"] + stats["load_misses"] else 0.0))
    if sites.empty:
        loads = sites
    else:
        loads = sites[sites["space"].isin(MEMORY_SPACES) & sites["op"].isin(LOAD_OPS)]
    requests = float(loads["requests"].sum()) * scale if len(loads) else 0.0
    transactions = float(loads["transactions"].sum()) * scale if len(loads) else 0.0
    lookup_s = 0.0
    if getattr(target, "cache_lookup", "request") == "lane" and levels and requests:
        levels[0], lookup_s = _lane_lookups(levels[0], target, transactions, requests)
    traffic = MemoryTraffic(
        levels=tuple(levels),
        dram_bytes=float(doc["memory"]["dram_bytes"]) * scale,
        load_requests=requests, load_transactions=transactions,
        local_cycles=float(doc["local_memory"]["cycles"]) * scale, lookup_s_per_request=lookup_s)
    degrees = getattr(replay, "conflict_degrees", None)
    if degrees is not None and len(degrees):
        hist = degrees.groupby("conflict_degree")["requests"].sum().sort_index()
        doc["local_memory"]["conflict_degree_histogram"] = {str(int(k)): int(v) for k, v in hist.items()}
    else:
        doc["local_memory"]["conflict_degree_histogram"] = {}
    return LaunchMemory(doc["memory"], doc["local_memory"], sites, traffic,
                        frozenset(int(s) for s in loads["site"]) if len(loads) else frozenset())


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


def memory_by_launch(trace, target, geos) -> dict[int, LaunchMemory]:
    """Replay every launch of ``trace`` on ``target``, one launch at a time."""
    from .memory import replay_memory

    sizes = {g.launch: g.work_group_size for g in geos}
    out = {}
    for g in geos:
        rep = replay_memory(trace, target, launches=[g.launch], group_sizes=sizes)
        out[g.launch] = launch_memory(rep, target, g.sample_scale)
    return out
