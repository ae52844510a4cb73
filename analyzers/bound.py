"""The verdict: is a launch ALU-, memory- or latency-bound on a target, and how long does it take.

Three lower bounds on the launch's run time, each from one resource:

* **ALU**: the busiest compute unit's issue cycles over its usable issuers
  (:mod:`analyzers.alu`);
* **memory**: for every level that moves data, the bytes it moved over its
  bandwidth, or, for a level priced per request, its busy cycles (per-unit caches
  and local memory scale with the units in use; shared caches and DRAM do not);
  the slowest level is the memory time (:mod:`analyzers.timing`);
* **latency**: the busiest unit's work-groups passing through its resident slots
  (Little's law on the slots): each is dispatched, then lives as long as its
  waves' dependent load round trips (:mod:`analyzers.chains`) and a store
  acknowledgement; plus the target's fixed launch overhead (:mod:`analyzers.latency`).

The estimate T is the largest bound.  The verdict is Nsight Compute's
speed-of-light decision made over these estimates: the predicted utilisation of
the ALU (alu / T) and of each memory level (level / T); the busier of ALU and
the memory bottleneck if it reaches the threshold, otherwise ``latency``.
Counts come in already scaled to the whole launch when the trace recorded a
sample of work-groups.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from functools import cached_property

import numpy as np

from analyzers.chains import LoadChains
from analyzers.latency import SlotSchedule, dram_queue_s, latency_term, lines_per_request, loaded_latency
from analyzers.replay import MemoryTraffic
from analyzers.timing import Schedule, launch_costs, memory_times

VERDICTS = ("alu", "memory", "latency")
#: A resource counts as the bottleneck when the model predicts it busy for at least this share
#: of the launch time; below it on both ALU and memory the launch is latency-bound.  The value
#: is the one of Nsight Compute's SOLBottleneck rule (60 % of peak); a target may set its own
#: as ``launch.sol_threshold``.
SOL_THRESHOLD = 0.6


@dataclass(frozen=True)
class Evidence(Mapping):
    """The numbers behind a verdict, by name: what the report and the rules quote.

    A typed record, read as attributes; it is also a read-only mapping of the flat names the
    JSON document uses (:meth:`to_dict`), so a document and code see the same names.
    """

    verdict_margin: float | None     # the verdict's term over the runner-up's (None: the runner-up is 0)
    runner_up: str
    alu_share: float                 # ALU time over the launch time
    utilization: dict[str, float]    # busy share of the device's peak: "alu" and every memory level
    sol_threshold: float
    memory_bottleneck: str
    mean_load_latency_ns: float
    load_served_by: dict[str, float]  # share of load lookups each level (or DRAM) served
    load_transactions: float
    load_transactions_per_request: float
    loads_per_wave: float
    dependent_chain_per_wave: float
    dependent_chain_per_work_group: float
    dependent_chain_slowest_wave: float
    load_lines_per_request: float
    load_request_latency_ns: float
    fill_wait_lookups: dict[str, float]
    dram_busy_share: float
    dram_load_delay_ns: float
    loads_in_flight_per_wave: float
    resident_waves: float
    transactions_in_flight_available: float
    transactions_in_flight_needed: float | None   # None: no finite need (no loads in flight)
    littles_law_s: float
    lane_lookup_s_per_request: float
    launch_overhead_s: float
    atomic_queue_s: float
    dependent_issue_s: float
    wave_issue_s: float
    #: The walk through the resident slots; None when the verdict had no schedule.
    slots: SlotSchedule | None = None
    #: The launch's execution figures beside the verdict (set by :func:`analyzers.analyze.analyze_launch`).
    simd_utilization: float | None = None
    occupancy: float | None = None
    occupancy_limiting_factor: str | None = None
    active_compute_units: int | None = None

    #: Fields left out of the document while unset (the others are always written, None as null).
    _OPTIONAL = ("simd_utilization", "occupancy", "occupancy_limiting_factor", "active_compute_units")

    def to_dict(self) -> dict:
        """The flat names of the JSON document (the slot walk's fields at the top level)."""
        return dict(self._flat)

    @cached_property
    def _flat(self) -> dict:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "slots":
                if value is not None:
                    out.update(asdict(value))
            elif value is not None or f.name not in self._OPTIONAL:
                out[f.name] = dict(value) if isinstance(value, dict) else value
        return out

    def __getitem__(self, key: str):
        return self._flat[key]

    def __iter__(self):
        return iter(self._flat)

    def __len__(self) -> int:
        return len(self._flat)


@dataclass(frozen=True)
class BoundResult:
    verdict: str
    time_s: float
    alu_s: float
    memory_s: float
    latency_s: float
    memory_levels_s: dict[str, float]
    memory_bottleneck: str
    evidence: Evidence

    def time_estimates(self) -> dict:
        return {"total_s": self.time_s, "alu_s": self.alu_s, "memory_s": self.memory_s,
                "latency_s": self.latency_s, "memory_levels_s": dict(sorted(self.memory_levels_s.items())),
                "memory_bottleneck": self.memory_bottleneck}

    @property
    def utilization(self) -> dict[str, float]:
        """Predicted share of the launch time each resource is busy (``alu`` and every memory level)."""
        return dict(self.evidence.utilization)


def classify(alu_s: float, traffic: MemoryTraffic, chains: LoadChains, resident_waves: float,
             target, active_cus: int, schedule: Schedule | None = None, issue_s: float = 0.0,
             wave_issue_s: float = 0.0) -> BoundResult:
    """Combine the ALU time, the memory times and the latency term into the verdict.

    ``resident_waves`` is the total over the units in use (occupancy x units).
    With a ``schedule`` the latency term follows the work-groups through their
    slots (dispatch, dependent round trips, the last partial round); without one
    it is the transaction-level Little's-law figure alone.  ``issue_s`` is the ALU's
    time when every instruction waits for the one before (:func:`analyzers.alu.dependent_issue_s`):
    with too few waves to cover that wait the scheduler idles, which is latency too.
    """
    levels = memory_times(traffic, target, active_cus)
    bottleneck = max(sorted(levels), key=lambda k: levels[k]) if levels else "DRAM"
    memory_s = levels.get(bottleneck, 0.0)
    throughput_s = max(alu_s, memory_s)
    tpr = traffic.load_transactions / traffic.load_requests if traffic.load_requests else 0.0
    overhead_s, _, threshold = launch_costs(target)
    lt, dram_busy = loaded_latency(
        lambda q: latency_term(traffic, chains, resident_waves, target, schedule, throughput_s, tpr, q,
                                wave_issue_s),
        levels.get("DRAM", 0.0), throughput_s, target)
    # atomics queued on one line are a chain of updates, each waiting for the one before: a
    # serialisation with the units idle, which is latency in the speed-of-light sense
    atomic_s = traffic.atomic_cycles / (float(target.clock_mhz) * 1e6)
    latency_s = max(lt.latency_s, atomic_s, issue_s)
    time_s = max(alu_s, memory_s, latency_s)
    utilization = device_utilization(alu_s, levels, traffic, target, active_cus, time_s)
    verdict = sol_verdict(utilization["alu"], max(
        (v for k, v in utilization.items() if k != "alu"), default=0.0), threshold)
    margin, runner_up = verdict_margin(verdict, alu_s, memory_s, latency_s)
    evidence = Evidence(
        verdict_margin=margin, runner_up=runner_up, alu_share=alu_s / time_s if time_s > 0 else 0.0,
        utilization=utilization, sol_threshold=threshold, memory_bottleneck=bottleneck,
        mean_load_latency_ns=lt.mean_s * 1e9, load_served_by=dict(sorted(lt.served.items())),
        load_transactions=traffic.load_transactions, load_transactions_per_request=tpr,
        loads_per_wave=chains.loads_per_wave, dependent_chain_per_wave=chains.chain_per_wave,
        dependent_chain_per_work_group=chains.group_chain, dependent_chain_slowest_wave=chains.longest_chain,
        load_lines_per_request=lines_per_request(traffic), load_request_latency_ns=lt.request_s * 1e9,
        fill_wait_lookups=dict(sorted(traffic.fill_waits.items())), dram_busy_share=dram_busy,
        dram_load_delay_ns=dram_queue_s(target, dram_busy) * 1e9,
        loads_in_flight_per_wave=chains.loads_in_flight, resident_waves=resident_waves,
        transactions_in_flight_available=lt.in_flight,
        transactions_in_flight_needed=lt.needed if np.isfinite(lt.needed) else None,
        littles_law_s=lt.littles_s, lane_lookup_s_per_request=traffic.lookup_s_per_request,
        launch_overhead_s=overhead_s, atomic_queue_s=atomic_s, dependent_issue_s=issue_s,
        wave_issue_s=wave_issue_s, slots=lt.slots)
    return BoundResult(verdict, time_s, alu_s, memory_s, latency_s, levels, bottleneck, evidence)


def device_utilization(alu_s: float, levels: dict[str, float], traffic: MemoryTraffic, target,
                       active_cus: int, time_s: float) -> dict[str, float]:
    """Each resource's busy share of the launch, as a share of the whole device's peak.

    Speed of light compares a unit's throughput with the device's: the ALU and the
    per-unit levels of a grid that fills 16 of 132 compute units can be busy at most
    16/132 of the device's peak however hard those 16 work (Nsight Compute reports
    atax's row walk at 11 % of memory peak while its 16 L1s are nearly saturated).
    Shared levels and DRAM serve every unit, so their share is their time over T.  A level
    whose bandwidth is a sustained rate below its peak counts that share of it (``sustained_share``).
    """
    if time_s <= 0:
        return {"alu": 0.0, **{k: 0.0 for k in sorted(levels)}}
    spread = min(max(active_cus, 1) / max(int(target.compute_units), 1), 1.0)
    every = traffic.texture_levels + traffic.levels
    per_unit = {lvl.name for lvl in every if lvl.scope == "compute_unit"}
    per_unit.add("local_memory")
    share = {lvl.name: float(lvl.sustained_share or 1.0) for lvl in every}
    out = {"alu": alu_s * spread / time_s}
    out.update({k: v * (spread if k in per_unit else 1.0) * share.get(k, 1.0) / time_s
                for k, v in sorted(levels.items())})
    return out


def verdict_margin(verdict: str, alu_s: float, memory_s: float, latency_s: float) -> tuple[float | None, str]:
    """How clear the verdict is: its term's time over the largest other term's, and that term.

    ALU at 1.4 times the memory time reads as a clear call; a margin near 1 (or below
    it, when the speed-of-light threshold rather than the largest term decided) is a
    close one, and the report says so.
    """
    terms = {"alu": alu_s, "memory": memory_s, "latency": latency_s}
    mine = terms.pop(verdict)
    runner_up = max(sorted(terms), key=lambda k: terms[k])
    other = terms[runner_up]
    return (mine / other if other > 0 else None), runner_up


def sol_verdict(alu_utilization: float, memory_utilization: float, threshold: float = SOL_THRESHOLD) -> str:
    """Speed-of-light decision: the busier of ALU and memory if it reaches ``threshold``, else latency.

    The same rule as Nsight Compute's SOLBottleneck: a launch whose compute and
    memory throughput both stay below the threshold share of peak is waiting,
    not working.  A tie goes to ``alu``.
    """
    best = max(alu_utilization, memory_utilization)
    if best < threshold:
        return "latency"
    return "alu" if alu_utilization >= memory_utilization else "memory"
