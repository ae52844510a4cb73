"""How a wave's loads overlap: loads per wave and the longest chain of dependent ones.

A wave waits one round trip per load in a dependent chain, and a work-group keeps its slot
until its slowest wave is done, so the latency model needs the chain, not the load count.
Loops the compiler unrolls issue several iterations' loads together (:class:`BatchPlan`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class LoadChains:
    """How a wave's loads overlap: loads per wave and the longest dependent chain.

    A work-group holds its slot until its slowest wave is done, and a launch ends
    with its slowest wave, so where work-items loop unevenly (a CSR row per item,
    rows of 8 to 320 entries) the chain that matters is the longest, not the mean.
    """

    loads_per_wave: float      # load issues per wave (mean over waves that load)
    chain_per_wave: float      # most issues of one load site per wave (mean)
    stores_per_wave: float = 0.0  # global store issues per wave (mean over waves that store)
    #: the slowest wave's chain in each work-group (or packed task), mean over them
    chain_per_work_group: float | None = None
    #: the slowest wave's chain in the launch (of the recorded waves)
    chain_max: float | None = None

    @property
    def group_chain(self) -> float:
        return self.chain_per_wave if self.chain_per_work_group is None else self.chain_per_work_group

    @property
    def longest_chain(self) -> float:
        return self.chain_per_wave if self.chain_max is None else self.chain_max

    @property
    def loads_in_flight(self) -> float:
        """Loads one wave keeps in flight at once (1 for a pure chain)."""
        return self.loads_per_wave / self.chain_per_wave if self.chain_per_wave else 0.0


def load_chains(issues: pd.DataFrame, load_sites, store_sites=(), group_of=None,
                overlap: dict | None = None) -> LoadChains:
    """Per-wave load issues and chain length from :func:`analyzers.simd.wave_issues` rows.

    ``load_sites`` are the sites of loads that go through the cache hierarchy.
    Repeated issues of one site by one wave are taken as dependent (each waits
    for the last), distinct sites as independent, except that a site in
    ``overlap`` (site -> :class:`BatchPlan`: a loop whose iterations the compiler may
    overlap, :func:`batched_overlap`) counts the round trips its plan gives.  ``group_of``
    (wave ids -> the work-group or packed task they belong to) gives the slowest
    wave of each group.
    """
    if issues.empty:
        return LoadChains(0.0, 0.0)
    ops = issues["opclass"]   # compared as it is (a category column): no text per row
    st = issues[issues["site"].isin(list(store_sites)) & ops.isin(["store", "atomic"])]
    stores = float(st.groupby("wave", sort=False)["issues"].sum().mean()) if not st.empty else 0.0
    sel = issues[issues["site"].isin(list(load_sites)) & ops.isin(["load", "atomic"])]
    if sel.empty:
        return LoadChains(0.0, 0.0, stores)
    per_site = sel.groupby(["wave", "site"], sort=False, observed=True)["issues"].sum()
    per_wave = per_site.groupby(level="wave", sort=False).agg(["sum", "max"])
    chain = per_wave["max"]
    if overlap:
        sites = per_site.index.get_level_values("site")
        steps = per_site.to_numpy(dtype=float)
        for plan in set(overlap.values()):
            rows = sites.isin([s for s, p in overlap.items() if p == plan])
            steps[rows] = batched_rounds(steps[rows], plan.unroll, plan.body, plan.ratio)
        chain = pd.Series(steps, index=per_site.index).groupby(level="wave", sort=False).max()
    per_group = None
    if group_of is not None:
        groups = group_of(chain.index.to_numpy())
        per_group = float(chain.groupby(groups).max().mean())
    return LoadChains(float(per_wave["sum"].mean()), float(chain.mean()), stores, per_group,
                      float(chain.max()))


@dataclass(frozen=True)
class BatchPlan:
    """How a target's compiler runs a loop whose loads may overlap (``sites.role`` "batched").

    The loop is unrolled ``unroll`` times with its n mod unroll remainder iterations run
    one at a time; the rest goes in bodies of ``body`` iterations, then one each of
    body/2, body/4, ... down to ``unroll`` as needed (nvcc's shape).  A body of b
    iterations issues its loads together and waits one round trip plus b times what each
    iteration's requests cost the memory pipeline: with ``ratio`` = round trip / that cost,
    it takes (ratio + b) / (ratio + 1) round trips of a one-iteration loop.
    """

    unroll: int
    body: int
    ratio: float

    @classmethod
    def from_target(cls, target) -> BatchPlan | None:
        """From ``simd.batched_load_overlap`` (f: how many times faster a loop of full bodies
        runs than a rolled one), ``batched_load_unroll`` and ``batched_load_body`` (B):
        f = B (ratio + 1) / (ratio + B).  None where the target gives no overlap."""
        simd = target.simd
        f = float(getattr(simd, "batched_load_overlap", 1.0) or 1.0)
        unroll = max(1, int(getattr(simd, "batched_load_unroll", 1) or 1))
        body = max(unroll, int(getattr(simd, "batched_load_body", 0) or unroll))
        if f <= 1.0 or body <= 1 or f >= body:
            return None
        return cls(unroll, body, body * (f - 1.0) / (body - f))


def batched_rounds(n: np.ndarray, unroll: int, body: int, ratio: float) -> np.ndarray:
    """Round trips a wave waits through n issues of a batched load site (:class:`BatchPlan`)."""
    whole = np.rint(np.asarray(n, dtype=float)).astype(np.int64)
    single = np.mod(whole, unroll)
    m = whole - single
    tail = (m % body) // unroll  # one body each of body/2, body/4, ...: the set bits of tail
    bodies = m // body + sum((tail >> k) & 1 for k in range(max(1, int(body // unroll)).bit_length()))
    return single + (bodies * ratio + m) / (ratio + 1.0)


def batched_overlap(roles: dict[int, str], target) -> dict[int, BatchPlan]:
    """site -> the target's :class:`BatchPlan` for the sites the recorder marked ``batched``
    (tracekit/recorder/roles.h): loads in a loop that writes no global memory, runs no
    atomic or barrier and chases no pointer, whose iterations an unrolling compiler issues
    together.  Empty where the target gives no overlap or the trace has no such sites."""
    plan = BatchPlan.from_target(target)
    if plan is None:
        return {}
    return {site: plan for site, role in roles.items() if role == "batched"}


def load_chains_from_requests(load_requests_per_site, waves: float) -> LoadChains:
    """The same figures from the replay's load requests per site, for traces without instruction counts.

    Every wave is taken to issue every load site equally often (no divergence).
    """
    reqs = [float(r) for r in load_requests_per_site if r > 0]
    if not reqs or waves <= 0:
        return LoadChains(0.0, 0.0)
    return LoadChains(sum(reqs) / waves, max(reqs) / waves)
