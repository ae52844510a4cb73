"""What the memory replay hands to the time model: the traffic of one launch, typed.

These are the engine's results at the edge of the package: every field is a whole-launch
count (already scaled when the trace recorded a sample of work-groups), so the latency
model, the time model and the verdict read them without knowing how the replay ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    #: Cycles the level is busy (summed over its instances), for a level priced per request
    #: (``cost_unit = "request"``); None: its bytes at its bandwidth.
    busy_cycles: float | None = None
    #: Of ``bytes``, those of stores, and the bandwidth they move at (0: ``bandwidth_bytes_per_cycle``).
    store_bytes: float = 0.0
    store_bandwidth_bytes_per_cycle: float = 0.0
    #: Share of the level's peak its bandwidths sustain (the verdict measures against the peak).
    sustained_share: float = 1.0


@dataclass(frozen=True)
class MemoryTraffic:
    """The memory replay's numbers the time model needs (whole-launch counts)."""

    levels: tuple[LevelTraffic, ...]
    dram_bytes: float
    load_requests: float       # SIMD requests of global/constant/image loads
    load_transactions: float
    local_cycles: float = 0.0  # local-memory cycles summed over the work-groups
    #: Of ``dram_bytes``, those written back (dirty data, including what the end-of-launch
    #: flush wrote); used to keep what a write-back last level still holds off the launch's time.
    dram_bytes_written: float = 0.0
    #: The texture caches image reads passed through, nearest first (their misses are loads of
    #: ``levels[0]``); per-unit scope, bandwidth per compute unit.
    texture_levels: tuple[LevelTraffic, ...] = ()
    #: Seconds a load request spends on lane-by-lane lookups beyond one per distinct line, on
    #: targets that look each lane up (``cache_lookup = "lane"``, PowerVR): the "fifteen hits"
    #: after the miss.  Part of a wave's lifetime; 0 elsewhere.
    lookup_s_per_request: float = 0.0
    #: Distinct cache lines over the load requests (0: not counted, transactions stand in): a
    #: request waits for the slowest of its lines (:mod:`analyzers.replay.inflight`).
    load_lines: float = 0.0
    #: Per cache level: load lookups the replay counted as hits on a line still being filled
    #: from DRAM.  They wait for the fill, so the latency term serves them at DRAM latency.
    fill_waits: dict = field(default_factory=dict)
    #: Cycles of the line busiest with atomic updates (:mod:`analyzers.replay.atomics`), whole launch;
    #: 0 where the target does not model the queue.
    atomic_cycles: float = 0.0
    #: Load requests by the farthest level one of their lines came from (level name or "DRAM";
    #: a line still being filled counts as DRAM), and the distinct lines each such request took
    #: from that level, summed (:mod:`analyzers.replay.inflight`).  Empty: not tallied, and a request's
    #: lines are taken as independent draws from the levels' hit rates.
    depth_requests: dict = field(default_factory=dict)
    depth_lines: dict = field(default_factory=dict)
