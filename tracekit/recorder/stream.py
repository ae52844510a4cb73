"""Reading the plugin's binary stream (layout in ``stream.h``) into typed records.

Per-access data arrives in GROUPS records as fixed-width little-endian columns;
they are wrapped with :func:`numpy.frombuffer`, never parsed row by row.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from ..errors import RecordError

MAGIC = b"TKTRACE1"
_HEADER = struct.Struct("<IiQ")
LAUNCH_BEGIN, GROUPS, LAUNCH_END, ALLOC, FREE, LOG = 1, 2, 3, 4, 5, 6
#: Sentinel the plugin writes for "no site" / "no buffer".
NONE32 = 0xFFFFFFFF
#: Buffer number of a local or private access already placed in its layout.
LAYOUT32 = 0xFFFFFFFE
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


@dataclass
class Record:
    type: int
    launch: int
    payload: bytes | memoryview


@dataclass
class GroupBlock:
    """Consecutive recorded work-groups: access columns and instruction-count columns."""

    groups: np.ndarray  # uint64, one per group
    naccs: np.ndarray   # accesses of each group
    ninss: np.ndarray   # instruction-count rows of each group
    offset: np.ndarray  # uint64
    item: np.ndarray    # uint32
    seq: np.ndarray     # uint32: the access's position among its work-item's accesses
    site: np.ndarray    # uint32
    buffer: np.ndarray  # uint32 (Oclgrind buffer number; LAYOUT32 local/private; NONE32 unmapped)
    size: np.ndarray    # uint16
    kind: np.ndarray    # uint8: space | op << 2
    count: np.ndarray   # uint64
    ins_item: np.ndarray  # uint32
    ins_site: np.ndarray  # uint32
    ins_items: np.ndarray  # uint32: consecutive work-items the row stands for


def _pad8(n: int) -> int:
    return (n + 7) & ~7


def read_records(f: BinaryIO) -> Iterator[Record]:
    """Yield the records of a stream until EOF; a cut-off last record ends the stream."""
    magic = bytes(f.read(8))
    if not magic:
        return
    if magic != MAGIC:
        raise RecordError(f"the recorder stream starts with {magic!r}, expected {MAGIC!r}")
    while True:
        head = f.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return
        rtype, launch, n = _HEADER.unpack(head)
        payload = f.read(_pad8(n))
        if len(payload) < n:
            return  # the writer died mid-record: keep what came before
        yield Record(rtype, launch, payload[:n])


def parse_groups(payload: bytes | memoryview) -> GroupBlock:
    ngroups, nacc, nins = struct.unpack_from("<QQQ", payload, 0)
    pos = 24

    def col(dtype: str, n: int) -> np.ndarray:
        nonlocal pos
        a = np.frombuffer(payload, dtype=dtype, count=n, offset=pos)
        pos += _pad8(a.nbytes)
        return a

    groups, naccs, ninss = col("<u8", ngroups), col("<u8", ngroups), col("<u8", ngroups)
    offset, item, seq = col("<u8", nacc), col("<u4", nacc), col("<u4", nacc)
    site, buf = col("<u4", nacc), col("<u4", nacc)
    size, kind = col("<u2", nacc), col("u1", nacc)
    count, ins_item, ins_site = col("<u8", nins), col("<u4", nins), col("<u4", nins)
    ins_items = col("<u4", nins)
    return GroupBlock(groups, naccs, ninss, offset, item, seq, site, buf, size, kind, count, ins_item,
                      ins_site, ins_items)


def parse_json(payload: bytes) -> dict:
    return json.loads(bytes(payload).decode("utf-8", errors="replace"))


def parse_alloc(payload: bytes) -> tuple[int, int, int]:
    return struct.unpack_from("<QQQ", payload, 0)


def parse_free(payload: bytes) -> int:
    return struct.unpack_from("<Q", payload, 0)[0]


def parse_log(payload: bytes) -> tuple[str, str]:
    kind = struct.unpack_from("<I", payload, 0)[0]
    level = {0: "debug", 1: "info", 2: "warning", 3: "error"}.get(kind, "error")
    return level, bytes(payload[8:]).decode("utf-8", errors="replace")


class DrainedPipe:
    """A file-like reader over a pipe that a background thread keeps emptying.

    The plugin must never wait for the converter: while a chunk of groups is
    being converted, the thread goes on reading the pipe into memory (up to
    ``max_chunks`` reads of up to 4 MiB), so Oclgrind keeps running.
    """

    def __init__(self, fd: int, max_chunks: int = 64):
        try:
            fcntl.fcntl(fd, _F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass  # larger pipe buffers are an optimisation only
        self._fd = fd
        self._q: queue.Queue[bytes] = queue.Queue(maxsize=max_chunks)
        self._cur = memoryview(b"")  # the chunk being consumed, from ``_off`` on
        self._off = 0
        self._eof = False
        self._stop = False
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        """Read until EOF; the thread owns the descriptor and closes it at the end."""
        try:
            while True:
                try:
                    chunk = os.read(self._fd, 4 << 20)
                except OSError:
                    chunk = b""
                while not self._stop:
                    try:
                        self._q.put(chunk, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if not chunk:
                    break
        finally:
            os.close(self._fd)

    def read(self, n: int) -> bytearray | memoryview:
        """Up to ``n`` bytes; a view into the chunk read from the pipe when they lie in one
        (group records are megabytes: they are wrapped by numpy, never copied)."""
        cur, off = self._cur, self._off
        if len(cur) - off >= n:
            self._off = off + n
            return cur[off:off + n]
        out = bytearray(cur[off:])
        self._cur, self._off = memoryview(b""), 0
        while len(out) < n and not self._eof:
            chunk = self._q.get()
            if not chunk:
                self._eof = True
                break
            take = n - len(out)
            if len(chunk) > take:
                self._cur, self._off = memoryview(chunk), take
                out += self._cur[:take]
            else:
                out += chunk
        return out

    def close(self) -> None:
        """Stop handing data over; the thread ends at EOF (once the writer is gone)."""
        self._stop = True

    def __enter__(self) -> DrainedPipe:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
