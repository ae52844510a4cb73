"""Integer division by run-time divisors that are usually powers of two, for the compiled kernels.

A 64-bit division costs tens of cycles, more than everything else a kernel does
per access; the divisors the kernels use (transaction and cache-unit sizes, bank
counts and widths, lanes per cycle) are powers of two on every shipped target,
where a shift and a mask give the same floor quotient and modulo (also for
negative numbers, in two's complement).  ``shift_of`` is computed once per call,
outside the loops.  ``ADDR_MASK`` is the other piece of arithmetic every kernel
shares: addresses reach them as raw 64-bit patterns, and the top bit is cleared.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: The address bits of a raw 64-bit address pattern, as the kernels read it.
ADDR_MASK = np.int64((1 << 63) - 1)


@njit(cache=True)
def shift_of(n):
    """log2 of ``n`` if it is a positive power of two, else -1 (divide for real)."""
    if n <= 0 or n & (n - 1):
        return -1
    k = 0
    while (np.int64(1) << k) < n:
        k += 1
    return k


@njit(cache=True, inline="always")
def div(a, n, shift):
    """``a // n`` (floor); a shift when ``shift = shift_of(n) >= 0``."""
    return a >> shift if shift >= 0 else a // n


@njit(cache=True, inline="always")
def mod(a, n, shift):
    """``a % n`` (floor, sign of ``n``); a mask when ``shift = shift_of(n) >= 0``."""
    return a & (n - 1) if shift >= 0 else a % n
