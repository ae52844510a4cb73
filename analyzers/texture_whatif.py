"""Read-only buffers read in 2-D: their row pitch, and the same reads as image reads.

The vendor guides advise holding 2-D data that a kernel only reads in an image
rather than a buffer (Adreno guide §6.2, §7.1.5.3; Intel guide "Using Buffers and
Images Appropriately"; PowerVR guide §Texture Processing Unit).  To say what that
would change, the replay needs the buffer's rows: the byte distance between an
element and the one a row below.  It is read off the trace itself: the address a
work-item reads at a site, against the address the work-item one row of the
NDRange below reads at the same site and occurrence; the most common distance is
the pitch (:func:`row_pitches`).  With a pitch, every read of the buffer gets 2-D
coordinates (``y = offset // pitch``, ``x = offset % pitch // element size``) and can
be replayed as an image read through the target's texture caches
(:class:`analyzers.texture_replay.TextureReplay`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: A pitch is accepted when at least this share of row-neighbour pairs agree on it.
PITCH_AGREEMENT = 0.5
#: Rows of a launch examined to find the pitches (its first ones).
SAMPLE_ROWS = 1 << 15


@dataclass(frozen=True)
class BufferRows:
    """A read-only buffer argument read in 2-D: its base address and row pitch (bytes)."""

    arg: int
    base: int
    pitch: int
    agreement: float   # share of row-neighbour pairs at this distance


def row_pitches(sample: pd.DataFrame, local_size, num_groups, bases: dict[int, int]) -> dict[int, BufferRows]:
    """The 2-D read-only buffers of a launch, from a sample of its accesses.

    ``sample`` has columns group, item, site, space, op, address, size, buffer (in
    canonical order); ``local_size`` and ``num_groups`` are the launch's 3-D sizes;
    ``bases`` maps argument index to buffer base (launch layout), the lowest sampled
    address standing in where it is unknown.  A buffer qualifies when the sample
    only loads from it, through ``global`` or ``constant`` pointers.
    """
    lsx, lsy = int(local_size[0]), int(local_size[1])
    ngx, ngy = int(num_groups[0]), int(num_groups[1])
    if lsy * ngy <= 1 or sample.empty or "buffer" not in sample:
        return {}
    buf = sample["buffer"].to_numpy(np.int64, na_value=-1)
    space = sample["space"].to_numpy()
    op = sample["op"].to_numpy()
    mem = (buf >= 0) & ((space == "global") | (space == "constant"))
    written = np.unique(buf[mem & (op != "load")])
    keep = mem & (op == "load") & ~np.isin(buf, written)
    if not keep.any():
        return {}
    occ = sample.groupby(["group", "item", "site"], sort=False).cumcount().to_numpy()[keep]
    group = sample["group"].to_numpy(np.int64)[keep]
    item = sample["item"].to_numpy(np.int64)[keep]
    site = sample["site"].to_numpy(np.int64)[keep]
    address = sample["address"].to_numpy(np.int64)[keep]
    buf = buf[keep]
    gx = (group % ngx) * lsx + item % lsx
    gy = ((group // ngx) % ngy) * lsy + (item // lsx) % lsy
    # neighbours one row apart sort next to each other: same buffer, site, occurrence and column
    srt = np.lexsort((gy, gx, occ, site, buf))
    b, s_, o, x, y, a = (v[srt] for v in (buf, site, occ, gx, gy, address))
    pair = ((b[1:] == b[:-1]) & (s_[1:] == s_[:-1]) & (o[1:] == o[:-1]) & (x[1:] == x[:-1])
            & (y[1:] == y[:-1] + 1))
    dist, owner = a[1:][pair] - a[:-1][pair], b[:-1][pair]
    out: dict[int, BufferRows] = {}
    for arg in np.unique(owner).tolist():
        d = dist[owner == arg]
        values, counts = np.unique(d[d > 0], return_counts=True)
        if not len(values):
            continue
        best = int(np.argmax(counts))
        share = counts[best] / len(d)
        if share < PITCH_AGREEMENT:
            continue
        base = bases.get(arg)
        if base is None:
            base = int(address[buf == arg].min())
        out[arg] = BufferRows(arg, int(base), int(values[best]), float(share))
    return out


def whatif_coordinates(rows: dict[int, BufferRows], buffer: np.ndarray, address: np.ndarray,
                       size: np.ndarray, mask: np.ndarray):
    """2-D coordinates of the masked accesses of 2-D read-only buffers, as if the buffer were an
    image of texels of the access size: (rows selected, x, y, base, width in texels)."""
    args = np.array(sorted(rows), np.int64)
    if not len(args):
        return np.zeros(len(buffer), bool), *(np.empty(0, np.int64) for _ in range(4))
    lut = np.full(int(args.max()) + 2, -1, np.int64)
    lut[args] = np.arange(len(args))
    b = np.where(mask & (buffer >= 0) & (buffer <= args.max()), buffer, len(lut) - 1)
    which = lut[np.clip(b, 0, len(lut) - 1)]
    sel = mask & (which >= 0)
    idx = which[sel]
    base = np.array([rows[a].base for a in args], np.int64)[idx]
    pitch = np.array([rows[a].pitch for a in args], np.int64)[idx]
    e = np.maximum(size[sel].astype(np.int64), 1)
    rel = (address[sel] & np.int64((1 << 63) - 1)) - base
    rel = np.maximum(rel, 0)
    y = rel // pitch
    x = (rel % pitch) // e
    return sel, x, y, base, np.maximum(pitch // e, 1)
