"""The verdict: is a launch ALU-, memory- or latency-bound on a target, and how long does it take.

Three lower bounds on the launch's run time, each from one resource:

* **ALU**: the busiest compute unit's issue cycles over its usable issuers
  (:mod:`analyzers.alu`);
* **memory**: for every level that moves data, the bytes it moved over its
  bandwidth (per-unit caches and local memory scale with the units in use;
  shared caches and DRAM do not); the slowest level is the memory time;
* **latency** (Little's law): to keep up a rate of X transactions per second
  against an average load latency L, X x L transactions must be in flight.
  Resident waves can keep ``waves x loads in flight per wave x transactions per
  request`` in flight; a wave's loads are in flight together unless they form a
  dependent chain (one site re-executed by the same lane, as in a pointer chase
  or a loop whose next address needs the last load).  When fewer are in flight
  than needed, the rate drops to in-flight / L, and the time to
  ``transactions x L / in-flight``.

The estimate is the largest bound (the resources are assumed to overlap
perfectly), and the verdict names it.  Counts come in already scaled to the
whole launch when the trace recorded a sample of work-groups.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

VERDICTS = ("alu", "memory", "latency")


@dataclass(frozen=True)
class LevelTraffic:
    """What one cache level moved during a launch (whole-launch counts)."""

    name: str
    scope: str                        # "compute_unit" | "shared"
    bytes: float                      # bytes the level served to the level above
    bandwidth_bytes_per_cycle: float  # per instance
    latency_cycles: float
    load_accesses: float
    load_hits: float


@dataclass(frozen=True)
class MemoryTraffic:
    """The memory replay's numbers the time model needs (whole-launch counts)."""

    levels: tuple[LevelTraffic, ...]
    dram_bytes: float
    load_requests: float       # SIMD requests of global/constant/image loads
    load_transactions: float
    local_cycles: float = 0.0  # local-memory cycles summed over the work-groups


@dataclass(frozen=True)
class LoadChains:
    """How a wave's loads overlap: loads per wave and the longest dependent chain."""

    loads_per_wave: float      # load issues per wave (mean over waves that load)
    chain_per_wave: float      # most issues of one load site per wave (mean)

    @property
    def loads_in_flight(self) -> float:
        """Loads one wave keeps in flight at once (1 for a pure chain)."""
        return self.loads_per_wave / self.chain_per_wave if self.chain_per_wave else 0.0


def load_chains(issues: pd.DataFrame, load_sites) -> LoadChains:
    """Per-wave load issues and chain length from :func:`analyzers.simd.wave_issues` rows.

    ``load_sites`` are the sites of loads that go through the cache hierarchy.
    Repeated issues of one site by one wave are taken as dependent (each waits
    for the last), distinct sites as independent.
    """
    if issues.empty:
        return LoadChains(0.0, 0.0)
    sel = issues[issues["site"].isin(list(load_sites))
                 & issues["opclass"].astype(str).isin(["load", "atomic"])]
    if sel.empty:
        return LoadChains(0.0, 0.0)
    per_wave = sel.groupby("wave", sort=False)["issues"].agg(["sum", "max"])
    return LoadChains(float(per_wave["sum"].mean()), float(per_wave["max"].mean()))


def load_chains_from_requests(load_requests_per_site, waves: float) -> LoadChains:
    """The same figures from the replay's load requests per site, for traces without instruction counts.

    Every wave is taken to issue every load site equally often (no divergence).
    """
    reqs = [float(r) for r in load_requests_per_site if r > 0]
    if not reqs or waves <= 0:
        return LoadChains(0.0, 0.0)
    return LoadChains(sum(reqs) / waves, max(reqs) / waves)


@dataclass(frozen=True)
class BoundResult:
    verdict: str
    time_s: float
    alu_s: float
    memory_s: float
    latency_s: float
    memory_levels_s: dict[str, float]
    memory_bottleneck: str
    evidence: dict = field(default_factory=dict)

    def time_estimates(self) -> dict:
        return {"total_s": self.time_s, "alu_s": self.alu_s, "memory_s": self.memory_s,
                "latency_s": self.latency_s, "memory_levels_s": dict(sorted(self.memory_levels_s.items())),
                "memory_bottleneck": self.memory_bottleneck}


def memory_times(traffic: MemoryTraffic, target, active_cus: int) -> dict[str, float]:
    """Seconds each level needs to move its bytes at its bandwidth."""
    clock_hz = float(target.clock_mhz) * 1e6
    out: dict[str, float] = {}
    for lvl in traffic.levels:
        if lvl.bandwidth_bytes_per_cycle <= 0:
            continue
        instances = active_cus if lvl.scope == "compute_unit" else 1
        out[lvl.name] = lvl.bytes / (lvl.bandwidth_bytes_per_cycle * max(instances, 1) * clock_hz)
    out["DRAM"] = traffic.dram_bytes / (float(target.dram.bandwidth_gb_per_s) * 1e9)
    if traffic.local_cycles:
        out["local_memory"] = traffic.local_cycles / max(active_cus, 1) / clock_hz
    return out


def mean_load_latency_s(traffic: MemoryTraffic, target) -> tuple[float, dict[str, float]]:
    """Average latency of a load transaction, from where the replay found its data.

    Walking the levels nearest first, a level serves its hit rate of what reached
    it; DRAM serves the rest.  A level's latency is the whole load-to-use time
    when it hits.
    """
    clock_hz = float(target.clock_mhz) * 1e6
    remaining, latency, served = 1.0, 0.0, {}
    for lvl in traffic.levels:
        rate = lvl.load_hits / lvl.load_accesses if lvl.load_accesses else 0.0
        share = remaining * rate
        served[lvl.name] = share
        latency += share * lvl.latency_cycles / clock_hz
        remaining -= share
    served["DRAM"] = remaining
    latency += remaining * float(target.dram.latency_ns) * 1e-9
    return latency, served


def classify(alu_s: float, traffic: MemoryTraffic, chains: LoadChains, resident_waves: float,
             target, active_cus: int) -> BoundResult:
    """Combine the ALU time, the memory times and the latency term into the verdict.

    ``resident_waves`` is the total over the units in use (occupancy x units).
    """
    levels = memory_times(traffic, target, active_cus)
    bottleneck = max(sorted(levels), key=lambda k: levels[k]) if levels else "DRAM"
    memory_s = levels.get(bottleneck, 0.0)
    throughput_s = max(alu_s, memory_s)
    lat, served = mean_load_latency_s(traffic, target)
    tpr = traffic.load_transactions / traffic.load_requests if traffic.load_requests else 0.0
    in_flight = resident_waves * max(chains.loads_in_flight, 1.0 if chains.loads_per_wave else 0.0) * tpr
    if traffic.load_transactions and in_flight > 0:
        latency_s = traffic.load_transactions * lat / in_flight
        needed = traffic.load_transactions / throughput_s * lat if throughput_s > 0 else float("inf")
    else:
        latency_s, needed = 0.0, 0.0
    times = {"alu": alu_s, "memory": memory_s, "latency": latency_s}
    verdict = max(VERDICTS, key=lambda v: (times[v], -VERDICTS.index(v)))
    evidence = {
        "alu_share": alu_s / max(times.values()) if max(times.values()) > 0 else 0.0,
        "memory_bottleneck": bottleneck,
        "mean_load_latency_ns": lat * 1e9,
        "load_served_by": dict(sorted(served.items())),
        "load_transactions": traffic.load_transactions,
        "load_transactions_per_request": tpr,
        "loads_per_wave": chains.loads_per_wave,
        "dependent_chain_per_wave": chains.chain_per_wave,
        "loads_in_flight_per_wave": chains.loads_in_flight,
        "resident_waves": resident_waves,
        "transactions_in_flight_available": in_flight,
        "transactions_in_flight_needed": needed if np.isfinite(needed) else None,
    }
    return BoundResult(verdict, max(times.values()), alu_s, memory_s, latency_s, levels, bottleneck,
                       evidence)
