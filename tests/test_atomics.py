"""Atomics queue per line in the last-level cache (analyzers/replay/atomics.py, the H200's [atomics])."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rules_helpers import KernelBuilder, get_target

from analyzers.analyze import analyze


def histogram(bins: int, n: int = 4096, ls: int = 256, words_apart: int = 1):
    """One atomic add per item into ``bins`` bins (item i into bin i % bins)."""
    k = KernelBuilder(n, ls)
    k.access(1, "global", "atomic", lambda i: 4 * words_apart * (i.gid % bins))
    return k


def atomic_s(k, target):
    (lr,) = analyze(k.trace(), target).launches
    return lr.bound.evidence["atomic_queue_s"], lr


def test_one_word_queues_every_update_and_lines_proceed_side_by_side():
    h200 = get_target("nvidia")
    line, word = h200.atomics["line_cycles"], h200.atomics["word_cycles"]
    clock = h200.clock_mhz * 1e6
    # one bin: 128 warps of 32 lanes on one word, each request 32 updates of it in turn
    one, lr = atomic_s(histogram(1), h200)
    assert one == pytest.approx(128 * max(line, 32 * word) / clock)
    # the queue is a serialisation with the memory units idle: the latency term, as Nsight sees it
    assert lr.bound.latency_s == pytest.approx(one) and lr.bound.verdict == "latency"
    # 32 bins in one 128-byte line: each request touches the line once with one lane per word
    assert atomic_s(histogram(32), h200)[0] == pytest.approx(128 * line / clock)
    # 32 bins each in its own line: every line sees each request once, and they run side by side
    assert atomic_s(histogram(32, words_apart=32), h200)[0] == pytest.approx(128 * line / clock)
    # the queue belongs to the target: without [atomics] atomics are priced like stores
    assert atomic_s(histogram(1), replace(h200, atomics={}))[0] == 0.0
    (adreno,) = analyze(histogram(1).trace(), get_target("adreno")).launches
    assert adreno.bound.evidence["atomic_queue_s"] == 0.0
