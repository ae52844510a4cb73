"""What-if changes about images: a buffer read as an image, filtered by the sampler, borders, half texels.

The guides' image advice changes five things a replay can apply literally:

- :class:`AsImage` (``as-image=BUFFER[:SITE,...]``): the loads of a read-only buffer
  argument become reads of a 2-D image of the same texels.  The row pitch is found
  from the launch itself (:func:`analyzers.replay.texture_whatif.row_pitches`); each load
  gets its texel's coordinates and goes through the texture path of the replay, the
  image's size and base go into the launch metadata.  The listed sites are the
  subscript's address arithmetic, which an image read does not need (the texture
  unit computes the texel address from the coordinates): their instructions go.
- :class:`FilteredImage` (``filter-image=BUFFER:SITE,...[:TABLE-SITE,...]``): the same, for
  a kernel that interpolates the texels it gathers by hand; a linear-filtering sampler
  reads the same texels once per pixel and the listed sites (weights, weighted sum,
  the gathers' addresses: :func:`analyzers.dataflow.interpolation`) go, with the
  look-ups of a weight table.
- :class:`GatherImage` (``gather-image=BUFFER``): a gathered buffer read through the
  texture caches as a 1-D image over the same memory (one row, texels in address order).
- :class:`SamplerBorders` (``sampler-borders=SITE,...``): the listed sites clamp
  coordinates at the image's borders by hand; a sampler with a clamping address
  mode (or an input padded by the stencil's reach) makes them unnecessary, so
  their instructions go.
- :class:`HalfTexels` (``read-imageh``): texels read with ``read_imageh`` arrive as
  16-bit floats and the arithmetic on them runs in half precision: every 32-bit
  float add, multiply and fused multiply-add is priced as its 16-bit counterpart.
  Only the execution models change.

Each is a :class:`~analyzers.whatif.changes.Change`; :data:`IMAGE_CHANGES` names
them for :func:`parse_image_change` (``analyzers.whatif.parse_change`` reads both sets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analyzers.replay import SAMPLE_ROWS, row_pitches
from analyzers.whatif.changes import Change, Launch, drop_rows
from tracekit.errors import TracekitError

#: Channel order and type of an image whose texel is one access of this many bytes (a float
#: buffer read one, two or four floats at a time; narrower accesses as normalised integers).
TEXEL_FORMATS = {1: "r:unorm_int8", 2: "r:half_float", 4: "r:float", 8: "rg:float", 16: "rgba:float"}
_READABLE = ("global", "constant")
_FP32_TO_FP16 = {"fp32_add": "fp16_add", "fp32_mul": "fp16_mul", "fp32_fma": "fp16_fma"}


def drop_sites(launch: Launch, sites: tuple[int, ...]) -> Launch:
    """The launch with the instruction rows of ``sites`` removed (memory rows are kept)."""
    if not sites or launch.instructions.empty:
        return launch
    ins = launch.instructions
    keep = ~ins["site"].isin(list(sites)) | ins["opclass"].isin(["load", "store", "atomic"])
    return launch.with_(instructions=ins[keep].reset_index(drop=True))


@dataclass(frozen=True)
class AsImage(Change):
    """The loads of buffer argument ``buffer`` read as a 2-D image; ``sites`` (the subscript's
    address arithmetic) no longer executed."""

    buffer: int
    sites: tuple[int, ...] = ()
    name = "as-image"
    refers_to = {"buffer": "buffer", "sites": "instruction site"}

    @property
    def spec(self) -> str:
        tail = (":" + ",".join(str(s) for s in self.sites)) if self.sites else ""
        return f"as-image={self.buffer}{tail}"

    def describe(self) -> str:
        drop = " and drop its address arithmetic" if self.sites else ""
        return f"read buffer argument {self.buffer} as a 2-D image through the texture caches{drop}"

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        if acc.empty or "buffer" not in acc:
            raise TracekitError(f"as-image: the launch has no accesses of buffer argument {self.buffer}")
        buf = acc["buffer"].to_numpy(np.int64, na_value=-1)
        space, op = acc["space"].to_numpy(), acc["op"].to_numpy()
        mine = (buf == self.buffer) & np.isin(space, _READABLE)
        if not (mine & (op == "load")).any():
            raise TracekitError(f"as-image: the launch does not load buffer argument {self.buffer}")
        if (mine & (op != "load")).any():
            raise TracekitError(f"as-image: buffer argument {self.buffer} is written by the kernel; a "
                                "kernel may only read the images it samples")
        row = dict(launch.row)
        meta = dict(row.get("metadata") or {})
        rows = self._pitch(acc, row, meta)
        sel = mine & (op == "load")
        addr = acc["address"].to_numpy().astype(np.uint64).astype(np.int64) & np.int64((1 << 63) - 1)
        size = acc["size"].to_numpy().astype(np.int64)
        texel = int(pd.Series(size[sel]).mode().iloc[0])
        off = np.maximum(addr[sel] - rows.base, 0)
        y = off // rows.pitch
        x = (off % rows.pitch) // texel
        out = acc.copy()
        n = len(out)
        # empty columns made from arrays: a column built from a Python list of n missing values
        # costs about a second per million rows
        for c in ("texel_x", "texel_y", "texel_z"):
            if c not in out:
                out[c] = pd.arrays.IntegerArray(np.zeros(n, np.int32), np.ones(n, np.bool_))
        for c in ("image_format", "sampler_addressing", "sampler_filter"):
            if c not in out:
                out[c] = pd.Series(np.full(n, None, dtype=object), index=out.index)
        if "sampler_normalized" not in out:
            out["sampler_normalized"] = pd.arrays.BooleanArray(np.zeros(n, np.bool_), np.ones(n, np.bool_))
        idx = np.flatnonzero(sel)
        out["space"] = out["space"].astype(object)
        out.loc[idx, "space"] = "image"
        out["texel_x"] = out["texel_x"].astype("Int32")
        out["texel_y"] = out["texel_y"].astype("Int32")
        out["texel_z"] = out["texel_z"].astype("Int32")
        out.loc[idx, "texel_x"] = x.astype(np.int32)
        out.loc[idx, "texel_y"] = y.astype(np.int32)
        out.loc[idx, "texel_z"] = 0
        fmt = TEXEL_FORMATS.get(texel, "r:float")
        for c, v in (("image_format", fmt), ("sampler_addressing", "clamp_to_edge"),
                     ("sampler_filter", "nearest")):
            out[c] = out[c].astype(object)
            out.loc[idx, c] = v
        out.loc[idx, "sampler_normalized"] = False
        width = max(rows.pitch // texel, 1)
        height = self._height(meta, rows, int(y.max()) + 1)
        images = [im for im in meta.get("images") or [] if int(im.get("arg", -1)) != self.buffer]
        images.append({"arg": self.buffer, "base": int(rows.base), "width": int(width), "height": int(height),
                       "depth": 1, "element_size": texel, "format": fmt, "access": "read_only",
                       "type": "image2d", "from_buffer": True})
        meta["images"] = images
        row["metadata"] = meta
        return drop_sites(launch.with_(accesses=out, row=row), self.sites)

    def _pitch(self, acc: pd.DataFrame, row: dict, meta: dict):
        local = [max(int(v), 1) for v in (row.get("local_size") or [1, 1, 1])]
        glob = [int(v) for v in (row.get("global_size") or [1, 1, 1])]
        groups = [-(-g // loc) for g, loc in zip(glob, local, strict=False)]
        bases = {int(b["arg"]): int(b["base"]) for b in (meta.get("layout") or {}).get("global_buffers", [])
                 if "arg" in b and "base" in b}
        head = acc.iloc[:SAMPLE_ROWS][["group", "item", "site", "space", "op", "address", "size", "buffer"]]
        head = head.assign(space=head["space"].astype(object), op=head["op"].astype(object),
                           address=head["address"].astype(np.uint64).astype(np.int64))
        found = row_pitches(head, local, groups, bases)
        if self.buffer not in found:
            raise TracekitError(f"as-image: buffer argument {self.buffer} is not read in rows (no row pitch "
                                "found between work-items one row apart)")
        return found[self.buffer]

    @staticmethod
    def _height(meta: dict, rows, seen: int) -> int:
        """Rows of the image: the buffer's size over the pitch when the layout gives it."""
        for b in (meta.get("layout") or {}).get("global_buffers", []):
            if int(b.get("arg", -1)) == rows.arg and b.get("size"):
                return max(int(b["size"]) // rows.pitch, seen, 1)
        return max(seen, 1)


#: Channel order and type of an image of 8-bit channels whose texel is one access of this many
#: bytes (the filtered read returns normalised floats); wider texels are read as floats.
FILTERED_FORMATS = {1: "r:unorm_int8", 2: "rg:unorm_int8", 4: "rgba:unorm_int8", 8: "rg:float",
                    16: "rgba:float"}


@dataclass(frozen=True)
class FilteredImage(AsImage):
    """Hand-written bilinear interpolation of buffer argument ``buffer`` done by a linear-filtering
    sampler: its gathers read the same texels as one image read per pixel, the ``sites`` of the
    weights, the blend and the gathers' address arithmetic (:func:`analyzers.dataflow.interpolation`)
    no longer execute, and the weight-table look-ups at ``tables`` no longer happen."""

    tables: tuple[int, ...] = ()
    name = "filter-image"
    refers_to = {"buffer": "buffer", "sites": "instruction site", "tables": "instruction site"}

    @property
    def spec(self) -> str:
        tail = (":" + ",".join(str(s) for s in self.sites)) if self.sites or self.tables else ""
        tables = (":" + ",".join(str(s) for s in self.tables)) if self.tables else ""
        return f"filter-image={self.buffer}{tail}{tables}"

    def describe(self) -> str:
        return (f"read buffer argument {self.buffer} as an image with a CLK_FILTER_LINEAR sampler and let "
                "the texture unit gather and interpolate the four texels")

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        if self.tables and not acc.empty:
            # the look-ups go with their load counts (drop_rows cuts each site's counts to match)
            launch = drop_rows(launch, acc["site"].isin(list(self.tables)).to_numpy())
            acc = launch.accesses
        mine = (acc["buffer"].to_numpy(np.int64, na_value=-1) == self.buffer) & (
            acc["op"] == "load").to_numpy()
        gathers = sorted(int(s) for s in acc.loc[mine, "site"].unique())
        out = super().apply(launch, target)
        acc = out.accesses
        image = (acc["space"] == "image").to_numpy() & acc["site"].isin(gathers).to_numpy()
        size = int(pd.Series(acc.loc[image, "size"]).mode().iloc[0]) if image.any() else 4
        fmt = FILTERED_FORMATS.get(size, "rgba:float")
        acc = acc.copy()
        acc.loc[image, "sampler_filter"] = "linear"
        acc.loc[image, "image_format"] = fmt
        row = dict(out.row)
        meta = dict(row.get("metadata") or {})
        meta["images"] = [dict(im, format=fmt) if int(im.get("arg", -1)) == self.buffer else im
                          for im in meta.get("images") or []]
        row["metadata"] = meta
        # one image read per pixel: the gathers' load instructions but the first go
        ins = out.instructions
        extra = ins["site"].isin(gathers[1:]).to_numpy() & (ins["opclass"] == "load").to_numpy()
        return out.with_(accesses=acc, row=row, instructions=ins[~extra].reset_index(drop=True))


@dataclass(frozen=True)
class GatherImage(AsImage):
    """The gathers from buffer argument ``buffer`` read through the texture path as a 1-D image
    (``image1d_buffer_t`` over the same memory): whatever neighbouring items share, the texture
    caches keep.  A candidate only: a gather without reuse gains nothing and the replay says so."""

    name = "gather-image"
    speculative = True
    refers_to = {"buffer": "buffer"}

    @property
    def spec(self) -> str:
        return f"gather-image={self.buffer}"

    def describe(self) -> str:
        return (f"read the gathers from buffer argument {self.buffer} through the texture caches, as an "
                "image1d_buffer_t view of the same memory")

    def _pitch(self, acc: pd.DataFrame, row: dict, meta: dict):
        """One row as long as the buffer: a 1-D image's texels lie in address order."""
        from analyzers.replay import BufferRows

        mine = acc[(acc["buffer"].to_numpy(np.int64, na_value=-1) == self.buffer)]
        addr = mine["address"].to_numpy().astype(np.uint64).astype(np.int64) & np.int64((1 << 63) - 1)
        size = mine["size"].to_numpy().astype(np.int64)
        layout = {int(b["arg"]): b for b in (meta.get("layout") or {}).get("global_buffers", [])
                  if "arg" in b}
        base = int(layout.get(self.buffer, {}).get("base", addr.min()))
        length = int(layout.get(self.buffer, {}).get("size") or (addr.max() + size.max() - base))
        return BufferRows(self.buffer, base, max(length, 1), 1.0)


@dataclass(frozen=True)
class SamplerBorders(Change):
    """The instructions of ``sites`` (coordinate clamps at the borders) no longer executed."""

    sites: tuple[int, ...]
    name = "sampler-borders"
    refers_to = {"sites": "instruction site"}
    needs_replay = False

    @property
    def spec(self) -> str:
        return "sampler-borders=" + ",".join(str(s) for s in self.sites)

    def describe(self) -> str:
        return ("let a clamping sampler (or a padded input) handle the borders and drop the hand-written "
                "clamps")

    def apply(self, launch: Launch, target) -> Launch:
        if not self.sites:
            raise TracekitError("sampler-borders: name the clamp sites to drop")
        return drop_sites(launch, self.sites)


@dataclass(frozen=True)
class HalfTexels(Change):
    """32-bit float arithmetic priced as 16-bit: texels read with ``read_imageh``."""

    name = "read-imageh"
    needs_replay = False

    def describe(self) -> str:
        return "read the texels with read_imageh and compute in half precision"

    def apply(self, launch: Launch, target) -> Launch:
        ins = launch.instructions
        if ins.empty:
            return launch
        names = {a: b for a, b in _FP32_TO_FP16.items() if b in target.alu_cycles}
        if not names:
            raise TracekitError(f"read-imageh: {target.name} prices no half-precision arithmetic")
        return launch.with_(instructions=ins.assign(opclass=ins["opclass"].astype(str).replace(names)))


IMAGE_CHANGES = {c.name: c for c in (AsImage, FilteredImage, GatherImage, SamplerBorders, HalfTexels)}


def parse_image_change(name: str, arg: str, text: str) -> Change:
    """``as-image=BUFFER[:SITE,...]``, ``filter-image=BUFFER[:SITE,...[:TABLE-SITE,...]]``,
    ``sampler-borders=SITE[,SITE...]``, ``read-imageh``."""
    def ints(part: str) -> list[int]:
        try:
            vals = [int(p) for p in part.replace(":", ",").split(",") if p.strip()]
        except ValueError:
            raise TracekitError(f"what-if '{text}': expected whole numbers after '='") from None
        if any(v < 0 for v in vals):
            raise TracekitError(f"what-if '{text}': numbers must be 0 or more")
        return vals

    if name == "as-image":
        buffer, _, sites = arg.partition(":")
        b = ints(buffer)
        if len(b) != 1:
            raise TracekitError(f"what-if '{text}': expected as-image=BUFFER[:SITE,...]")
        return AsImage(b[0], tuple(ints(sites)))
    if name == "gather-image":
        b = ints(arg)
        if len(b) != 1:
            raise TracekitError(f"what-if '{text}': expected gather-image=BUFFER")
        return GatherImage(b[0])
    if name == "filter-image":
        buffer, _, rest = arg.partition(":")
        sites, _, tables = rest.partition(":")
        b = ints(buffer)
        if len(b) != 1:
            raise TracekitError(f"what-if '{text}': expected filter-image=BUFFER[:SITE,...[:TABLE-SITE,...]]")
        return FilteredImage(b[0], tuple(ints(sites)), tuple(ints(tables)))
    if name == "sampler-borders":
        sites = ints(arg)
        if not sites:
            raise TracekitError(f"what-if '{text}': expected sampler-borders=SITE[,SITE...]")
        return SamplerBorders(tuple(sites))
    if arg:
        raise TracekitError(f"what-if '{name}' takes no value")
    return HalfTexels()

