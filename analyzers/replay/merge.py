"""Putting replays of one launch's parts back together.

A launch can be replayed in pieces (each compute unit's work-groups on a one-unit copy of
the target, in a worker of its own); every count of :class:`MemoryReplay` then adds up over
the pieces, and the rates, means and per-level hit rates are recomputed from the sums.
The merge lives beside the result it merges, so a field added to the replay is merged
where it is defined.
"""

from __future__ import annotations

import pandas as pd

from analyzers.replay.cache import LevelStats
from analyzers.replay.memory import MemoryReplay, sum_level_stats, sum_levels
from analyzers.replay.patterns import merge_patterns
from analyzers.replay.sites import SITE_KEYS, SITE_SUMS
from analyzers.replay.texture_replay import SITE_SUMS as TEXTURE_SUMS
from analyzers.replay.texture_replay import add_rates


def merge_replays(parts, target):
    """One launch's replay from the replays of disjoint sets of its work-groups (a compute unit's
    each, as :mod:`tracekit.distributed` cuts it): counts add up, rates come from the sums."""
    parts = [p for p in parts if p is not None and p.accesses]
    if not parts:
        return None
    sites = pd.concat([p.per_site for p in parts], ignore_index=True)
    keys = list(SITE_KEYS)
    sums = list(SITE_SUMS)
    sums += [c for c in TEXTURE_SUMS if c in sites.columns]  # the texture path's counts add up too
    extra = {c: (c, "max") for c in ("row_pitch_bytes", "item_rows", "item_columns") if c in sites.columns}
    sites = sites.assign(_deg=sites["conflict_degree_mean"].fillna(0) * sites["requests"])
    agg = sites.groupby(keys, sort=True).agg(
        **{c: (c, "sum") for c in sums}, _deg=("_deg", "sum"),
        conflict_degree_max=("conflict_degree_max", "max"), **extra).reset_index()
    agg = add_rates(agg)
    req = agg["requests"].where(agg["requests"] > 0)
    agg["transactions_per_request"] = agg["transactions"] / req
    local = agg["space"] == "local"
    agg["conflict_degree_mean"] = (agg["_deg"] / req).where(local)
    agg["conflict_degree_max"] = agg["conflict_degree_max"].where(local)
    agg = agg.drop(columns="_deg")[list(parts[0].per_site.columns)]
    caches = sum_level_stats(target, [p.caches for p in parts])
    degrees = pd.concat([p.conflict_degrees for p in parts], ignore_index=True)
    if len(degrees):
        degrees = degrees.groupby(["launch", "site", "conflict_degree"], sort=True)["requests"].sum()
        degrees = degrees.reset_index()
    launches = sorted({k for p in parts for k in p.patterns})
    patterns = {k: merge_patterns([p.patterns.get(k) for p in parts]) for k in launches}
    per_launch = merge_per_launch([p.per_launch for p in parts], caches)
    return MemoryReplay(
        target=target.name, accesses=sum(p.accesses for p in parts), per_site=agg,
        per_launch=per_launch, caches=caches,
        dram_bytes_read=sum(p.dram_bytes_read for p in parts),
        dram_bytes_written=sum(p.dram_bytes_written for p in parts), conflict_degrees=degrees,
        launch_caches={int(k): caches for k in per_launch["launch"]} if len(per_launch) else {},
        texture_caches=sum_levels([p.texture_caches for p in parts]), patterns=patterns,
        constant_caches=sum_levels([p.constant_caches for p in parts]),
        fills=merge_fills([p.fills for p in parts]))


#: Columns of ``MemoryReplay.per_launch`` that add up over compute units.
LAUNCH_SUMS = ("accesses", "requests", "transactions", "bytes_requested", "bytes_moved", "local_requests",
               "local_cycles", "dram_bytes_read", "dram_bytes_written", "first_level_cycles", "atomic_cycles")


def merge_per_launch(frames: list[pd.DataFrame], caches: list[LevelStats]) -> pd.DataFrame:
    """Sum the per-launch rows of one launch's compute units; ratios from the sums, and each
    level's hit rate from the merged ``caches`` (the replays hold one launch)."""
    frames = [f for f in frames if f is not None and len(f)]
    if not frames:
        return pd.DataFrame()
    rows = pd.concat(frames, ignore_index=True)
    sums = [c for c in LAUNCH_SUMS if c in rows.columns]
    rows = rows.assign(_deg=rows["conflict_degree_mean"] * rows["local_requests"])
    out = rows.groupby(["kernel", "launch"], sort=True)[[*sums, "_deg"]].sum().reset_index()
    req = out["requests"].where(out["requests"] > 0)
    out["transactions_per_request"] = (out["transactions"] / req).fillna(0.0)
    lreq = out["local_requests"].where(out["local_requests"] > 0)
    out["conflict_degree_mean"] = (out["_deg"] / lreq).fillna(0.0)
    for c in caches:
        out[f"{c.level}_hit_rate"] = c.hit_rate
    return out.drop(columns="_deg")[[c for c in frames[0].columns if c in out.columns]]


def merge_fills(parts: list[dict[int, dict]]) -> dict[int, dict]:
    """Add up the fill counts (:meth:`analyzers.replay.inflight.FillTracker.counts`) of compute units,
    launch by launch; the per-level lists only where every unit has them."""
    out: dict[int, dict] = {}
    for launch in sorted({k for p in parts for k in p}):
        counts = [p[launch] for p in parts if launch in p]
        merged = {}
        for key in counts[0]:
            values = [c.get(key) for c in counts]
            if any(v is None for v in values):
                continue
            if isinstance(values[0], list):
                merged[key] = [int(sum(x)) for x in zip(*values, strict=True)]
            else:
                merged[key] = int(sum(values))
        out[launch] = merged
    return out
