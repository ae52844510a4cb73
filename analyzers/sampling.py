"""Estimates from a seeded sample of work-groups, with error bars, for traces too big to replay.

What is sampled: *blocks* of consecutive work-groups, each a whole number of
scheduling rounds (``compute_units x packing`` work-groups, see
:func:`analyzers.waves.schedule`), so every sampled work-group lands on the same
compute unit, next to the same neighbours, as in the full replay.  A seeded
random choice of ``fraction`` of the blocks of every launch is replayed.

Cache state: a block replayed alone would start with cold caches, which the
full replay only has at the start of a launch.  Each sampled block is therefore
replayed after the block before it (its *warm-up*), and the warm-up's own counts
(replayed alone) are subtracted, so the block's hits and misses are those of a
cache warmed by the work that precedes it.  Coalescing and bank counts do not
depend on cache state and are exact per block.

Error bars: per block we keep the numerators and denominators of every metric
(transactions and requests, hits and hits + misses per level, ...).  A metric is
a ratio of sums over blocks; its spread comes from a seeded bootstrap over the
sampled blocks (percentile interval, 95 % by default), and ``stderr`` is the
bootstrap standard deviation.  Totals (``dram_bytes``) are scaled by blocks in
the launch / blocks sampled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .memory import MEMORY_SPACES, replay_memory
from .waves import pack_factor

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

    def estimate(self, metric: str) -> float:
        return float(self.estimates.set_index("metric").loc[metric, "estimate"])

    def to_dict(self) -> dict:
        return {"kernel": self.kernel, "launch": self.launch, "blocks_total": self.blocks_total,
                "blocks_sampled": len(self.blocks_sampled), "groups_per_block": self.groups_per_block,
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
        out[f"{c['level']}_hits"] = float(c["hits"])
        out[f"{c['level']}_accesses"] = float(c["hits"] + c["misses"])
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
                     resamples: int = 2000, level: float = 0.95) -> pd.DataFrame:
    """Point estimates and bootstrap intervals of every metric from per-block counts."""
    rng = np.random.default_rng(seed)
    k = len(blocks)
    idx = rng.integers(0, k, size=(resamples, k)) if k > 1 else np.zeros((resamples, 1), np.int64)
    lo_q, hi_q = (1 - level) / 2, 1 - (1 - level) / 2
    rows = []
    for metric, (num, den) in _ratios(levels).items():
        n, d = blocks[num].to_numpy(), blocks[den].to_numpy()
        est = float(_ratio(np.array([n.sum()]), np.array([d.sum()]))[0])
        boot = _ratio(n[idx].sum(axis=1), d[idx].sum(axis=1))
        rows.append((metric, est, float(np.quantile(boot, lo_q)), float(np.quantile(boot, hi_q)),
                     float(boot.std(ddof=1)) if resamples > 1 else 0.0))
    tot = blocks["dram_bytes"].to_numpy()
    boot = tot[idx].sum(axis=1) * scale
    rows.append(("dram_bytes", float(tot.sum() * scale), float(np.quantile(boot, lo_q)),
                 float(np.quantile(boot, hi_q)), float(boot.std(ddof=1)) if resamples > 1 else 0.0))
    return pd.DataFrame(rows, columns=["metric", "estimate", "ci_low", "ci_high", "stderr"])


def _replay_counts(trace, target, launch: int, groups: np.ndarray, size: int) -> dict[str, float]:
    from tracekit.distributed import launch_view
    view = launch_view(trace, [launch], groups)
    return _counts(replay_memory(view, target, launches=[launch], group_sizes={launch: size}))


def sample_launch(trace, target, launch: int, *, fraction: float, seed: int = 0, kernel: str = "",
                  group_size: int = 0, rounds_per_block: int = ROUNDS_PER_BLOCK, warmup: bool = True,
                  resamples: int = 2000) -> SampledLaunch:
    """Replay a seeded sample of ``launch``'s blocks of work-groups and estimate its metrics."""
    from tracekit.distributed import launch_groups

    if not 0 < fraction <= 1:
        raise ValueError(f"the sampled fraction must be in (0, 1], got {fraction}")
    groups = launch_groups(trace, launch)
    pack = pack_factor(target.simd, group_size) if group_size else 1
    per_block = max(1, target.compute_units) * pack * max(1, rounds_per_block)
    nblocks = max(1, -(-len(groups) // per_block))
    k = min(nblocks, max(2, int(round(fraction * nblocks))))
    rng = np.random.default_rng([seed, launch])
    chosen = np.sort(rng.choice(nblocks, size=k, replace=False))
    rows = []
    for b in chosen:
        block = groups[b * per_block:(b + 1) * per_block]
        if warmup and b > 0:
            warm = groups[(b - 1) * per_block:b * per_block]
            both = _replay_counts(trace, target, launch, np.concatenate([warm, block]), group_size)
            alone = _replay_counts(trace, target, launch, warm, group_size)
            counts = {key: both[key] - alone.get(key, 0.0) for key in both}
        else:
            counts = _replay_counts(trace, target, launch, block, group_size)
        rows.append({"block": int(b), **counts})
    blocks = pd.DataFrame(rows)
    levels = [c.name for c in target.caches]
    est = summarize_blocks(blocks, levels, nblocks / k, seed=seed, resamples=resamples)
    return SampledLaunch(kernel, launch, nblocks, [int(b) for b in chosen], per_block, est, blocks)


def sample_trace(trace, target, *, fraction: float, seed: int = 0, **options) -> list[SampledLaunch]:
    """:func:`sample_launch` on every launch of ``trace`` (launch sizes from its launches table)."""
    from .geometry import launch_geometries
    geos, _ = launch_geometries(trace)
    return [sample_launch(trace, target, g.launch, fraction=fraction, seed=seed, kernel=g.kernel,
                          group_size=g.work_group_size, **options) for g in geos]


def full_metrics(rep, levels: list[str]) -> dict[str, float]:
    """The same metrics computed from a full replay (for comparing with the estimates)."""
    c = _counts(rep)
    out = {m: float(_ratio(np.array([c[n]]), np.array([c[d]]))[0]) for m, (n, d) in _ratios(levels).items()}
    out["dram_bytes"] = c["dram_bytes"]
    return out
