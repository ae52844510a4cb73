"""Coalescing against the Intel and Adreno guides' worked examples."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzers.replay.coalescing import distinct_segments, summarize, transactions_per_request


def compiled(addrs, granularity, size=4, unit=None):
    n = len(addrs)
    order = np.arange(n, dtype=np.int64)
    ptr = np.array([0, n], np.int64)
    tx, breq, units, _ = distinct_segments(order, ptr, np.asarray(addrs, np.int64),
                                           np.full(n, size, np.int64), granularity, np.ones(1, bool),
                                           unit or granularity)
    return int(tx[0]), int(breq[0]), units


def reference(addrs, granularity, size=4):
    n = len(addrs)
    df = transactions_per_request(np.zeros(n), addrs, np.full(n, size), granularity)
    return int(df["transactions"].iloc[0]), int(df["bytes_requested"].iloc[0])


BASE = 1 << 20  # a 64-byte aligned buffer


# intel-processor-graphics-opencl-guide.txt, "__global Memory and __constant Memory": 16 work-items of
# one hardware thread reading ints, 64-byte L3 lines; cases 1-6 touch 1, 2, 1, 4, 16, 16 lines.
@pytest.mark.parametrize("index, lines", [
    (lambda g: g, 1),
    (lambda g: g + 1, 2),
    (lambda g: 1023 - g, 1),
    (lambda g: g * 4, 4),
    (lambda g: g * 16, 16),
    (lambda g: g * 32, 16),
])
def test_intel_global_cases(index, lines):
    gid = np.arange(1008, 1024)  # one SIMD16 thread, not the first
    addrs = BASE + 4 * index(gid)
    assert compiled(addrs, 64)[0] == lines
    assert reference(addrs, 64)[0] == lines


def test_adreno_coalescing_example():
    # qualcomm-adreno-opencl-optimization.txt §3.2.6: 8 work-items of 4 bytes, 128-bit transactions
    lanes = np.arange(8)
    assert compiled(BASE + 4 * lanes, 16)[0] == 2
    assert compiled(BASE + 16 * lanes, 16)[0] == 8
    assert reference(BASE + 4 * lanes, 16)[0] == 2
    assert reference(BASE + 16 * lanes, 16)[0] == 8


def test_straddling_access_counts_on_both_segments():
    assert compiled([BASE + 62], 64)[0] == 2
    assert reference([BASE + 62], 64)[0] == 2
    tx, breq, units = compiled([BASE + 60, BASE + 64], 64, size=8, unit=32)
    assert (tx, breq) == (2, 16)
    assert list(units) == [BASE + 32, BASE + 64]  # bytes 60..71 on 32-byte units


def test_summarize_by_site():
    per_req = transactions_per_request(np.array([0, 0, 1, 1]), BASE + np.array([0, 4, 0, 64]),
                                       np.full(4, 4), 64)
    per_req["site"] = [7, 9]
    out = summarize(per_req, ["site"]).set_index("site")
    assert out.loc[7, "transactions"] == 1 and out.loc[9, "transactions"] == 2
    assert out.loc[9, "bytes_moved"] == 128 and out.loc[9, "bytes_requested"] == 8
    assert out.loc[9, "transactions_per_request"] == 2.0


@settings(max_examples=80, deadline=None)
@given(addrs=st.lists(st.integers(0, 1 << 16), min_size=1, max_size=64),
       size=st.sampled_from([1, 2, 4, 8, 16, 24]), gran=st.sampled_from([16, 32, 64, 128]))
def test_compiled_matches_reference(addrs, size, gran):
    tx, breq, units = compiled(addrs, gran, size=size)
    assert (tx, breq) == reference(addrs, gran, size=size)
    assert len(units) == tx and np.all(np.diff(units) > 0)
