"""The latency model: how long a wave's loads and stores wait, and how many of them overlap.

A load request waits for the slowest of its lines, each from the level that served it
(:func:`request_latency_s`); image reads add the texture path; DRAM queueing grows with the
bandwidth the launch keeps busy (:func:`dram_queue_s`).  The latency bound of the verdict
is the busiest unit's work-groups passing through its resident slots, each living as long
as its waves' dependent round trips (:func:`latency_term`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analyzers.chains import LoadChains
from analyzers.replay import MemoryTraffic
from analyzers.timing import Schedule, launch_costs, schedule_time


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
        # hits on a line still being filled from DRAM wait for the fill (analyzers/replay/inflight.py)
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


@dataclass(frozen=True)
class SlotSchedule:
    """The latency term's walk of the busiest unit's work-groups through their resident slots."""

    work_groups_per_unit: int
    resident_work_groups_per_unit: int
    rounds: int
    work_group_dispatch_s: float
    wave_lifetime_s: float
    slowest_wave_lifetime_s: float


@dataclass(frozen=True)
class Latency:
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
    #: How the work-groups pass through their slots; None without a schedule (Little's law alone).
    slots: SlotSchedule | None


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


def latency_term(traffic: MemoryTraffic, chains: LoadChains, resident_waves: float, target,
                  schedule: Schedule | None, throughput_s: float, tpr: float, queue_s: float,
                  wave_issue_s: float = 0.0) -> Latency:
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
    slots = None
    if schedule is not None:
        slots_s, rounds = schedule_time(schedule, lifetime_s, dispatch_s, longest_s)
        latency_s = overhead_s + slots_s
        slots = SlotSchedule(schedule.work_groups_per_unit, schedule.resident_work_groups, rounds, dispatch_s,
                             lifetime_s, longest_s)
    else:
        latency_s = overhead_s + littles_s
    return Latency(latency_s, lat, served, littles_s, needed, in_flight, request_s, lifetime_s, longest_s,
                   slots)


def loaded_latency(term, dram_s: float, throughput_s: float, target) -> tuple[Latency, float]:
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
