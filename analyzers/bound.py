"""The verdict: is a launch ALU-, memory- or latency-bound on a target, and how long does it take.

Three lower bounds on the launch's run time, each from one resource:

* **ALU**: the busiest compute unit's issue cycles over its usable issuers
  (:mod:`analyzers.alu`);
* **memory**: for every level that moves data, the bytes it moved over its
  bandwidth, or, for a level priced per request, its busy cycles (per-unit caches
  and local memory scale with the units in use; shared caches and DRAM do not);
  the slowest level is the memory time;
* **latency**: the busiest unit's work-groups passing through its resident slots
  (Little's law on the slots): each is dispatched, then lives as long as its
  waves' dependent load round trips and a store acknowledgement; plus the
  target's fixed launch overhead.

The estimate T is the largest bound.  The verdict is Nsight Compute's
speed-of-light decision made over these estimates: the predicted utilisation of
the ALU (alu / T) and of each memory level (level / T); the busier of ALU and
the memory bottleneck if it reaches the threshold, otherwise ``latency``.
Counts come in already scaled to the whole launch when the trace recorded a
sample of work-groups.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

VERDICTS = ("alu", "memory", "latency")
#: A resource counts as the bottleneck when the model predicts it busy for at least this share
#: of the launch time; below it on both ALU and memory the launch is latency-bound.  The value
#: is the one of Nsight Compute's SOLBottleneck rule (60 % of peak); a target may set its own
#: as ``launch.sol_threshold``.
SOL_THRESHOLD = 0.6


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
    #: request waits for the slowest of its lines (:mod:`analyzers.inflight`).
    load_lines: float = 0.0
    #: Per cache level: load lookups the replay counted as hits on a line still being filled
    #: from DRAM.  They wait for the fill, so the latency term serves them at DRAM latency.
    fill_waits: dict = field(default_factory=dict)
    #: Cycles of the line busiest with atomic updates (:mod:`analyzers.atomics`), whole launch;
    #: 0 where the target does not model the queue.
    atomic_cycles: float = 0.0
    #: Load requests by the farthest level one of their lines came from (level name or "DRAM";
    #: a line still being filled counts as DRAM), and the distinct lines each such request took
    #: from that level, summed (:mod:`analyzers.inflight`).  Empty: not tallied, and a request's
    #: lines are taken as independent draws from the levels' hit rates.
    depth_requests: dict = field(default_factory=dict)
    depth_lines: dict = field(default_factory=dict)


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


@dataclass(frozen=True)
class Schedule:
    """How a launch's work-groups (packed tasks on packing targets) spread over the units in use."""

    work_groups_per_unit: int      # on the busiest unit: ceil(work-groups / units in use)
    resident_work_groups: int      # resident on one unit at once (occupancy)


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

    @property
    def utilization(self) -> dict[str, float]:
        """Predicted share of the launch time each resource is busy (``alu`` and every memory level)."""
        return dict(self.evidence.get("utilization", {}))


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


def texture_path_s(traffic: MemoryTraffic, target) -> float:
    """Seconds the texture pipeline adds, on average, to a load the data levels serve.

    An image read that misses every texture level has gone through the texture
    pipeline before a data level (or DRAM) serves it, so it pays those levels' latency
    on top of the data level's own; buffer loads do not.  The mean over the loads the
    data levels see is that sum weighted by the image reads' share of them.  ArchProbe's
    image chase on the Adreno 640 (tests/data/mobile/archprobe): 130 ns a texture-L1
    hit, about 250 ns an L2 hit through the texture path, 113 ns a buffer load's L2 hit.
    """
    tex = traffic.texture_levels
    if not tex or not tex[0].load_accesses:
        return 0.0
    fills = max(tex[-1].load_accesses - tex[-1].load_hits, 0.0)
    first = traffic.levels[0].load_accesses if traffic.levels else 0.0
    data_lookups = fills + max(first - fills, 0.0)
    if data_lookups <= 0:
        return 0.0
    return fills / data_lookups * sum(lvl.latency_cycles for lvl in tex) / (float(target.clock_mhz) * 1e6)


def mean_load_latency_s(traffic: MemoryTraffic, target,
                        queue_s: float = 0.0) -> tuple[float, dict[str, float]]:
    """Average latency of a load transaction, from where the replay found its data.

    Walking the levels nearest first, a level serves its hit rate of what reached
    it; DRAM serves the rest.  A level's latency is the whole load-to-use time
    when it hits.  Texture-cache hits come first, as their share of all load
    lookups (texture lookups and the buffer loads that reached the data levels).
    """
    clock_hz = float(target.clock_mhz) * 1e6
    remaining, latency, served = 1.0, 0.0, {}
    tex = traffic.texture_levels
    if tex and tex[0].load_accesses:
        fills = tex[-1].load_accesses - tex[-1].load_hits
        first = traffic.levels[0].load_accesses if traffic.levels else 0.0
        lookups = tex[0].load_accesses + max(first - fills, 0.0)
        for lvl in tex:
            share = lvl.load_hits / lookups
            served[lvl.name] = share
            latency += share * lvl.latency_cycles / clock_hz
            remaining -= share
        latency += remaining * texture_path_s(traffic, target)
    waited = 0.0
    for lvl in traffic.levels:
        rate = lvl.load_hits / lvl.load_accesses if lvl.load_accesses else 0.0
        # hits on a line still being filled from DRAM wait for the fill (analyzers/inflight.py)
        wait = min(traffic.fill_waits.get(lvl.name, 0.0), lvl.load_hits) / lvl.load_accesses \
            if lvl.load_accesses else 0.0
        share = remaining * (rate - wait)
        served[lvl.name] = share
        latency += share * lvl.latency_cycles / clock_hz
        waited += remaining * wait
        remaining -= remaining * rate
    served["DRAM"] = remaining + waited
    latency += served["DRAM"] * (float(target.dram.latency_ns) * 1e-9 + queue_s)
    return latency, served


def lines_per_request(traffic: MemoryTraffic) -> float:
    """Distinct lines a load request touches (transactions where the replay did not count lines)."""
    if traffic.load_lines and traffic.load_requests:
        return traffic.load_lines / traffic.load_requests
    return traffic.load_transactions / traffic.load_requests if traffic.load_requests else 0.0


def latency_tails(traffic: MemoryTraffic, target) -> dict[str, float]:
    """Seconds of each level's exponential latency tail (``latency_tail_cycles`` / ``_ns``)."""
    clock_hz = float(target.clock_mhz) * 1e6
    tails = {c.name: float(getattr(c, "latency_tail_cycles", 0.0) or 0.0) / clock_hz for c in target.caches}
    tails["DRAM"] = float(getattr(target.dram, "latency_tail_ns", 0.0) or 0.0) * 1e-9
    return {lvl.name: tails.get(lvl.name, 0.0) for lvl in traffic.texture_levels + traffic.levels} | \
        {"DRAM": tails["DRAM"]}


def slowest_of(lines: float, sectors_per_line: float, near: list[tuple[float, float, float]],
               dram: tuple[float, float, float]) -> float:
    """Expected latency of a request of ``lines`` lines of ``sectors_per_line`` transactions each.

    Every transaction is served by a cache level with probability share_i, or by
    DRAM; ``near`` holds (share, base, tail) of the cache levels, ``dram`` DRAM's.
    A level's latency is base plus an exponential part of mean tail (0: fixed).
    Cache hits draw their latency per transaction; the transactions of one line that
    go to DRAM come in one fetch and share one draw.  With a(t) the probability that
    a transaction is a cache hit done by t, d the DRAM share and G DRAM's latency
    distribution, a line of m transactions is done by t with probability
    a^m + ((a + d)^m - a^m) G(t); the request waits for all its lines, and
    E[latency] is the integral over t of 1 - P(done by t).
    """
    d, d_base, d_tail = dram
    top = max([b + 40.0 * tl for sh, b, tl in near if sh > 0] + [d_base + 40.0 * d_tail])
    t = np.linspace(0.0, max(top, 1e-12), 8001)

    def cdf(base: float, tail: float) -> np.ndarray:
        if tail <= 0:
            return (t >= base).astype(float)
        return 1.0 - np.exp(-np.clip(t - base, 0.0, None) / tail)

    a = np.zeros_like(t)
    for sh, base, tail in near:
        if sh > 0:
            a += sh * cdf(base, tail)
    m = max(sectors_per_line, 1.0)
    line = a ** m + (np.clip(a + d, 0.0, 1.0) ** m - a ** m) * (cdf(d_base, d_tail) if d > 0 else 0.0)
    y = 1.0 - np.clip(line, 0.0, 1.0) ** max(lines, 1.0)
    return float(np.sum((y[1:] + y[:-1]) * np.diff(t)) / 2.0)


def request_latency_s(traffic: MemoryTraffic, target, transactions_per_request: float,
                      queue_s: float = 0.0) -> float:
    """Expected latency of a whole load request: a wave waits for its slowest transaction.

    With ``c_i`` the share of transactions served at level ``i`` or nearer and ``k``
    transactions per request (taken as independent), the request is done at level
    ``i`` with probability ``c_i^k - c_(i-1)^k``.  Where a level's latency has an
    exponential tail (the H200's DRAM: 315 ns for one line, 585 ns for the slowest
    of 32, ``tests/data/h200_real/chase_lines.csv``), the request's transactions are
    grouped into its distinct lines, each line's DRAM transactions sharing one fetch,
    and the expectation is taken over the latency distributions (:func:`slowest_of`).
    ``queue_s`` is the delay DRAM adds under load (:func:`dram_queue_s`).
    """
    clock_hz = float(target.clock_mhz) * 1e6
    k = max(transactions_per_request, 1.0)
    levels = traffic.texture_levels + traffic.levels
    via_texture = texture_path_s(traffic, target)
    lat = {lvl.name: lvl.latency_cycles / clock_hz for lvl in traffic.texture_levels}
    lat |= {lvl.name: lvl.latency_cycles / clock_hz + via_texture for lvl in traffic.levels}
    lat["DRAM"] = float(target.dram.latency_ns) * 1e-9 + queue_s + via_texture
    tails = latency_tails(traffic, target)
    if traffic.depth_requests:
        return depth_latency_s(traffic, lat, tails)
    _, served = mean_load_latency_s(traffic, target)
    names = [lvl.name for lvl in levels]
    if any(tails.get(n, 0.0) > 0 for n in names + ["DRAM"]):
        lines = min(max(lines_per_request(traffic), 1.0), k)
        return slowest_of(lines, k / lines,
                          [(served.get(n, 0.0), lat[n] - tails[n], tails[n]) for n in names],
                          (served.get("DRAM", 0.0), lat["DRAM"] - tails["DRAM"], tails["DRAM"]))
    total, cum, prev = 0.0, 0.0, 0.0
    for name in names + ["DRAM"]:
        cum = min(cum + served.get(name, 0.0), 1.0)
        done = 1.0 if name == "DRAM" else cum ** k
        total += (done - prev) * lat[name]
        prev = done
    return total


def depth_latency_s(traffic: MemoryTraffic, lat: dict[str, float], tails: dict[str, float]) -> float:
    """Expected latency of a load request from the replay's tally of where each request's data came from.

    Misses are not independent draws: the lanes of a wave that walk rows in step
    all cross into new lines on the same iteration, so one request in eight waits
    for DRAM on every lane while the other seven hit (the independent-draw formula
    would make nearly every request wait for DRAM).  Each request waits for the
    farthest level one of its lines came from; where that level's latency has an
    exponential tail, for the slowest of the lines it took from there.
    """
    total = sum(traffic.depth_requests.values())
    if total <= 0:
        return 0.0
    out = 0.0
    for name, n in traffic.depth_requests.items():
        if n <= 0 or name not in lat:
            continue
        tail = tails.get(name, 0.0)
        wait = lat[name]
        if tail > 0:
            lines = max(traffic.depth_lines.get(name, n) / n, 1.0)
            wait = slowest_of(lines, 1.0, [], (1.0, lat[name] - tail, tail))
        out += n / total * wait
    return out


def store_ack_latency_s(target) -> float:
    """Round trip of a store: to the nearest write-back cache level (it takes the data), else DRAM.

    A wave's slot is released only once its stores are acknowledged (GPGPU-Sim
    models the same: shd_warp_t::hardware_done waits for stores_done).
    """
    clock_hz = float(target.clock_mhz) * 1e6
    for lvl in target.caches:
        if lvl.write_policy == "write_back":
            return float(lvl.latency_cycles) / clock_hz
    return float(target.dram.latency_ns) * 1e-9


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


@dataclass(frozen=True)
class _Latency:
    """The latency term at one DRAM queueing delay."""

    latency_s: float
    mean_s: float
    served: dict
    littles_s: float
    needed: float
    in_flight: float
    request_s: float
    lifetime_s: float
    longest_s: float
    sched: dict


def dram_queue_s(target, busy: float) -> float:
    """Delay a DRAM access gains over ``dram.latency_ns`` when DRAM is busy ``busy`` of the time.

    A lone load waits ``latency_ns``; in a launch that streams lines from DRAM every
    access waits ``loaded_latency_ns`` (the H200's copies: 555-575 ns per line at
    25 % and 42 % of peak bandwidth alike).  In between the delay rises as
    1 - exp(-busy / loaded_busy_share), so it is nearly all there once DRAM is busy
    a few times ``loaded_busy_share``.  Targets without ``loaded_latency_ns`` add none.
    """
    d = target.dram
    loaded = float(getattr(d, "loaded_latency_ns", 0.0) or 0.0)
    share = float(getattr(d, "loaded_busy_share", 0.0) or 0.0)
    if loaded <= d.latency_ns or share <= 0:
        return 0.0
    return (loaded - float(d.latency_ns)) * 1e-9 * (1.0 - float(np.exp(-max(busy, 0.0) / share)))


def _latency_term(traffic: MemoryTraffic, chains: LoadChains, resident_waves: float, target,
                  schedule: Schedule | None, throughput_s: float, tpr: float, queue_s: float,
                  wave_issue_s: float = 0.0) -> _Latency:
    lat, served = mean_load_latency_s(traffic, target, queue_s)
    in_flight = resident_waves * max(chains.loads_in_flight, 1.0 if chains.loads_per_wave else 0.0) * tpr
    if traffic.load_transactions and in_flight > 0:
        littles_s = traffic.load_transactions * lat / in_flight
        needed = traffic.load_transactions / throughput_s * lat if throughput_s > 0 else float("inf")
    else:
        littles_s, needed = 0.0, 0.0
    overhead_s, dispatch_s, _ = launch_costs(target)
    lifetime_s = longest_s = request_s = 0.0
    if traffic.load_transactions:
        request_s = request_latency_s(traffic, target, tpr, queue_s)
        lifetime_s = chains.group_chain * (request_s + traffic.lookup_s_per_request)
        longest_s = chains.longest_chain * (request_s + traffic.lookup_s_per_request)
    if chains.stores_per_wave:
        lifetime_s += store_ack_latency_s(target)
        longest_s += store_ack_latency_s(target)
    # a wave cannot finish before it has issued its own instructions, each waiting for the last
    lifetime_s += wave_issue_s
    longest_s += wave_issue_s
    sched = {}
    if schedule is not None:
        slots_s, rounds = schedule_time(schedule, lifetime_s, dispatch_s, longest_s)
        latency_s = overhead_s + slots_s
        sched = {"work_groups_per_unit": schedule.work_groups_per_unit,
                 "resident_work_groups_per_unit": schedule.resident_work_groups, "rounds": rounds,
                 "work_group_dispatch_s": dispatch_s, "wave_lifetime_s": lifetime_s,
                 "slowest_wave_lifetime_s": longest_s}
    else:
        latency_s = overhead_s + littles_s
    return _Latency(latency_s, lat, served, littles_s, needed, in_flight, request_s, lifetime_s, longest_s,
                    sched)


def loaded_latency(term, dram_s: float, throughput_s: float, target) -> tuple[_Latency, float]:
    """The latency term at the DRAM load it implies, and that load (busy share of DRAM).

    The launch time T is the largest of the three terms and DRAM is busy dram_s / T
    of it; the latency term grows with that share (:func:`dram_queue_s`) and T with
    it.  T = max(throughput, latency(dram_s / T)) has one solution (the latency term
    falls as T grows), found by bisection.  Targets without ``dram.loaded_latency_ns``
    keep the unloaded latencies.
    """
    idle = term(0.0)
    if not dram_s or not dram_queue_s(target, 1.0):
        return idle, 0.0
    lo = max(throughput_s, dram_s / 0.99, 1e-12)
    at_lo = term(dram_queue_s(target, dram_s / lo))
    if at_lo.latency_s <= lo:
        return at_lo, dram_s / lo
    hi = at_lo.latency_s
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if term(dram_queue_s(target, dram_s / mid)).latency_s > mid:
            lo = mid
        else:
            hi = mid
    return term(dram_queue_s(target, dram_s / hi)), dram_s / hi


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
        lambda q: _latency_term(traffic, chains, resident_waves, target, schedule, throughput_s, tpr, q,
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
    evidence = {
        "verdict_margin": margin,
        "runner_up": runner_up,
        "alu_share": alu_s / time_s if time_s > 0 else 0.0,
        "utilization": utilization,
        "sol_threshold": threshold,
        "memory_bottleneck": bottleneck,
        "mean_load_latency_ns": lt.mean_s * 1e9,
        "load_served_by": dict(sorted(lt.served.items())),
        "load_transactions": traffic.load_transactions,
        "load_transactions_per_request": tpr,
        "loads_per_wave": chains.loads_per_wave,
        "dependent_chain_per_wave": chains.chain_per_wave,
        "dependent_chain_per_work_group": chains.group_chain,
        "dependent_chain_slowest_wave": chains.longest_chain,
        "load_lines_per_request": lines_per_request(traffic),
        "load_request_latency_ns": lt.request_s * 1e9,
        "fill_wait_lookups": dict(sorted(traffic.fill_waits.items())),
        "dram_busy_share": dram_busy,
        "dram_load_delay_ns": dram_queue_s(target, dram_busy) * 1e9,
        "loads_in_flight_per_wave": chains.loads_in_flight,
        "resident_waves": resident_waves,
        "transactions_in_flight_available": lt.in_flight,
        "transactions_in_flight_needed": lt.needed if np.isfinite(lt.needed) else None,
        "littles_law_s": lt.littles_s,
        "lane_lookup_s_per_request": traffic.lookup_s_per_request,
        "launch_overhead_s": overhead_s,
        "atomic_queue_s": atomic_s,
        "dependent_issue_s": issue_s,
        "wave_issue_s": wave_issue_s,
        **lt.sched,
    }
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
