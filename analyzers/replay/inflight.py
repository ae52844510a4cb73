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
step is a round of work-groups (:func:`analyzers.replay.waves.schedule`) and the
occurrence of the load's site in its wave (the loop iteration: the latency model
takes repeats of a site as dependent, so iteration k + 1 issues after iteration
k's data is back, while the loads of one iteration go out together).  Hits on
lines first fetched at an earlier step are left as hits; lines brought in again
after an eviction are not followed.

It also counts the distinct cache lines of every load request: a request waits
for its slowest line, and DRAM latency grows with the lines a request scatters
over (analyzers/latency.py).

:class:`FillTracker` is fed every chunk of a launch's replay in execution order
(``analyzers.replay.memory``); its :meth:`~FillTracker.counts` are recorded counts,
scaled to the launch like the replay's other counts.
"""

from __future__ import annotations

import numpy as np
from numba import njit


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
def _slot(keys, u):
    """Where unit ``u`` is, or goes, in the open-addressing table ``keys`` (-1: empty slot)."""
    mask = keys.shape[0] - 1
    h = (u * 0x9E3779B97F4A7C15) & mask
    while keys[h] != -1 and keys[h] != u:
        h = (h + 1) & mask
    return h


@njit(cache=True)
def _rehash_seen(keys, values, new_keys, new_values):
    for h in range(keys.shape[0]):
        if keys[h] != -1:
            p = _slot(new_keys, keys[h])
            new_keys[p] = keys[h]
            new_values[p] = values[h]


@njit(cache=True)
def _scan(ex, is_load, units, unit_ptr, cu_of_req, step, line_shift, keys, values, used, out, req_wait):
    """Walk the load requests in execution order; ``out`` += [requests, lines, waits on the same
    compute unit, waits on another compute unit]; ``req_wait[r]`` = 1 where request ``r`` has a
    unit that waits for a fill.  ``keys``/``values`` is the table of units seen (the step and
    compute unit of each one's first load), ``used[0]`` its entries.  Returns how many requests
    of ``ex`` were walked: fewer than all when the table must grow first (at most half full)."""
    cap = keys.shape[0]
    for q in range(ex.shape[0]):
        r = ex[q]
        if not is_load[r]:
            continue
        if 2 * (used[0] + unit_ptr[r + 1] - unit_ptr[r]) > cap:
            return q
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
            h = _slot(keys, u)
            if keys[h] != u:
                keys[h] = u
                values[h] = (st << 16) | cu
                used[0] += 1
                continue
            v = values[h]
            if (v >> 16) == st:
                req_wait[r] = 1
                if (v & 0xFFFF) == cu:
                    out[2] += 1
                else:
                    out[3] += 1
    return ex.shape[0]


@njit(cache=True)
def _depths(ex, is_mem, is_load, count, base, shift, stream_units, depth, req_wait, line_shift, dram, far_out,
            lines_out):
    """Per load request ``r`` (execution order ``ex``; the stream holds ``count[r]`` units of
    each memory request in that order): ``far_out[0, r]`` the farthest level its units came
    from (``shift`` + the data level; a texture read served by the texture caches alone, its
    farthest texture level ``base[r]``) and ``lines_out[0, r]`` its distinct lines from that
    level; row 1 the same with a request that waited for a fill taken as served by ``dram``.
    Other requests keep -1."""
    k = 0
    for q in range(ex.shape[0]):
        r = ex[q]
        if not is_mem[r]:
            continue
        lo = k
        k += count[r]
        if not is_load[r]:
            continue
        far = np.int64(-1)
        for j in range(lo, k):
            if depth[j] > far:
                far = depth[j]
        texture_only = far < 0 and base[r] >= 0 and k == lo
        if far < 0 and not texture_only:
            continue  # entered below the first level (not a load of this walk)
        waited = req_wait[r] != 0 and not texture_only
        for row in range(2):
            if texture_only:
                far_out[row, r] = base[r]
                lines_out[row, r] = 1
                continue
            top = dram if (row == 1 and waited) else far
            n = np.int64(0)
            last = np.int64(-1)
            for j in range(lo, k):
                if depth[j] == top or (row == 1 and waited and depth[j] >= 0):
                    line = stream_units[j] >> line_shift
                    if line != last:
                        n += 1
                        last = line
            far_out[row, r] = shift + top
            lines_out[row, r] = max(n, np.int64(1))


@njit(cache=True)
def _sorted_step_depths(key, srt, far, lines, steps, step_lines):
    """:func:`step_depths` of one row, from the requests' step keys and an order ``srt`` that
    sorts them: each step adds 1 to ``steps`` and its lines to ``step_lines`` at its farthest
    level (the lines of its requests that reached it)."""
    i = 0
    n = srt.shape[0]
    while i < n:
        k = key[srt[i]]
        top = np.int64(-1)
        total = np.int64(0)
        j = i
        while j < n and key[srt[j]] == k:
            f = np.int64(far[srt[j]])
            if f > top:
                top = f
                total = 0
            if f == top:
                total += lines[srt[j]]
            j += 1
        steps[top] += 1
        step_lines[top] += total
        i = j


def step_depths(far: np.ndarray, lines: np.ndarray, step_key: np.ndarray, levels: int):
    """Steps by the farthest level one of their requests reached, and their lines from it.

    A step is one wave's k-th issue of its load sites (``step_key``): the loads of one
    iteration go out together and the next iteration waits for all of them, so a step
    lasts as long as its slowest request.  ``far``/``lines`` hold one row per way of
    counting (:func:`_depths`); the same requests are loads in every row, so the steps are
    found once.  Returns per row and level (last: DRAM) the steps and the distinct lines
    they took from that level, summed.
    """
    rows = far.shape[0]
    steps = np.zeros((rows, levels + 1), np.int64)
    step_lines = np.zeros((rows, levels + 1), np.int64)
    sel = far[0] >= 0
    if not sel.any():
        return steps, step_lines
    _, inv = np.unique(step_key[sel], return_inverse=True)
    for row in range(rows):
        f, n = far[row, sel], lines[row, sel]
        top = np.full(int(inv.max()) + 1, -1, np.int64)
        np.maximum.at(top, inv, f)
        at = f == top[inv]
        per_step = np.bincount(inv[at], weights=n[at], minlength=len(top))
        steps[row] = np.bincount(top, minlength=levels + 1)
        step_lines[row] = np.rint(np.bincount(top, weights=per_step, minlength=levels + 1))
    return steps, step_lines


class FillTracker:
    """One launch's load requests: lines per request and lookups that wait for a fill in flight."""

    def __init__(self, line_bytes: int, compute_units: int):
        self.line_shift = int(line_bytes).bit_length() - 1
        self.compute_units = max(1, int(compute_units))
        # units seen so far (open addressing, -1 empty) -> step << 16 | compute unit of the first
        # load: 16 bytes a slot, where a typed dictionary takes several times that per unit
        self._keys = np.full(1 << 12, -1, np.int64)
        self._values = np.zeros(1 << 12, np.int64)
        self._used = np.zeros(1, np.int64)
        self._out = np.zeros(4, np.int64)
        self._req_wait = np.zeros(0, np.int8)
        #: load requests by the farthest level their data came from (index = level, last = DRAM)
        #: and their distinct lines from that level; None once a chunk could not be tallied
        self._depth_counts: np.ndarray | None = None
        self._depth_lines: np.ndarray | None = None
        self._depth_ok = True
        #: the tallies of a chunk replayed in windows, counted when it ends (None: not deferred)
        self._deferred: list | None = None

    @staticmethod
    def iterations(req_wave, rq_site) -> np.ndarray:
        """Per request of one chunk (requests of a wave consecutive): how many earlier requests of
        its wave were of its site, capped to 24 bits (int32).  It needs every request of a wave,
        so a chunk replayed in windows takes it from the whole chunk first."""
        occ = occurrences(req_wave, rq_site, int(rq_site.max()) if rq_site.size else 0)
        return np.minimum(occ, (1 << 24) - 1).astype(np.int32)

    def steps(self, req_wave, wave_vgroup, occ) -> tuple[np.ndarray, np.ndarray]:
        """Per request: its step for the fill scan (round and iteration ``occ``) and its step key
        (wave and iteration, for :func:`step_depths`)."""
        occ = occ.astype(np.int64)
        step_key = (req_wave.astype(np.int64) << 24) | occ  # (wave, k)
        step = ((wave_vgroup[req_wave] // self.compute_units).astype(np.int64) << 24) | occ
        return step, step_key

    def add(self, ex, is_load, units, unit_ptr, cu_of_req, req_wave, wave_vgroup, rq_site,
            steps: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """One chunk: requests in execution order ``ex``; ``units``/``unit_ptr`` the cache units of
        each request (ascending), ``wave_vgroup`` the (launch-wide) virtual group of each wave.
        ``steps`` (from :meth:`steps`) is given where the chunk is a window of a larger one."""
        self._req_wait = np.zeros(len(is_load), np.int8)
        self._step_key = None
        if not is_load.any():
            return
        step, self._step_key = steps if steps is not None else \
            self.steps(req_wave, wave_vgroup, self.iterations(req_wave, rq_site))
        cus, step = cu_of_req.astype(np.int64), step.astype(np.int64, copy=False)
        done = 0
        while done < len(ex):
            done += _scan(ex[done:], is_load, units, unit_ptr, cus, step, self.line_shift, self._keys,
                          self._values, self._used, self._out, self._req_wait)
            if done < len(ex):
                self._grow(int(unit_ptr[ex[done] + 1] - unit_ptr[ex[done]]))

    def _grow(self, more: int) -> None:
        """Double the table of units seen until ``more`` new ones fit at most half full."""
        cap = self._keys.shape[0]
        while 2 * (int(self._used[0]) + more) > cap:
            cap *= 2
        keys, values = np.full(cap, -1, np.int64), np.zeros(cap, np.int64)
        _rehash_seen(self._keys, self._values, keys, values)
        self._keys, self._values = keys, values

    def defer_depths(self) -> None:
        """Keep the depth tallies of the windows that follow until :meth:`settle_depths`: a step
        (one wave's k-th issue) can span windows, and it is counted once, at its slowest request."""
        self._deferred = []

    def settle_depths(self) -> None:
        """Count the steps of the windows kept since :meth:`defer_depths`."""
        parts, self._deferred = self._deferred, None
        if not parts or self._depth_counts is None:
            return
        key = np.concatenate([p[2] for p in parts])
        srt = np.argsort(key, kind="stable")
        for row in range(self._depth_counts.shape[0]):
            far = np.concatenate([p[0][row] for p in parts])
            lines = np.concatenate([p[1][row] for p in parts])
            _sorted_step_depths(key, srt, far, lines, self._depth_counts[row], self._depth_lines[row])

    def add_depths(self, ex, is_mem, is_load, count, stream_units, depth, levels: int,
                   texture_far=None, texture_levels: int = 0) -> None:
        """Tally the chunk just passed to :meth:`add` by the farthest level of each load request.

        ``stream_units``/``depth`` are the cache replay's stream (``count[r]`` units of every
        memory request ``r`` in execution order ``ex``) and the data level each unit was found
        at (:meth:`analyzers.replay.cache.CacheHierarchy.access`).  On a target with texture caches,
        levels are numbered texture levels first (``texture_levels`` of them), and
        ``texture_far`` gives the farthest texture level each image read hit (-1: none).
        """
        total = texture_levels + levels
        if self._depth_counts is None:
            self._depth_counts = np.zeros((2, total + 1), np.int64)
            self._depth_lines = np.zeros((2, total + 1), np.int64)
        if self._step_key is None or self._req_wait.shape[0] != len(is_mem):
            return  # no loads in the chunk
        far = np.full((2, len(is_mem)), -1, np.int64)
        lines = np.zeros((2, len(is_mem)), np.int64)
        base = texture_far if texture_far is not None else np.full(len(is_mem), -1, np.int64)
        _depths(ex, is_mem, is_load, count.astype(np.int64, copy=False), base, texture_levels, stream_units,
                depth, self._req_wait, self.line_shift, levels, far, lines)
        if self._deferred is not None:  # a window: only its load requests' tallies are kept
            sel = far[0] >= 0
            self._deferred.append((far[:, sel].astype(np.int16), lines[:, sel].astype(np.int32),
                                   self._step_key[sel]))
            return
        steps, step_lines = step_depths(far, lines, self._step_key, total)
        self._depth_counts += steps
        self._depth_lines += step_lines

    def skip_depths(self) -> None:
        """A chunk whose stream could not be tallied (texture or constant caches reshaped it):
        the launch keeps no depth histogram, and the latency model falls back to hit rates."""
        self._depth_ok = False

    def counts(self) -> dict[str, int]:
        """Recorded counts: load requests, their distinct lines, and the unit lookups that found
        their line still being filled from DRAM, by the same compute unit (a first-level hit in
        the replay) or by another (a hit in the first shared level)."""
        req, lines, same, other = (int(x) for x in self._out)
        out = {"load_requests": req, "load_lines": lines, "fill_waits_same_unit": same,
               "fill_waits_other_unit": other}
        if self._depth_ok and self._depth_counts is not None and int(self._depth_counts.sum()):
            # by the farthest level the replay found (a sample's cold lines would make its fill
            # waits spurious), and with the requests that waited for a fill moved to DRAM
            out["depth_requests"] = [int(x) for x in self._depth_counts[0]]
            out["depth_lines"] = [int(x) for x in self._depth_lines[0]]
            out["depth_requests_waits"] = [int(x) for x in self._depth_counts[1]]
            out["depth_lines_waits"] = [int(x) for x in self._depth_lines[1]]
        return out
