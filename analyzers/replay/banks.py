"""Local-memory bank conflicts: cycles each SIMD request spends in the banks.

Model (all numbers from ``Target.local_memory``):

* local memory is split into words of ``bank_width_bytes``; word ``w`` lives in
  bank ``w % banks`` (so ``bank = (addr // bank_width) % banks``); an access
  covering several words (a float4 on 4-byte banks) uses each of them;
* a request's lanes are served in slices of ``lanes_per_cycle`` consecutive lanes;
  a slice takes as many cycles as its busiest bank has distinct words to deliver
  (its *conflict degree*, 1 = conflict-free).  Reads of the same word by several
  lanes count once when ``read_broadcast`` holds;
* writes (stores, atomics) count distinct words too, unless
  ``write_same_address_conflicts`` (Intel's strict rule): then every lane's
  write to a bank counts, same address or not;
* a write slice costs ``write_cost_factor`` times its degree (PowerVR's common
  store writes a row in four cycles where it reads it in one).

The request's cycles are the sum over its slices and its conflict degree the
largest slice degree.  PowerVR's common store (4 banks of 128 bits, 16 lanes a
cycle), Intel SLM (16 x 4 B with broadcast) and NVIDIA shared memory (32 x 4 B)
are the same model with different numbers.

:func:`bank_cycles_frame` is vectorised pandas for notebooks and tests;
:func:`bank_cycles` the compiled kernel of the streaming replay.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from analyzers.replay.coalescing import sort_small
from analyzers.replay.intdiv import ADDR_MASK, div, mod, shift_of
from tracekit.targets.model import LocalMemorySpec


def _word_rows(address, size, width):
    address = np.asarray(address, dtype=np.int64)
    size = np.maximum(np.asarray(size, dtype=np.int64), 1)
    first = address // width
    count = (address + size - 1) // width - first + 1
    idx = np.repeat(np.arange(address.shape[0]), count)
    off = np.arange(idx.shape[0]) - np.repeat(np.cumsum(count) - count, count)
    return idx, first[idx] + off


def bank_cycles_frame(request, lane, address, size, is_write, spec: LocalMemorySpec) -> pd.DataFrame:
    """One row per request: ``cycles`` and ``conflict_degree`` under ``spec``'s rules."""
    request = np.asarray(request, dtype=np.int64)
    lane = np.asarray(lane, dtype=np.int64)
    is_write = np.asarray(is_write, dtype=bool)
    idx, word = _word_rows(address, size, spec.bank_width_bytes)
    df = pd.DataFrame({"request": request[idx], "slice": lane[idx] // spec.lanes_per_cycle,
                       "bank": word % spec.banks, "word": word, "write": is_write[idx]})
    strict = df["write"] & spec.write_same_address_conflicts
    no_bcast = ~df["write"] & (not spec.read_broadcast)
    counted = df[strict | no_bcast]
    distinct = df[~(strict | no_bcast)].drop_duplicates(["request", "slice", "bank", "word"])
    per_bank = pd.concat([counted, distinct]).groupby(["request", "slice", "bank"]).agg(
        n=("word", "size"), write=("write", "max"))
    per_slice = per_bank.groupby(level=["request", "slice"]).agg(degree=("n", "max"), write=("write", "max"))
    factor = np.where(per_slice["write"], spec.write_cost_factor, 1.0)
    per_slice["cycles"] = per_slice["degree"] * factor
    out = per_slice.groupby(level="request").agg(cycles=("cycles", "sum"), conflict_degree=("degree", "max"))
    return out.reset_index()


@njit(cache=True)
def bank_cycles(order, req_ptr, lane, address, size, is_write, mask, banks, width, lanes_per_cycle,
                broadcast, strict_write, write_factor):
    """Per request with ``mask`` set: (cycles, conflict degree); zeros elsewhere.

    Rows of a request are in ascending lane order (as :func:`form_requests` leaves them).
    ``address`` may hold the raw 64-bit pattern (bit 63 is cleared here); ``is_write``
    is read as a truth value, so non-zero op codes do (when ``load`` is code 0).
    """
    nreq = req_ptr.shape[0] - 1
    cycles = np.zeros(nreq, np.float64)
    degree = np.zeros(nreq, np.int64)
    count = np.zeros(banks, np.int64)
    lsh, wsh, bsh = shift_of(lanes_per_cycle), shift_of(width), shift_of(banks)
    # the words of one slice fit a buffer sized here, before the loop: a buffer the loop might
    # replace makes every access to it dearer (about three times the kernel's time)
    longest = 1
    widest = np.int64(1)
    for r in range(nreq):
        if mask[r]:
            longest = max(longest, req_ptr[r + 1] - req_ptr[r])
            for t in range(req_ptr[r], req_ptr[r + 1]):
                widest = max(widest, np.int64(size[order[t]]))
    buf = np.empty(longest * (div(widest + width - 1, width, wsh) + 1), np.int64)
    for r in range(nreq):
        if not mask[r]:
            continue
        t = req_ptr[r]
        end = req_ptr[r + 1]
        while t < end:  # one slice of lanes at a time: lo <= lane < hi
            lo = div(np.int64(lane[order[t]]), lanes_per_cycle, lsh) * lanes_per_cycle
            hi = lo + lanes_per_cycle
            n = 0
            write = False
            while t < end and lo <= lane[order[t]] < hi:
                i = order[t]
                if is_write[i]:
                    write = True
                a = address[i] & ADDR_MASK
                w0 = div(a, width, wsh)
                w1 = div(a + max(np.int64(size[i]), np.int64(1)) - 1, width, wsh)
                for w in range(w0, w1 + 1):
                    buf[n] = w
                    n += 1
                t += 1
            every = (write and strict_write) or ((not write) and not broadcast)
            if not every:  # distinct words are counted on sorted words (in place: no allocation)
                sort_small(buf, n)
            d = 0
            for k in range(n):
                if every or k == 0 or buf[k] != buf[k - 1]:
                    b = mod(buf[k], banks, bsh)
                    count[b] += 1
                    if count[b] > d:
                        d = count[b]
            for k in range(n):
                count[mod(buf[k], banks, bsh)] = 0
            cycles[r] += d * (write_factor if write else 1.0)
            if d > degree[r]:
                degree[r] = d
    return cycles, degree
