"""Estimates from a seeded sample of work-groups, with error bars, for traces too big to replay.

What is sampled: *blocks* of consecutive work-groups, each a whole number of
scheduling rounds (``compute_units x packing`` work-groups, see
:func:`analyzers.replay.waves.schedule`), so every sampled work-group lands on the same
compute unit, next to the same neighbours, as in the full replay.

Cache state.  What a block counts depends on what the caches hold when it starts,
dirty lines included: a line written in one block may be written back to the
next level many blocks later, when the stream of later accesses pushes it out.
So the replay keeps the full replay's order and carries the caches from block to
block, and each sampled block is preceded by a *warm-up*: the blocks just before
it whose footprints (bytes of distinct lines each touches) add up to the capacity
of the target's largest cache (:func:`warmup_bytes_for`).  After that much
traffic every level's contents, and which of them are dirty, are those of the
full replay, whatever the caches held before; when a warm-up reaches back to the
previous replayed block, the two runs join and the state is exact.  Only the
sampled blocks are counted.

Strata.  The *head* of a launch, the blocks that run before the launch's own
footprint reaches that capacity, sees caches still filling from cold; it is
replayed and counted whole.  ``fraction`` of the remaining blocks are drawn at
random (seeded), at least two.  A launch whose footprint fits in the largest
cache is all head, so its "estimate" is the full replay.

Error bars: per block we keep the numerators and denominators of every metric
(transactions and requests, hits and hits + misses per level, ...).  Each sum is
head + (blocks after the head / blocks drawn) x the drawn blocks' sum, a metric is
a ratio of such sums; its spread comes from a seeded bootstrap over the drawn
blocks (percentile interval, 95 % by default), and ``stderr`` is the bootstrap
standard deviation.  ``dram_bytes`` adds the write-back of what is still dirty
in the caches after the last replayed block (the full replay's end-of-launch flush).
Coalescing and bank counts do not depend on cache state and are exact per block.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analyzers.replay.cache import CacheHierarchy
from analyzers.replay.memory import (
    ADDRESS_MASK,
    SPACE_CODES,
    LaunchReplay,
    batch_arrays,
    code_lut,
    launch_chunks,
    replay_columns,
    take_rows,
)
from analyzers.replay.sites import MEMORY_SPACES
from analyzers.replay.texture_replay import TextureReplay
from analyzers.replay.waves import pack_factor
from tracekit.trace.views import launch_groups, launch_view

ROUNDS_PER_BLOCK = 4


@dataclass
class SampledLaunch:
    """Estimates for one launch on one target from a sample of its blocks of work-groups."""

    kernel: str
    launch: int
    blocks_total: int
    blocks_sampled: list[int]
    groups_per_block: int
    #: metric, estimate, ci_low, ci_high, stderr (one row per metric)
    estimates: pd.DataFrame
    #: one row per sampled block: its numerators and denominators
    blocks: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    #: leading blocks replayed and counted whole (caches still filling from cold)
    head_blocks: int = 0
    #: work-groups replayed in all (head, sampled blocks and their warm-ups)
    groups_replayed: int = 0
    #: end-of-launch write-back estimated from the caches after the last replayed block
    flush_bytes: float = 0.0

    def estimate(self, metric: str) -> float:
        return float(self.estimates.set_index("metric").loc[metric, "estimate"])

    def to_dict(self) -> dict:
        return {"kernel": self.kernel, "launch": self.launch, "blocks_total": self.blocks_total,
                "blocks_sampled": len(self.blocks_sampled), "groups_per_block": self.groups_per_block,
                "head_blocks": self.head_blocks, "groups_replayed": self.groups_replayed,
                "estimates": {r.metric: {"estimate": r.estimate, "ci_low": r.ci_low, "ci_high": r.ci_high,
                                         "stderr": r.stderr} for r in self.estimates.itertuples()}}


def _counts(rep) -> dict[str, float]:
    """The additive counts of a replay that every estimated metric is built from."""
    s = rep.per_site
    mem = s[s["space"].isin(MEMORY_SPACES)]
    loc = s[s["space"] == "local"]
    out = {"requests": float(mem["requests"].sum()), "transactions": float(mem["transactions"].sum()),
           "local_requests": float(loc["requests"].sum()), "local_cycles": float(loc["local_cycles"].sum()),
           "local_degree": float((loc["conflict_degree_mean"].fillna(0) * loc["requests"]).sum()),
           "dram_bytes": float(rep.dram_bytes_read + rep.dram_bytes_written)}
    for c in rep.caches:
        out[f"{c.level}_hits"] = float(c.hits)
        out[f"{c.level}_accesses"] = float(c.hits + c.misses)
    return out


def _ratios(levels: list[str]) -> dict[str, tuple[str, str]]:
    r = {"transactions_per_request": ("transactions", "requests"),
         "local_cycles_per_request": ("local_cycles", "local_requests"),
         "conflict_degree_mean": ("local_degree", "local_requests")}
    for lv in levels:
        r[f"{lv}_hit_rate"] = (f"{lv}_hits", f"{lv}_accesses")
    return r


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)


def summarize_blocks(blocks: pd.DataFrame, levels: list[str], scale: float, *, seed: int = 0,
                     resamples: int = 2000, level: float = 0.95, fixed: pd.Series | None = None,
                     flush: float = 0.0) -> pd.DataFrame:
    """Point estimates and bootstrap intervals of every metric from per-block counts.

    Every count is estimated as ``fixed`` (the head stratum, counted whole) + ``scale`` x the
    sampled blocks' sum; ``dram_bytes`` also gets ``flush`` (the end-of-launch write-back).
    Ratios are taken of those estimated sums; only the sampled blocks are resampled.
    """
    rng = np.random.default_rng(seed)
    k = len(blocks)
    idx = rng.integers(0, k, size=(resamples, k)) if k > 1 else np.zeros((resamples, max(k, 1)), np.int64)
    lo_q, hi_q = (1 - level) / 2, 1 - (1 - level) / 2
    fixed = pd.Series(dtype=float) if fixed is None else fixed

    def total(col: str) -> tuple[float, np.ndarray]:
        base = float(fixed.get(col, 0.0))
        if not k:
            return base, np.full(resamples, base)
        v = blocks[col].to_numpy(dtype=float)
        return base + scale * v.sum(), base + scale * v[idx].sum(axis=1)

    def row(metric: str, est: float, boot: np.ndarray) -> tuple:
        return (metric, est, float(np.quantile(boot, lo_q)), float(np.quantile(boot, hi_q)),
                float(boot.std(ddof=1)) if resamples > 1 else 0.0)

    rows = []
    for metric, (num, den) in _ratios(levels).items():
        (n, nb), (d, db) = total(num), total(den)
        rows.append(row(metric, float(_ratio(np.array([n]), np.array([d]))[0]), _ratio(nb, db)))
    t, tb = total("dram_bytes")
    rows.append(row("dram_bytes", t + flush, tb + flush))
    return pd.DataFrame(rows, columns=["metric", "estimate", "ci_low", "ci_high", "stderr"])


def warmup_bytes_for(target) -> int:
    """Default warm-up: the capacity of the target's largest cache level (all its instances)."""
    cus = max(1, target.compute_units)
    return max((c.size_bytes * (cus if c.scope == "compute_unit" else 1) for c in target.caches), default=0)


def _view_batches(trace, launch: int, groups: np.ndarray, columns, chunk_rows: int, kernels: dict):
    view = launch_view(trace, [launch], groups)
    for b in view.iter_batches(columns=columns, batch_size=chunk_rows, launches=[launch]):
        yield batch_arrays(b, kernels)


def block_footprints(trace, launch: int, groups: np.ndarray, per_block: int, line_bytes: int,
                     chunk_rows: int = 1 << 20) -> np.ndarray:
    """Bytes of distinct ``line_bytes`` lines each block of the launch touches (memory spaces).

    One pass over three columns; rows come in work-group order, so a block's lines are
    counted and dropped as soon as the stream has moved past it.
    """
    nblocks = max(1, -(-len(groups) // per_block))
    rank = np.full(int(groups.max()) + 1 if len(groups) else 1, -1, np.int64)
    rank[groups] = np.arange(len(groups)) // per_block
    mem = [SPACE_CODES[s] for s in MEMORY_SPACES]
    lines = np.zeros(nblocks, np.int64)
    pending = np.zeros((0, 2), np.int64)

    def count(pairs: np.ndarray) -> None:
        np.add.at(lines, np.unique(pairs, axis=0)[:, 0], 1)

    for b in launch_view(trace, [launch]).iter_batches(columns=["group", "space", "address"],
                                                        batch_size=chunk_rows, launches=[launch]):
        space = b.column("space")
        codes = code_lut(space.dictionary, SPACE_CODES)
        keep = np.isin(codes[space.indices.to_numpy(zero_copy_only=False)], mem)
        addr = (b.column("address").to_numpy(zero_copy_only=False) & ADDRESS_MASK).view(np.int64)
        blk = rank[b.column("group").to_numpy(zero_copy_only=False)]
        if not len(blk):
            continue
        pending = np.concatenate([pending, np.unique(np.stack([blk[keep], addr[keep] // line_bytes], axis=1),
                                                     axis=0)])
        done = pending[:, 0] < blk[-1]
        count(pending[done])
        pending = pending[~done]
    count(pending)
    return lines * line_bytes


class _BlockReplay:
    """One launch replayed block by block in launch order, caches carried from block to block."""

    def __init__(self, trace, target, launch: int, groups: np.ndarray, per_block: int, group_size: int,
                 chunk_rows: int):
        self.trace, self.launch, self.groups, self.per_block = trace, launch, groups, per_block
        self.chunk_rows = chunk_rows
        self.h = CacheHierarchy.from_target(target) if target.caches else None
        # image reads through the texture caches, as in the full replay
        texture = TextureReplay.for_launch(trace, target, launch) if self.h is not None else None
        self.columns = replay_columns(trace, target)
        self.lr = LaunchReplay(target, self.h, group_size or None, texture, patterns=False)
        self.levels = [c.name for c in target.caches]
        self.kernels: dict[str, int] = {}

    def _snapshot(self) -> tuple[np.ndarray, int]:
        if self.h is None:
            return np.zeros((0, 5), np.int64), 0
        return self.h.counters(), self.h.dram_bytes_read + self.h.dram_bytes_written

    def run(self, first: int, last: int, counted: set[int]) -> list[dict]:
        """Replay blocks ``first..last`` (inclusive); return the counts of those in ``counted``."""
        g = self.groups[first * self.per_block:(last + 1) * self.per_block]
        stream = _view_batches(self.trace, self.launch, g, self.columns, self.chunk_rows, self.kernels)
        self.lr.groups_done = first * self.per_block
        out = []
        for chunk, _ in launch_chunks(stream, lambda _launch: self.per_block, self.chunk_rows):
            grp = chunk["group"]
            gidx = np.concatenate([[0], np.cumsum(grp[1:] != grp[:-1])])
            blk = (self.lr.groups_done + gidx) // self.per_block
            cuts = np.flatnonzero(np.diff(blk)) + 1
            for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(blk)], strict=True):
                b = int(blk[lo])
                before = self._snapshot()
                self.lr.clear_sites()
                self.lr.add(take_rows(chunk, int(lo), int(hi)))
                if b in counted:
                    out.append({"block": b, **self._counts(before)})
        self.lr.clear_sites()
        return out

    def _counts(self, before) -> dict[str, float]:
        s = self.lr.site_table()
        space = (s["key"].to_numpy() >> 4) & 15
        mem = np.isin(space, [SPACE_CODES[x] for x in MEMORY_SPACES])
        loc = space == SPACE_CODES["local"]
        out = {"requests": float(s["requests"][mem].sum()),
               "transactions": float(s["transactions"][mem].sum()),
               "local_requests": float(s["requests"][loc].sum()),
               "local_cycles": float(s["local_cycles"][loc].sum()),
               "local_degree": float(s["degree_sum"][loc].sum())}
        after = self._snapshot()
        d = after[0] - before[0]
        out["dram_bytes"] = float(after[1] - before[1])
        for lv, row in zip(self.levels, d, strict=True):
            out[f"{lv}_hits"] = float(row[0] + row[2])
            out[f"{lv}_accesses"] = float(row[:4].sum())
        return out

    def flush_bytes(self) -> float:
        """DRAM bytes the dirty data left in the caches would add when the launch ends."""
        if self.h is None:
            return 0.0
        before = self.h.dram_bytes_written
        self.h.flush()
        return float(self.h.dram_bytes_written - before)


def warmup_plan(chosen: np.ndarray, footprint: np.ndarray, need: float, *,
                first: int = 0) -> list[tuple[int, int]]:
    """Replay ranges (first, last block) in launch order: each sampled block after its warm-up.

    A sampled block's warm-up is the run of blocks just before it whose footprints add up to
    ``need`` bytes (or reach the launch start, or the end of the previous range, in which case
    the two ranges join: the caches then carry the exact state of the full replay).
    """
    ranges: list[tuple[int, int]] = []
    done = first  # blocks before this one were already replayed
    for b in (int(x) for x in chosen):
        start, got = b, 0.0
        while start > done and got < need:
            start -= 1
            got += float(footprint[start])
        if ranges and start <= done:
            ranges[-1] = (ranges[-1][0], b)
        else:
            ranges.append((start, b))
        done = b + 1
    return ranges


def sample_launch(trace, target, launch: int, *, fraction: float, seed: int = 0, kernel: str = "",
                  group_size: int = 0, rounds_per_block: int = ROUNDS_PER_BLOCK, warmup: bool = True,
                  warmup_bytes: float | None = None, resamples: int = 2000,
                  chunk_rows: int = 1 << 20) -> SampledLaunch:
    """Replay a seeded sample of ``launch``'s blocks of work-groups and estimate its metrics.

    ``warmup_bytes`` (default :func:`warmup_bytes_for`) is the footprint each sampled block's
    warm-up must cover; ``warmup=False`` replays every sampled block alone from cold caches.
    """

    if not 0 < fraction <= 1:
        raise ValueError(f"the sampled fraction must be in (0, 1], got {fraction}")
    groups = launch_groups(trace, launch)
    pack = pack_factor(target.simd, group_size) if group_size else 1
    per_block = max(1, target.compute_units) * pack * max(1, rounds_per_block)
    nblocks = max(1, -(-len(groups) // per_block))
    k = min(nblocks, max(2, int(round(fraction * nblocks))))
    rng = np.random.default_rng([seed, launch])
    chosen = np.sort(rng.choice(nblocks, size=k, replace=False))
    need = float(warmup_bytes_for(target) if warmup_bytes is None else warmup_bytes)
    foot = np.zeros(nblocks)
    if warmup and need > 0 and target.caches and nblocks > 1:
        line = max(c.line_bytes for c in target.caches)
        foot = block_footprints(trace, launch, groups, per_block, line, chunk_rows)
    # the head: blocks that run while the caches are still filling from cold (their preceding
    # footprint is under ``need``); it is a stratum of its own, replayed and counted whole
    head = int(np.searchsorted(np.cumsum(foot), need, side="left")) + 1 if warmup and need > 0 else 0
    head = min(head, nblocks)
    rest = nblocks - head
    k = min(rest, max(2, int(round(fraction * rest)))) if rest else 0
    rng = np.random.default_rng([seed, launch])
    chosen = head + np.sort(rng.choice(rest, size=k, replace=False)) if k else np.zeros(0, np.int64)
    replay = _BlockReplay(trace, target, launch, groups, per_block, group_size, chunk_rows)
    if warmup:
        ranges = ([(0, head - 1)] if head else []) + warmup_plan(chosen, foot, need, first=head)
    else:
        ranges = [(int(b), int(b)) for b in chosen]
    counted = set(range(head)) | {int(b) for b in chosen}
    rows: list[dict] = []
    for first, last in ranges:
        if not warmup and replay.h is not None:
            replay.h.reset()
        rows += replay.run(first, last, counted)
    flush = replay.flush_bytes()
    table = pd.DataFrame(rows)
    blocks = table[table["block"] >= head].reset_index(drop=True)
    fixed = table[table["block"] < head].drop(columns="block").sum()
    levels = [c.name for c in target.caches]
    est = summarize_blocks(blocks, levels, rest / k if k else 0.0, seed=seed, resamples=resamples,
                           fixed=fixed, flush=flush)
    replayed = sum(min(len(groups), (b + 1) * per_block) - a * per_block for a, b in ranges)
    return SampledLaunch(kernel, launch, nblocks, [int(b) for b in chosen], per_block, est, table,
                         head_blocks=head, groups_replayed=int(replayed), flush_bytes=flush)


def sample_trace(trace, target, *, fraction: float, seed: int = 0, **options) -> list[SampledLaunch]:
    """:func:`sample_launch` on every launch of ``trace`` that holds rows (launch sizes from its
    launches table); a launch without any has nothing to sample and is left out."""
    from analyzers.geometry import launch_geometries
    geos, _ = launch_geometries(trace)
    recorded = trace.launch_ids("accesses") | trace.launch_ids("instructions")
    return [sample_launch(trace, target, g.launch, fraction=fraction, seed=seed, kernel=g.kernel,
                          group_size=g.work_group_size, **options) for g in geos if g.launch in recorded]


def full_metrics(rep, levels: list[str]) -> dict[str, float]:
    """The same metrics computed from a full replay (for comparing with the estimates)."""
    c = _counts(rep)
    out = {m: float(_ratio(np.array([c[n]]), np.array([c[d]]))[0]) for m, (n, d) in _ratios(levels).items()}
    out["dram_bytes"] = c["dram_bytes"]
    return out
