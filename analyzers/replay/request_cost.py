"""Cycles the first cache level spends on each SIMD request, for levels priced per request.

A level with ``cost_unit = "request"`` (the H200's L1, ``tests/data/h200_real/PROBES.md``)
serves a request in two stages, and the slower one sets its cost:

* the **tag stage** looks up ``lines_per_cycle`` distinct lines a cycle, so a request
  touching ``L`` lines takes ``ceil(L / lines_per_cycle)`` cycles however few bytes
  it reads from each;
* the **data stage** delivers one word of ``data_bank_width_bytes`` from each of
  ``data_banks`` banks a cycle (a *wavefront*); lanes that need different words of
  one bank wait for further wavefronts, and lanes reading the same word share it.
  Lanes are served in slices of ``data_banks x data_bank_width_bytes / access size``
  consecutive lanes (all 32 for 4-byte loads, a quarter warp for 16-byte ones), each
  slice taking as many wavefronts as its busiest bank has distinct words.  This is
  the bank model of local memory (:func:`analyzers.replay.banks.bank_cycles`) with the
  level's banking.

A request costs ``max(tag cycles, wavefronts)``; the level is busy for the sum over
its requests.  Bytes do not appear: a request reading 32 sectors from 8 lines in
one wavefront takes 2 cycles, one reading a word from each of 32 lines in one bank
takes 32.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from analyzers.replay.banks import bank_cycles
from analyzers.replay.coalescing import sort_small


@njit(cache=True)
def distinct_lines(units, unit_ptr, shift, mask):
    """Per masked request: distinct lines among its units (byte addresses; line = ``unit >> shift``)."""
    nreq = unit_ptr.shape[0] - 1
    out = np.zeros(nreq, np.int64)
    longest = 1   # the buffer is sized before the loop: one the loop might replace is dearer to use
    for r in range(nreq):
        if mask[r]:
            longest = max(longest, unit_ptr[r + 1] - unit_ptr[r])
    buf = np.empty(longest, np.int64)
    for r in range(nreq):
        if not mask[r]:
            continue
        lo, hi = unit_ptr[r], unit_ptr[r + 1]
        n = hi - lo
        ascending = True
        for k in range(n):
            buf[k] = units[lo + k] >> shift
            if k and buf[k] < buf[k - 1]:
                ascending = False
        if not ascending:
            sort_small(buf, n)
        d = 0
        for k in range(n):
            if k == 0 or buf[k] != buf[k - 1]:
                d += 1
        out[r] = d
    return out


def request_cycles(level, order, req_ptr, lane, address, size, mask, units, unit_ptr,
                   width: int) -> np.ndarray:
    """Cycles of each request with ``mask`` set at ``level`` (a :class:`CacheLevel` priced per
    request); 0 elsewhere.  ``units`` / ``unit_ptr`` are each request's distinct cache units
    of ``unit_bytes`` (:func:`analyzers.replay.coalescing.distinct_segments`)."""
    nreq = len(req_ptr) - 1
    if not mask.any():
        return np.zeros(nreq)
    lines = distinct_lines(units, unit_ptr, int(level.line_bytes).bit_length() - 1, mask)
    cycles = np.ceil(lines / float(level.lines_per_cycle))
    banks, word = int(level.data_banks), int(level.data_bank_width_bytes)
    if banks <= 0:
        return cycles * mask
    first = order[req_ptr[:-1]]
    access = np.maximum(np.asarray(size)[first].astype(np.int64), 1)
    lanes = np.clip((banks * word) // access, 1, max(int(width), 1))
    lanes = 1 << (np.log2(lanes).astype(np.int64))  # slices of a power of two lanes
    waves = np.zeros(nreq)
    reads = np.zeros(len(address), np.bool_)  # the data stage shares a word among lanes, loads or stores
    for slice_lanes in np.unique(lanes[mask]).tolist():
        sel = mask & (lanes == slice_lanes)
        c, _ = bank_cycles(order, req_ptr, lane, address, size, reads, sel, banks, word, int(slice_lanes),
                           True, False, 1.0)
        waves += c
    return np.maximum(cycles, waves) * mask
