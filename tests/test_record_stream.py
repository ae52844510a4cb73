"""The recorder's reading side without Oclgrind: the pipe reader's buffer recycling
and the converter's reused column arrays, where a mistake would silently corrupt
rows rather than fail."""

from __future__ import annotations

import gc
import os
import struct
import threading

import numpy as np
import pytest

from tracekit.recorder import stream
from tracekit.recorder.convert import _Scratch, repeat_into


def _record(rtype: int, payload: bytes) -> bytes:
    pad = (-len(payload)) % 8
    return struct.pack("<IiQ", rtype, 0, len(payload)) + payload + b"\0" * pad


def _feed(chunks: list[bytes]) -> int:
    """A pipe whose write end a thread fills with ``chunks``; returns the read end."""
    rfd, wfd = os.pipe()

    def write():
        with open(wfd, "wb", buffering=0) as f:
            for c in chunks:
                f.write(c)

    threading.Thread(target=write, daemon=True).start()
    return rfd


def test_pipe_reader_recycles_a_buffer_only_after_its_last_view_is_gone():
    payloads = [np.full(300_000 + 8 * k, k, np.uint8).tobytes() for k in range(12)]
    rfd = _feed([stream.MAGIC] + [_record(stream.LOG, p) for p in payloads])
    kept, seen = [], []
    with stream.PipeReader(rfd) as f:
        for k, rec in enumerate(stream.read_records(f)):
            arr = np.frombuffer(rec.payload, np.uint8)
            seen.append((len(arr), int(arr.min()), int(arr.max())))
            if k % 3 == 0:
                kept.append((k, arr))  # stays alive: its buffer must not be reused
            del arr, rec
            gc.collect()
            for j, a in kept:  # nothing read since has overwritten a kept record
                assert a.min() == a.max() == j
        recycled = len(f._free)
    assert seen == [(len(p), k, k) for k, p in enumerate(payloads)]
    assert 0 < recycled <= stream.PipeReader.POOL


def test_pipe_reader_returns_a_short_read_at_end_of_stream():
    rfd = _feed([b"abc"])
    with stream.PipeReader(rfd) as f:
        assert bytes(f.read(8)) == b"abc"


@pytest.mark.parametrize("seed", range(20))
def test_repeat_into_matches_numpy_repeat(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 40))
    values = np.sort(rng.choice(10_000, k, replace=False)).astype(np.int64)
    counts = rng.integers(0, 5, k).astype(np.int64)  # zero counts included
    out = np.full(int(counts.sum()), -7, np.int64)
    assert (repeat_into(out, values, counts) == np.repeat(values, counts)).all()


def test_scratch_columns_do_not_overlap_within_a_chunk_and_are_reused_after():
    s = _Scratch().start(10)
    a, b = s.take("x", np.int64, 6), s.take("x", np.int64, 4)
    a[:], b[:] = 1, 2
    assert a.sum() == 6 and b.sum() == 8
    base = a.base if a.base is not None else a
    c = s.start(10).take("x", np.int64, 10)
    assert (c.base if c.base is not None else c) is base  # same memory, next chunk
    with pytest.raises(RuntimeError, match="outgrew"):
        s.start(4).take("y", np.int32, 4)
        s.take("y", np.int32, 1)
