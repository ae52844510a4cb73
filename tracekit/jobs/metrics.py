"""The key metrics a job watches for regressions, and how each is read from a result.

Each metric has a direction: for most, higher is worse (time, transactions per
request, DRAM bytes, bank-conflict degree); for utilisation and hit rates, lower
is worse.  Names are the JSON result's dotted names (docs/json-schema.md), so
a reader can find the same number in a report and in the ledger.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class KeyMetric:
    name: str
    higher_is_worse: bool
    what: str


KEY_METRICS: dict[str, KeyMetric] = {m.name: m for m in (
    KeyMetric("time_s", True, "estimated launch time (seconds)"),
    KeyMetric("memory.transactions_per_request", True, "global-memory transactions per SIMD request"),
    KeyMetric("memory.dram_bytes", True, "bytes moved to and from DRAM"),
    KeyMetric("local_memory.conflict_degree_mean", True, "mean local-memory bank-conflict degree"),
    KeyMetric("simd.utilization", False, "fraction of SIMD lanes doing work"),
    KeyMetric("memory.l1_hit_rate", False, "hit rate of the nearest cache level"),
)}


def as_float(value) -> float | None:
    """A finite number from the ledger's stored JSON, or None (missing, null, not a number)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def regression(metric: KeyMetric, baseline: float, value: float, threshold: float) -> float | None:
    """The relative change if ``value`` is worse than ``baseline`` by more than ``threshold``.

    The change is signed so that positive means worse (a drop in utilisation of
    a fifth is +0.2); a zero baseline that got worse counts as an infinite change.
    """
    worse = (value - baseline) if metric.higher_is_worse else (baseline - value)
    if worse <= 0:
        return None
    change = worse / abs(baseline) if baseline else math.inf
    return change if change > threshold else None
