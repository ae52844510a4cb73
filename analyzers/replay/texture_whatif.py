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
(:class:`analyzers.replay.texture_replay.TextureReplay`).
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
    #: The neighbourhood one work-item reads (medians over the sampled work-items): distinct rows,
    #: and distinct columns, of the buffer.  A 3x3 stencil reads 3 x 3, a column walk N x 1.
    item_rows: float = 1.0
    item_columns: float = 1.0


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
        pitch = int(values[best])
        mine = buf == arg
        sizes = sample_size(sample, keep)[mine]
        rows, cols = item_shape(group[mine], item[mine], address[mine] - base, sizes, pitch)
        out[arg] = BufferRows(arg, int(base), pitch, float(share), rows, cols)
    return out


def sample_size(sample: pd.DataFrame, keep: np.ndarray) -> np.ndarray:
    """Access sizes of the kept sample rows (4 bytes where the sample has no sizes)."""
    if "size" not in sample:
        return np.full(int(keep.sum()), 4, np.int64)
    return sample["size"].to_numpy(np.int64)[keep]


def item_shape(group: np.ndarray, item: np.ndarray, offset: np.ndarray, size: np.ndarray,
               pitch: int) -> tuple[float, float]:
    """Median distinct rows and distinct columns one work-item reads, from its offsets in the buffer.

    What separates a neighbourhood read (a stencil: several rows and several columns per item,
    shared with the items around it) from a walk along one dimension (one column, many rows).
    """
    if not len(offset):
        return 1.0, 1.0
    off = np.maximum(offset, 0)
    y = off // pitch
    x = (off % pitch) // np.maximum(size, 1)
    who = np.unique(np.stack([group, item]), axis=1, return_inverse=True)[1].ravel()
    rows = _distinct_per(who, y)
    cols = _distinct_per(who, x)
    return float(np.median(rows)), float(np.median(cols))


def _distinct_per(owner: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Distinct values per owner (owners numbered 0..n-1)."""
    pairs = np.unique(np.stack([owner, value]), axis=1)
    return np.bincount(pairs[0], minlength=int(owner.max()) + 1)


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
