"""Rows and sums per distinct key tuple, with NumPy alone.

``tracekit info`` tabulates accesses per launch and per (space, op), and validation
collects the (launch, kernel, site) triples it meets.  Arrow's ``group_by`` would
load its query engine (and pandas with it), and even ``pyarrow.compute`` costs tens
of milliseconds to import, which the quick commands should not pay for; the keys
here are coded through their dictionaries (or ``np.unique``) and counted with
``np.bincount``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from tracekit.trace.arrow_numpy import to_numpy


def _codes(arr: pa.Array | pa.ChunkedArray | np.ndarray) -> tuple[np.ndarray, list]:
    """(int64 code per row, label per code) of a dictionary, integer or text column."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not isinstance(arr, np.ndarray) and pa.types.is_dictionary(arr.type):
        return to_numpy(arr.indices).astype(np.int64), arr.dictionary.to_pylist()
    labels, codes = np.unique(to_numpy(arr), return_inverse=True)
    return codes.astype(np.int64), labels.tolist()


def distinct_keys(keys: list[pa.Array | np.ndarray]) -> list[tuple]:
    """The distinct tuples of ``keys`` (equal-length columns), in code order."""
    n = len(keys[0]) if keys else 0
    return list(count_and_sum(keys, np.zeros(n, np.int64)))


def count_and_sum(keys: list[pa.Array | np.ndarray], values: pa.Array | np.ndarray
                  ) -> dict[tuple, tuple[int, int]]:
    """Rows and the sum of ``values`` per distinct tuple of ``keys`` (dictionary or integer columns)."""
    combined = np.zeros(len(values), np.int64)
    coded = [_codes(k) for k in keys]
    for codes, labels in coded:
        combined = combined * max(len(labels), 1) + codes
    uniq, inverse = np.unique(combined, return_inverse=True)
    counts = np.bincount(inverse, minlength=len(uniq))
    values = to_numpy(values)
    sums = np.bincount(inverse, weights=values.astype(np.float64), minlength=len(uniq))
    out: dict[tuple, tuple[int, int]] = {}
    for u, n, s in zip(uniq.tolist(), counts.tolist(), sums.tolist(), strict=True):
        key = []
        for _, labels in reversed(coded):
            u, c = divmod(u, max(len(labels), 1))
            key.append(labels[c])
        key = tuple(reversed(key))
        n0, s0 = out.get(key, (0, 0))  # a dictionary may repeat a label
        out[key] = (n0 + n, s0 + int(s))
    return out
