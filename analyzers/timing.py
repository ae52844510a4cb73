"""The time model's bandwidth and schedule parts: seconds each memory level needs for its
traffic, the fixed cost of a launch, and how many rounds of work-groups the busiest compute
unit runs through its resident slots.
"""

from __future__ import annotations

from dataclasses import dataclass

from analyzers.replay import MemoryTraffic


@dataclass(frozen=True)
class Schedule:
    """How a launch's work-groups (packed tasks on packing targets) spread over the units in use."""

    work_groups_per_unit: int      # on the busiest unit: ceil(work-groups / units in use)
    resident_work_groups: int      # resident on one unit at once (occupancy)


def memory_times(traffic: MemoryTraffic, target, active_cus: int) -> dict[str, float]:
    """Seconds each level needs to move its bytes at its bandwidth."""
    clock_hz = float(target.clock_mhz) * 1e6
    out: dict[str, float] = {}
    for lvl in traffic.texture_levels + traffic.levels:
        instances = active_cus if lvl.scope == "compute_unit" else 1
        if lvl.busy_cycles is not None:  # priced per request: its busy cycles, spread over its instances
            out[lvl.name] = lvl.busy_cycles / (max(instances, 1) * clock_hz)
            continue
        if lvl.bandwidth_bytes_per_cycle <= 0:
            continue
        cycles = lvl.bytes / lvl.bandwidth_bytes_per_cycle
        if lvl.store_bandwidth_bytes_per_cycle > 0 and lvl.store_bytes > 0:
            # stores at their own rate (the H200's L2 takes stores at half its load rate)
            cycles += lvl.store_bytes * (1.0 / lvl.store_bandwidth_bytes_per_cycle
                                         - 1.0 / lvl.bandwidth_bytes_per_cycle)
        out[lvl.name] = cycles / (max(instances, 1) * clock_hz)
    dram = traffic.dram_bytes - resident_dirty_bytes(traffic, target)
    out["DRAM"] = dram / (float(target.dram.bandwidth_gb_per_s) * 1e9)
    if traffic.local_cycles:
        out["local_memory"] = traffic.local_cycles / max(active_cus, 1) / clock_hz
    return out


def resident_dirty_bytes(traffic: MemoryTraffic, target) -> float:
    """Dirty bytes the last cache level still holds when the launch ends (written back later).

    The replay flushes every dirty line at the end of a launch; a write-back last
    level keeps up to its share of the launch's traffic, so that much of the
    write-back happens after the launch.  Under LRU the level holds the most recent
    ``size`` bytes of mixed traffic, of which writes are their share of DRAM bytes.
    """
    last = target.caches[-1] if target.caches else None
    written = traffic.dram_bytes_written
    if last is None or last.write_policy != "write_back" or written <= 0 or traffic.dram_bytes <= 0:
        return 0.0
    return min(written, float(last.size_bytes) * written / traffic.dram_bytes)


def launch_costs(target) -> tuple[float, float, float]:
    """The target's fixed launch overhead (s), work-group dispatch time (s) and SOL threshold."""
    clock_hz = float(target.clock_mhz) * 1e6
    launch = target.launch
    return (float(launch.overhead_ns) * 1e-9, float(launch.work_group_dispatch_cycles) / clock_hz,
            float(launch.sol_threshold))


def schedule_time(schedule: Schedule, lifetime_s: float, dispatch_s: float,
                  longest_s: float | None = None) -> tuple[float, int]:
    """Time the busiest unit needs to run its work-groups when no throughput limit binds.

    Two lower bounds, the larger wins: the unit's dispatcher starts its G
    work-groups one after another and the last one still lives as long as the
    slowest (``G x dispatch + longest``); and each of its S slots hosts ceil(G / S)
    work-groups in turn, each dispatched and then living its lifetime, the time
    of its slowest wave (Little's law on the slots; the ceiling is the tail of a
    partly filled last round).
    """
    g = max(int(schedule.work_groups_per_unit), 0)
    s = max(int(schedule.resident_work_groups), 1)
    rounds = -(-g // s)
    longest = lifetime_s if longest_s is None else max(longest_s, lifetime_s)
    return max(g * dispatch_s + longest, rounds * (dispatch_s + lifetime_s)) if g else 0.0, rounds
