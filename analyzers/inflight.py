"""Load requests that find their line still on its way, and the lines a load request touches.

The cache replay is untimed: a line is present from the moment the first request
that misses on it is replayed.  On a GPU the waves of a work-group, and the
work-groups of one round, issue the same iteration of their loads at about the
same time, so a wave that "hits" a line another wave has just asked for waits
for that line's fill like the first one (the miss-status holding registers merge
the requests; none of them is served at hit latency).  Where the replay can tell
this is where the line's fill started: every line (cache unit) a launch touches
is fetched from DRAM the first time a load touches it (caches start empty), so a
load that touches it at the same *step* as that first load waits for DRAM.  A
step is a round of work-groups (:func:`analyzers.waves.schedule`) and the
occurrence of the load's site in its wave (the loop iteration: the latency model
takes repeats of a site as dependent, so iteration k + 1 issues after iteration
k's data is back, while the loads of one iteration go out together).  Hits on
lines first fetched at an earlier step are left as hits; lines brought in again
after an eviction are not followed.

It also counts the distinct cache lines of every load request: a request waits
for its slowest line, and DRAM latency grows with the lines a request scatters
over (analyzers/bound.py).

:class:`FillTracker` is fed every chunk of a launch's replay in execution order
(``analyzers.memory``); its :meth:`~FillTracker.counts` are recorded counts,
scaled to the launch like the replay's other counts.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

_KEY = types.int64


@njit(cache=True)
def occurrences(req_wave, rq_site, max_site):
    """Per request: how many earlier requests of its wave were of the same site (its iteration)."""
    n = req_wave.shape[0]
    occ = np.zeros(n, np.int64)
    count = np.zeros(max_site + 1, np.int64)
    start = 0
    for r in range(n + 1):
        if r == n or (r > start and req_wave[r] != req_wave[start]):
            for q in range(start, r):  # reset the counters the wave used
                count[rq_site[q]] = 0
            start = r
        if r == n:
            break
        s = rq_site[r]
        occ[r] = count[s]
        count[s] += 1
    return occ


@njit(cache=True)
def _scan(ex, is_load, units, unit_ptr, cu_of_req, step, line_shift, seen, out):
    """Walk the load requests in execution order; ``out`` += [requests, lines, waits on the same
    compute unit, waits on another compute unit]."""
    for q in range(ex.shape[0]):
        r = ex[q]
        if not is_load[r]:
            continue
        out[0] += 1
        last = np.int64(-1)
        cu = cu_of_req[r]
        st = step[r]
        for k in range(unit_ptr[r], unit_ptr[r + 1]):
            u = units[k]
            line = u >> line_shift
            if line != last:
                out[1] += 1
                last = line
            v = seen.get(u, np.int64(-1))
            if v < 0:
                seen[u] = (st << 16) | cu
            elif (v >> 16) == st:
                if (v & 0xFFFF) == cu:
                    out[2] += 1
                else:
                    out[3] += 1


class FillTracker:
    """One launch's load requests: lines per request and lookups that wait for a fill in flight."""

    def __init__(self, line_bytes: int, compute_units: int):
        self.line_shift = int(line_bytes).bit_length() - 1
        self.compute_units = max(1, int(compute_units))
        self._seen = Dict.empty(key_type=_KEY, value_type=_KEY)
        self._out = np.zeros(4, np.int64)

    def add(self, ex, is_load, units, unit_ptr, cu_of_req, req_wave, wave_vgroup, rq_site) -> None:
        """One chunk: requests in execution order ``ex``; ``units``/``unit_ptr`` the cache units of
        each request (ascending), ``wave_vgroup`` the (launch-wide) virtual group of each wave."""
        if not is_load.any():
            return
        occ = occurrences(req_wave, rq_site, int(rq_site.max()) if rq_site.size else 0)
        rnd = wave_vgroup[req_wave] // self.compute_units
        step = (rnd << 24) | np.minimum(occ, (1 << 24) - 1)
        _scan(ex, is_load, units, unit_ptr, cu_of_req.astype(np.int64), step.astype(np.int64),
              self.line_shift, self._seen, self._out)

    def counts(self) -> dict[str, int]:
        """Recorded counts: load requests, their distinct lines, and the unit lookups that found
        their line still being filled from DRAM, by the same compute unit (a first-level hit in
        the replay) or by another (a hit in the first shared level)."""
        req, lines, same, other = (int(x) for x in self._out)
        return {"load_requests": req, "load_lines": lines, "fill_waits_same_unit": same,
                "fill_waits_other_unit": other}
