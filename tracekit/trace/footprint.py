"""A sampled launch's footprint: which bytes of each global buffer its whole grid read and wrote.

A recording that keeps some work-groups still runs them all, so the recorder notes
per buffer, at a fixed granularity of :data:`GRANULE_BYTES`, which granules any
work-group read and which it wrote.  The replay takes the launch's compulsory
traffic from it (every line the grid touches crosses from memory once), which the
recorded groups alone cannot give: they see only their own share of the data, and
scaling their cold misses by the sampling scale charges shared data many times.

Stored in the launch's ``metadata`` JSON under ``footprint`` (optional; see
docs/trace-format.md): ``granule_bytes`` and one entry per touched buffer with its
``base`` (device address), ``size``, ``arg`` (kernel argument, when one points to
it), the counts ``read_granules`` / ``written_granules``, and the bitmaps ``read``
and ``written``: bit ``g`` (little-endian bit order, byte ``g // 8``) says granule
``g`` was touched, zlib-compressed and base64-encoded.  Contiguous footprints, the
common case, compress to a few hundred bytes however large the buffer.
"""

from __future__ import annotations

import base64
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from tracekit.errors import TraceFormatError
from tracekit.trace import limits

GRANULE_BYTES = 32
#: Bytes a bitmap may hold beyond what its granules need (a writer that packs whole words).
_SLACK_BYTES = 64
ENCODING = "zlib+base64, little-endian bit order"


@dataclass(frozen=True)
class BufferFootprint:
    """One buffer's touched granules (``read`` and ``written``: one bool per granule)."""

    base: int
    size: int
    read: np.ndarray
    written: np.ndarray
    arg: int | None = None


@dataclass(frozen=True)
class LaunchFootprint:
    """What one launch's whole grid touched, buffer by buffer."""

    granule_bytes: int
    buffers: tuple[BufferFootprint, ...]
    #: unit bytes -> distinct_units(unit bytes): every replay of the launch asks again, on every target
    _units: dict = field(default_factory=dict, compare=False, repr=False)

    def distinct_units(self, unit_bytes: int) -> tuple[int, int, int]:
        """Distinct aligned units of ``unit_bytes`` (a cache's line or sector): read, written,
        and written but never read.

        Units are counted at device addresses, so two buffers sharing a unit count it
        once.  A unit smaller than a granule cannot be resolved: each touched granule
        then counts as ``granule_bytes / unit_bytes`` units (every byte of it touched).
        Counted once per unit size (a launch's footprint does not change between replays).
        """
        if unit_bytes not in self._units:
            self._units[unit_bytes] = self._count_units(unit_bytes)
        return self._units[unit_bytes]

    def _count_units(self, unit_bytes: int) -> tuple[int, int, int]:
        sets = []
        for which in ("read", "written"):
            g = self.granule_bytes
            parts = [np.int64(b.base) + np.flatnonzero(getattr(b, which)).astype(np.int64) * g
                     for b in self.buffers]
            addr = np.concatenate(parts) if parts else np.zeros(0, np.int64)
            if unit_bytes >= self.granule_bytes:
                sets.append(np.unique(addr // unit_bytes))
            else:  # every unit of a touched granule
                per = self.granule_bytes // unit_bytes
                sets.append((addr[:, None] // unit_bytes + np.arange(per)).reshape(-1))
        read, written = sets
        return int(read.size), int(written.size), int(np.setdiff1d(written, read).size)

    @property
    def bytes_read(self) -> int:
        return sum(int(b.read.sum()) for b in self.buffers) * self.granule_bytes

    @property
    def bytes_written(self) -> int:
        return sum(int(b.written.sum()) for b in self.buffers) * self.granule_bytes


def _pack(bits: np.ndarray) -> str:
    return base64.b64encode(zlib.compress(np.packbits(bits, bitorder="little").tobytes(), 9)).decode("ascii")


def _unpack(text, granules: int, where: str) -> np.ndarray:
    """The flags of ``granules`` granules from a packed bitmap.

    The bitmap is inflated with a cap of the bytes the buffer's granules need (and a few
    more), so a small compressed text that would inflate to gigabytes is refused before it
    is allocated.
    """
    need = -(-granules // 8)
    cap = need + _SLACK_BYTES
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(base64.b64decode(text, validate=True), cap)
        over = bool(inflate.unconsumed_tail) or (not inflate.eof and bool(inflate.decompress(b"", 1)))
    except Exception as exc:  # binascii.Error, zlib.error, TypeError
        raise TraceFormatError(f"{where}: not a {ENCODING} bitmap ({exc})") from None
    if over:
        raise TraceFormatError(f"{where}: the bitmap inflates past {cap:,} bytes, where the buffer's "
                               f"{granules:,} granules need {need:,}; refused before inflating it "
                               "(docs/trace-format.md, Limits)")
    if not inflate.eof:
        raise TraceFormatError(f"{where}: not a {ENCODING} bitmap (the compressed data is cut short)")
    if len(raw) * 8 < granules:
        raise TraceFormatError(f"{where}: the bitmap holds {len(raw) * 8} bits, "
                               f"the buffer has {granules} granules")
    return np.unpackbits(np.frombuffer(raw, np.uint8), count=granules, bitorder="little").astype(bool)


def encode(granule_bytes: int, buffers: list[BufferFootprint]) -> dict:
    """The ``footprint`` metadata entry for ``buffers`` (those with no granule touched are left out)."""
    out = []
    for b in buffers:
        if not (b.read.any() or b.written.any()):
            continue
        entry = {"base": int(b.base), "size": int(b.size), "read_granules": int(b.read.sum()),
                 "written_granules": int(b.written.sum()), "read": _pack(b.read), "written": _pack(b.written)}
        if b.arg is not None:
            entry["arg"] = int(b.arg)
        out.append(entry)
    return {"granule_bytes": int(granule_bytes), "encoding": ENCODING, "buffers": out}


def decode(entry, where: str = "footprint") -> LaunchFootprint:
    """A :class:`LaunchFootprint` from the metadata entry; a clear error naming the bad field."""
    if not isinstance(entry, dict):
        raise TraceFormatError(f"{where}: expected an object with granule_bytes and buffers")
    g = entry.get("granule_bytes")
    if not isinstance(g, int) or isinstance(g, bool) or g <= 0 or g & (g - 1):
        raise TraceFormatError(f"{where}.granule_bytes: expected a power of two > 0, got {g!r}")
    bufs = entry.get("buffers")
    if not isinstance(bufs, list):
        raise TraceFormatError(f"{where}.buffers: expected a list of buffer entries")
    for i, b in enumerate(bufs):
        at = f"{where}.buffers[{i}]"
        if not isinstance(b, dict):
            raise TraceFormatError(f"{at}: expected an object")
        for key in ("base", "size"):
            v = b.get(key)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise TraceFormatError(f"{at}.{key}: expected an integer >= 0, got {v!r}")
    _check_granules(sum(-(-b["size"] // g) for b in bufs), g, where)
    key = (g, tuple((b["base"], b["size"], b.get("read"), b.get("written"), b.get("arg")) for b in bufs))
    try:
        known = _DECODED.get(key)
    except TypeError:  # a field of an unhashable type: decoded below, which names it
        key, known = None, None
    if known is not None:
        _DECODED.move_to_end(key)
        return known
    out = []
    for i, b in enumerate(bufs):
        at = f"{where}.buffers[{i}]"
        granules = -(-b["size"] // g)
        bits = {k: _unpack(b.get(k), granules, f"{at}.{k}") for k in ("read", "written")}
        arg = b.get("arg")
        out.append(BufferFootprint(b["base"], b["size"], bits["read"], bits["written"],
                                   arg if isinstance(arg, int) else None))
    made = LaunchFootprint(g, tuple(out))
    if key is not None:
        _DECODED[key] = made
        while len(_DECODED) > _DECODED_KEPT:
            _DECODED.popitem(last=False)
    return made


#: Footprints decoded lately, by their metadata text: a launch's footprint is decoded again by every
#: replay of it (each target, each what-if), and its distinct units are then counted once.
_DECODED: OrderedDict = OrderedDict()
_DECODED_KEPT = 4


def _check_granules(total: int, granule_bytes: int, where: str) -> None:
    """Refuse a footprint whose buffers add up to more granules than one launch may describe
    (:data:`tracekit.trace.limits.MAX_FOOTPRINT_GRANULES`), before any bitmap is inflated."""
    if total > limits.MAX_FOOTPRINT_GRANULES:
        raise TraceFormatError(
            f"{where}: its buffers add up to {total:,} granules of {granule_bytes} bytes "
            f"({total * granule_bytes / 2**30:,.1f} GiB), more than the {limits.MAX_FOOTPRINT_GRANULES:,} "
            "a launch's footprint may describe (docs/trace-format.md, Limits)")


def launch_footprint(trace, launch: int) -> LaunchFootprint | None:
    """The footprint a launch's metadata carries, or None (recorded whole, or by an older recorder)."""
    meta = trace.launch_metadata(launch)
    if "footprint" not in meta:
        return None
    return decode(meta["footprint"], f"{trace.path}: launch {launch}: metadata.footprint")
