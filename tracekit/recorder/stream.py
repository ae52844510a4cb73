"""Reading the plugin's binary stream (layout in ``stream.h``) into typed records.

Per-access data arrives in GROUPS records as fixed-width little-endian columns;
they are wrapped with :func:`numpy.frombuffer`, never parsed row by row.
"""

from __future__ import annotations

import fcntl
import json
import struct
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from tracekit.errors import RecordError

MAGIC = b"TKTRACE1"
_HEADER = struct.Struct("<IiQ")
LAUNCH_BEGIN, GROUPS, LAUNCH_END, ALLOC, FREE, LOG, FOOTPRINT = 1, 2, 3, 4, 5, 6, 7
#: Sentinel the plugin writes for "no site" / "no buffer".
NONE32 = 0xFFFFFFFF
#: Buffer number of a local or private access already placed in its layout.
LAYOUT32 = 0xFFFFFFFE
#: stream.h: the space code of an image row, and where an access's op sits in its kind byte.
SPACE_IMAGE = 4
KIND_OP_SHIFT = 3
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
    kind: np.ndarray    # uint8: space | op << 3
    issue: np.ndarray   # uint64: the loop trip counts around the site (issue.h)
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
        yield Record(rtype, launch, memoryview(payload)[:n])


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
    size, kind, issue = col("<u2", nacc), col("u1", nacc), col("<u8", nacc)
    count, ins_item, ins_site = col("<u8", nins), col("<u4", nins), col("<u4", nins)
    ins_items = col("<u4", nins)
    return GroupBlock(groups, naccs, ninss, offset, item, seq, site, buf, size, kind, issue, count,
                      ins_item, ins_site, ins_items)


def parse_json(payload: bytes) -> dict:
    return json.loads(bytes(payload).decode("utf-8", errors="replace"))


def parse_alloc(payload: bytes) -> tuple[int, int, int]:
    return struct.unpack_from("<QQQ", payload, 0)


def parse_free(payload: bytes) -> int:
    return struct.unpack_from("<Q", payload, 0)[0]


def parse_footprint(payload: bytes | memoryview) -> tuple[int, int, np.ndarray, np.ndarray]:
    """(buffer, granule bytes, read bits, written bits): one bool per granule of the buffer."""
    buf, granule, granules = struct.unpack_from("<QQQ", payload, 0)
    words = (granules + 63) // 64
    maps = np.frombuffer(payload, dtype="<u8", count=2 * words, offset=24).view(np.uint8)
    read, written = (np.unpackbits(m, count=granules, bitorder="little").astype(bool)
                     for m in (maps[:8 * words], maps[8 * words:]))
    return buf, granule, read, written


def parse_log(payload: bytes) -> tuple[str, str]:
    kind = struct.unpack_from("<I", payload, 0)[0]
    level = {0: "debug", 1: "info", 2: "warning", 3: "error"}.get(kind, "error")
    return level, bytes(payload[8:]).decode("utf-8", errors="replace")


class PipeReader:
    """Reads the plugin's stream from a pipe straight into one buffer per record.

    The plugin queues a few batches on its own side (a writer thread), so the
    simulation keeps running while this process converts a chunk; reading needs
    no thread here, and each payload is copied once, from the pipe into the
    buffer that numpy then wraps.

    Buffers are recycled: a record's buffer goes back to a small pool as soon as
    the last array viewing it is gone (the converter drops a chunk's blocks once
    they are written).  Fresh buffers would cost a page fault every 4 KiB, which
    on megabytes per record is a real share of the conversion's CPU time.
    """

    POOL = 8                 # free buffers kept
    MIN_BUFFER = 1 << 20     # small records share this size, so they recycle too

    def __init__(self, fd: int):
        try:
            fcntl.fcntl(fd, _F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass  # larger pipe buffers are an optimisation only
        self._f = open(fd, "rb", buffering=0, closefd=True)  # noqa: SIM115 - closed by close()
        self._free: list[np.ndarray] = []

    def _buffer(self, n: int) -> np.ndarray:
        """A view of ``n`` bytes of a pooled buffer (uninitialised: the pipe fills it);
        record headers and other small reads just get their own few bytes."""
        if n < self.MIN_BUFFER // 16:
            return np.empty(n, np.uint8)
        for i, buf in enumerate(self._free):
            if n <= len(buf) <= 4 * max(n, self.MIN_BUFFER):
                del self._free[i]
                break
        else:
            buf = np.empty(max(n, self.MIN_BUFFER), np.uint8)
        view = buf[:n]
        weakref.finalize(view, self._release, buf)
        return view

    def _release(self, buf: np.ndarray) -> None:
        if len(self._free) < self.POOL:
            self._free.append(buf)

    def read(self, n: int) -> memoryview:
        """Up to ``n`` bytes: fewer only at the end of the stream."""
        view = memoryview(self._buffer(n))
        got = 0
        while got < n:
            k = self._f.readinto(view[got:])
            if not k:
                return view[:got]
            got += k
        return view

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> PipeReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
