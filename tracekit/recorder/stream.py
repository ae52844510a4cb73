"""Reading the plugin's binary stream (layout in ``stream.h``) into typed records.

Per-access data arrives in GROUP records as fixed-width little-endian columns;
they are wrapped with :func:`numpy.frombuffer`, never parsed row by row.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from ..errors import RecordError

MAGIC = b"TKTRACE1"
_HEADER = struct.Struct("<IiQ")
LAUNCH_BEGIN, GROUP, LAUNCH_END, ALLOC, FREE, LOG = 1, 2, 3, 4, 5, 6
#: Sentinel the plugin writes for "no site" / "no buffer".
NONE32 = 0xFFFFFFFF


@dataclass
class Record:
    type: int
    launch: int
    payload: bytes


@dataclass
class GroupBlock:
    """One recorded work-group: access columns and instruction-count columns."""

    group: int
    offset: np.ndarray  # uint64
    item: np.ndarray    # uint32
    site: np.ndarray    # uint32
    buffer: np.ndarray  # uint32 (Oclgrind buffer number; NONE32 if unmapped)
    size: np.ndarray    # uint16
    kind: np.ndarray    # uint8: space | op << 2
    count: np.ndarray   # uint64
    ins_item: np.ndarray  # uint32
    ins_site: np.ndarray  # uint32


def _pad8(n: int) -> int:
    return (n + 7) & ~7


def read_records(f: BinaryIO) -> Iterator[Record]:
    """Yield the records of a stream until EOF; a cut-off last record ends the stream."""
    magic = f.read(8)
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


def parse_group(payload: bytes) -> GroupBlock:
    group, nacc, nins = struct.unpack_from("<QQQ", payload, 0)
    pos = 24

    def col(dtype: str, n: int) -> np.ndarray:
        nonlocal pos
        a = np.frombuffer(payload, dtype=dtype, count=n, offset=pos)
        pos += _pad8(a.nbytes)
        return a

    offset, item, site, buf = col("<u8", nacc), col("<u4", nacc), col("<u4", nacc), col("<u4", nacc)
    size, kind = col("<u2", nacc), col("u1", nacc)
    count, ins_item, ins_site = col("<u8", nins), col("<u4", nins), col("<u4", nins)
    return GroupBlock(group, offset, item, site, buf, size, kind, count, ins_item, ins_site)


def parse_json(payload: bytes) -> dict:
    return json.loads(payload.decode("utf-8", errors="replace"))


def parse_alloc(payload: bytes) -> tuple[int, int, int]:
    return struct.unpack_from("<QQQ", payload, 0)


def parse_free(payload: bytes) -> int:
    return struct.unpack_from("<Q", payload, 0)[0]


def parse_log(payload: bytes) -> tuple[str, str]:
    kind = struct.unpack_from("<I", payload, 0)[0]
    level = {0: "debug", 1: "info", 2: "warning", 3: "error"}.get(kind, "error")
    return level, payload[8:].decode("utf-8", errors="replace")
