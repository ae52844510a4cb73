"""What the image rules read: texture-path numbers per site, and the sites a fix would remove.

The image rules need more of the analysis than :class:`~analyzers.rules.facts.Facts`
shapes for every rule: the texture path's per-site numbers (texture look-ups, tiles,
the what-if of a 2-D read-only buffer read as an image), the image format and sampler
of each read, and, to price a fix by replay, which instruction sites it would remove.
Everything here is read from the launch result's site table (``result.per_site``),
which carries each site's opcode, line and column; nothing opens the trace.

Which sites a fix removes is read from the source positions the trace records:

* **the subscript of a load** (:func:`subscript_sites`): the integer instructions on
  the load's line from the load's column up to the next load on that line.  The
  compiler puts a subscript's multiply, add, widening and pointer arithmetic at
  columns inside the brackets, which start at the array's name (the load's
  column).  Index arithmetic written on an earlier line is not found, so the
  estimate errs low;
* **border clamps** (:func:`border_clamp_sites`): integer ``clamp``, ``min``,
  ``max`` calls and compare-and-select pairs on lines up to the last 2-D read,
  on lines without float arithmetic (a float ``clamp`` of a result is not a
  coordinate clamp).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Opcodes of the instructions a hand-written border clamp compiles to.
CLAMP_OPCODES = ("call clamp", "call min", "call max", "select")
#: Integer instruction classes a subscript's address arithmetic is made of.
INDEX_CLASSES = ("int_add", "int_mul", "bitwise", "int64_add", "int64_mul")
#: Channel types whose values a 16-bit float holds without loss of the data's own resolution:
#: 8-bit normalised integers (an 11-bit significand resolves 1/255 steps) and half floats.
HALF_EXACT_TYPES = ("unorm_int8", "snorm_int8", "half_float")
_TEXTURE_COLUMNS = ("row_pitch_bytes", "item_rows", "item_columns", "whatif_rows", "whatif_texture_lookups",
                    "whatif_texture_hits", "whatif_cache_lookups", "cache_lookups", "texture_lookups",
                    "texture_hits", "texture_fills", "texture_tiles", "texture_tiles_min", "image_format",
                    "sampler_addressing", "sampler_filter", "sampler_normalized")


def has_texture_path(f) -> bool:
    """The target reads images through texture caches of its own (not a data cache it shares)."""
    tex = getattr(f.target, "texture", None)
    return tex is not None and bool(tex.caches) and bool(getattr(f.target, "caches", None))


def code_sites(f) -> pd.DataFrame:
    """Every site of the launch with its class, opcode, source position and wave issues."""
    ps = f.result.per_site
    cols = ["site", "opclass", "opcode", "file", "line", "column", "issues"]
    if ps is None or ps.empty:
        return pd.DataFrame(columns=cols)
    out = ps[[c for c in cols if c in ps.columns]].drop_duplicates("site").copy()
    for c in cols:
        if c not in out:
            out[c] = np.nan
    out["line"] = pd.to_numeric(out["line"], errors="coerce")
    out["column"] = pd.to_numeric(out["column"], errors="coerce")
    out["opcode"] = out["opcode"].astype(object).where(out["opcode"].notna(), "")
    out["opclass"] = out["opclass"].astype(object).where(out["opclass"].notna(), "")
    return out.reset_index(drop=True)


def texture_sites(f) -> pd.DataFrame:
    """The memory sites (``f.sites``) with the texture path's per-site numbers beside them."""
    sites = f.sites
    ps = f.result.per_site
    have = [c for c in _TEXTURE_COLUMNS if ps is not None and c in ps.columns]
    if not have:
        return sites.assign(**{c: np.nan for c in _TEXTURE_COLUMNS})
    extra = ps[["site", *have]].drop_duplicates("site")
    out = sites.merge(extra, on="site", how="left")
    for c in _TEXTURE_COLUMNS:
        if c not in out:
            out[c] = np.nan
    return out


def buffer_2d_reads(f) -> pd.DataFrame:
    """Loads of read-only buffers the replay found read in rows (a row pitch), with their numbers."""
    t = texture_sites(f)
    t = t[t["space"].isin(["global", "constant"]) & (t["op"] == "load") & t["row_pitch_bytes"].notna()]
    return t[t["requests"] > 0]


def image_reads(f) -> pd.DataFrame:
    """Image reads (``read_image*``) that went through the target's texture caches."""
    t = texture_sites(f)
    return t[(t["space"] == "image") & (t["op"] == "load") & (t["requests"] > 0)]


def subscript_sites(f, load_sites) -> tuple[int, ...]:
    """The address arithmetic of the loads at ``load_sites`` (see the module docstring)."""
    code = code_sites(f)
    if code.empty:
        return ()
    loads = code[code["site"].isin([int(s) for s in load_sites])].dropna(subset=["line", "column"])
    every_load = code[code["opclass"] == "load"].dropna(subset=["line", "column"])
    out: set[int] = set()
    for ld in loads.itertuples():
        on_line = code[(code["file"] == ld.file) & (code["line"] == ld.line)]
        later = every_load[(every_load["file"] == ld.file) & (every_load["line"] == ld.line)
                           & (every_load["column"] > ld.column)]
        end = later["column"].min() if len(later) else np.inf
        pick = on_line[on_line["opclass"].isin(INDEX_CLASSES) & (on_line["column"] >= ld.column)
                       & (on_line["column"] < end)]
        out.update(int(s) for s in pick["site"])
    return tuple(sorted(out))


def border_clamp_sites(f, read_sites) -> tuple[int, ...]:
    """Hand-written coordinate clamps before the reads at ``read_sites`` (see the module docstring)."""
    code = code_sites(f)
    reads = code[code["site"].isin([int(s) for s in read_sites])].dropna(subset=["line"])
    if code.empty or reads.empty:
        return ()
    last = reads["line"].max()
    files = set(reads["file"])
    floats = code["opclass"].astype(str).str.match(r"^fp(16|32|64)_")
    float_lines = set(zip(code.loc[floats, "file"], code.loc[floats, "line"], strict=True))
    where = list(zip(code["file"], code["line"], strict=True))
    clamp = (code["opcode"].isin(CLAMP_OPCODES) & code["file"].isin(files) & (code["line"] <= last))
    clamp = clamp.to_numpy().copy()
    clamp &= np.array([w not in float_lines for w in where], bool)
    clamp &= (code["issues"].fillna(0) > 0).to_numpy()
    picked = code[clamp]
    # a select's compare sits on its line too
    selects = set(zip(picked.loc[picked["opcode"] == "select", "file"],
                      picked.loc[picked["opcode"] == "select", "line"], strict=True))
    compares = code[(code["opcode"] == "icmp").to_numpy() & np.array([w in selects for w in where], bool)]
    return tuple(sorted({int(s) for s in picked["site"]} | {int(s) for s in compares["site"]}))


def lines_of(f, sites) -> list[str]:
    """``file:line`` of sites, in source order, each once."""
    code = code_sites(f)
    rows = code[code["site"].isin(list(sites))].dropna(subset=["line"]).sort_values(["file", "line"])
    seen = []
    for r in rows.itertuples():
        label = f"{str(r.file).rsplit('/', 1)[-1]}:{int(r.line)}"
        if label not in seen:
            seen.append(label)
    return seen


def channel_type(image_format) -> str:
    """``unorm_int8`` of ``rgba:unorm_int8`` (empty when unknown)."""
    text = str(image_format or "")
    return text.split(":", 1)[1] if ":" in text else ""
