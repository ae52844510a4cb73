"""Report sections for the texture path and for Intel machine code, built from one launch result.

Two optional parts of a launch's card:

* **Texture caches** (:func:`texture_view`): on a target with a texture path, the
  hit rate of every texture-cache level for the launch, each image read (format,
  sampler, hit rate, tiles per request against the fewest that hold its texels)
  and each read-only buffer read in rows (its pitch, the neighbourhood a work-item
  reads, and the what-if of reading it as an image).  On Adreno it also says, in
  the model's numbers, why the image path is the faster one there.
* **Machine code** (:func:`machine_view`): for an Intel launch priced from the
  compiler's code, the SIMD width it chose, its registers and spills, and the
  hottest source lines with the machine instructions each became.

Both read the typed result (and the rules' site helpers) only; nothing here
models anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tracekit.report.fmt import fmt_num, fmt_pct

#: Hottest source lines of the machine code shown, and instructions listed per line.
MACHINE_LINES = 5
LISTING_ROWS = 14


@dataclass
class TextureLevelView:
    level: str
    scope: str
    hits: int
    misses: int
    hit_rate: float | None


@dataclass
class ImageReadView:
    """One image read site: what it reads with and how its requests met the texture cache."""

    label: str
    image_format: str
    sampler: str
    lookups: int
    hit_rate: float | None
    tiles_per_request: float | None
    tiles_needed_per_request: float | None
    data_cache_lines: int


@dataclass
class BufferAsImageView:
    """One read-only buffer read in rows, and the same reads replayed through the texture caches."""

    label: str
    buffer: int
    row_pitch_bytes: int
    neighbourhood: str
    data_cache_lines: int
    data_cache_lines_as_image: int
    hit_rate_as_image: float | None


@dataclass
class TextureView:
    """The texture section of one launch on one target."""

    data_cache: str
    levels: list[TextureLevelView] = field(default_factory=list)
    image_reads: list[ImageReadView] = field(default_factory=list)
    buffers: list[BufferAsImageView] = field(default_factory=list)
    #: Why the image path is faster on this target, in the model's numbers (Adreno).
    why: list[str] = field(default_factory=list)


@dataclass
class MachineLineView:
    label: str
    source: str               # the source line's text, when the trace has the source
    share: float              # of the launch's machine cycles
    executed: float           # machine instructions executed (whole launch)
    instructions: int         # static instructions of the line
    unroll: int
    listing: list[str]
    more: int                 # instructions of the line not listed


@dataclass
class MachineCodeView:
    """The machine-code section of one Intel launch."""

    priced_by: str
    reason: str
    compiler: str = ""
    device: str = ""
    simd_width: int | None = None
    usual_width: int | None = None
    narrowed: bool = False
    grf_used: int | None = None
    grf_count: int | None = None
    registers_per_item: int | None = None
    spills: bool = False
    scratch_bytes_per_thread: int = 0
    #: None where the spill messages' executions are unknown (machine code mapped to no source line)
    scratch_read_bytes: float | None = 0.0
    scratch_write_bytes: float | None = 0.0
    scratch_share_of_first_level: float | None = None
    int64_share: float | None = None
    coverage: float | None = None
    lines: list[MachineLineView] = field(default_factory=list)


# -- texture ---------------------------------------------------------------------------------------

def _label(row) -> str:
    file = str(row.get("file") or "?").rsplit("/", 1)[-1]
    line = row.get("line")
    return f"{file}:{int(line)}" if line == line and line else f"site {int(row['site'])}"


def _int(v) -> int:
    return int(v) if v == v and v is not None else 0


def texture_view(r, target) -> TextureView | None:
    """The texture section of launch result ``r`` on ``target``; None without texture reads or 2-D
    read-only buffers, or on a target without a texture path."""
    from analyzers.rules import vendor_key
    from analyzers.rules.facts import facts_for
    from analyzers.rules.image_facts import buffer_2d_reads, has_texture_path, image_reads

    if r.memory is None or getattr(target, "texture", None) is None:
        return None
    f = facts_for(r, target)
    if f is None or not has_texture_path(f):
        return None
    reads, bufs = image_reads(f), buffer_2d_reads(f)
    if not len(reads) and not len(bufs):
        return None
    view = TextureView(data_cache=target.caches[0].name if target.caches else "")
    view.levels = [TextureLevelView(c.level, c.scope, int(c.hits), int(c.misses),
                                    c.hit_rate if c.hits + c.misses else None)
                   for c in r.memory.memory.texture_caches if c.hits + c.misses]
    for row in reads.sort_values("site").to_dict(orient="records"):
        look = _int(row.get("texture_lookups"))
        req = _int(row.get("requests"))
        sampler = ", ".join(str(row.get(c)) for c in ("sampler_addressing", "sampler_filter")
                            if row.get(c) == row.get(c) and row.get(c) is not None)
        view.image_reads.append(ImageReadView(
            label=_label(row), image_format=str(row.get("image_format") or "–"), sampler=sampler or "–",
            lookups=look, hit_rate=_int(row.get("texture_hits")) / look if look else None,
            tiles_per_request=_int(row.get("texture_tiles")) / req if req else None,
            tiles_needed_per_request=_int(row.get("texture_tiles_min")) / req if req else None,
            data_cache_lines=_int(row.get("cache_lookups"))))
    for row in bufs.sort_values("site").to_dict(orient="records"):
        look = _int(row.get("whatif_texture_lookups"))
        view.buffers.append(BufferAsImageView(
            label=_label(row), buffer=_int(row.get("buffer")),
            row_pitch_bytes=_int(row.get("row_pitch_bytes")),
            neighbourhood=f"{row.get('item_rows', 0):g} × {row.get('item_columns', 0):g}",
            data_cache_lines=_int(row.get("cache_lookups")),
            data_cache_lines_as_image=_int(row.get("whatif_cache_lookups")),
            hit_rate_as_image=_int(row.get("whatif_texture_hits")) / look if look else None))
    if vendor_key(target) == "adreno":
        view.why = adreno_why(f, view)
    return view


def adreno_why(f, view: TextureView) -> list[str]:
    """Why image reads are the faster path on Adreno, in this launch's own numbers."""
    from analyzers.rules.image_facts import border_clamp_sites, image_reads, lines_of

    out = []
    l1 = view.levels[0] if view.levels else None
    if view.image_reads and l1 is not None:
        look = sum(r.lookups for r in view.image_reads)
        fetched = sum(r.data_cache_lines for r in view.image_reads)
        tile_rows = int(getattr(f.target.texture, "tile_rows", 0) or 0)
        shape = f" Images are stored in tiles {tile_rows} texel rows high, so" if tile_rows else " So"
        out.append(f"Why the image reads are fast here: they go through the texture processor and its "
                   f"{l1.level}, which served {fmt_pct(l1.hit_rate)} of the {fmt_num(look)} tile lines the "
                   f"reads looked up; only {fmt_num(fetched)} lines went on to the {view.data_cache} (a "
                   f"buffer read asks the {view.data_cache} for every line it touches).{shape} one line "
                   f"serves the work-items above and below as well as those beside (Adreno guide §7.1.5.3).")
        reads = image_reads(f)
        clamps = border_clamp_sites(f, list(reads["site"]))
        modes = sorted({str(m) for m in reads["sampler_addressing"].dropna() if str(m) != "none"})
        if clamps:
            out.append("The kernel still clamps coordinates by hand (" + ", ".join(lines_of(f, clamps))
                       + "): a clamping sampler would do it in the texture unit (§8.6).")
        elif modes:
            out.append(f"The sampler ({', '.join(modes)}) handles reads past the borders and the texture "
                       "unit turns coordinates into addresses, so the kernel runs no bounds checks and no "
                       "address arithmetic for these reads (§6.2, §8.6).")
    for b in view.buffers:
        if b.data_cache_lines_as_image and b.data_cache_lines > b.data_cache_lines_as_image:
            ratio = b.data_cache_lines / b.data_cache_lines_as_image
            out.append(f"Buffer {b.buffer} ({b.label}) is read around each work-item ({b.neighbourhood} rows "
                       f"by columns) straight from the {view.data_cache}: "
                       f"{fmt_num(b.data_cache_lines)} lines. Read as an image, the same reads would hit "
                       f"the texture L1 "
                       f"{fmt_pct(b.hit_rate_as_image)} of the time and ask the {view.data_cache} for "
                       f"{fmt_num(b.data_cache_lines_as_image)} lines ({ratio:.1f}x fewer); the checklist "
                       f"prices the change by replay (Adreno guide §6.2, §7.1.5.3).")
    return out


# -- machine code ----------------------------------------------------------------------------------

def alu_priced_by(r) -> str:
    """In words, the code launch result ``r``'s ALU time prices."""
    m = getattr(r, "machine", None)
    if m is not None and m.priced_by == "machine_code":
        return f"Intel machine code ({m.compiler or 'ocloc'}, SIMD{m.simd_width})"
    c = getattr(r, "compiled", None)
    if c is not None:
        kept = c.ir_issues - c.removed_issues
        return (f"the optimizing (LLVM O3) compile: {fmt_num(kept)} of {fmt_num(c.ir_issues)} recorded IR "
                f"issues kept")
    return "the recorded IR"


def machine_view(r, source: str | None = None) -> MachineCodeView | None:
    """The machine-code section of launch result ``r`` (Intel targets); None without machine code."""
    m = getattr(r, "machine", None)
    if m is None or m.priced_by == "ir_factors":
        return None
    if not m.simd_width:
        return MachineCodeView(priced_by=m.priced_by, reason=m.reason, usual_width=m.target_width)
    counted = m.priced_by == "machine_code"    # executions of the code are known only when it was priced
    view = MachineCodeView(
        priced_by=m.priced_by, reason=m.reason, compiler=m.compiler or "", device=m.device or "",
        simd_width=int(m.simd_width), usual_width=int(m.target_width or 0) or None, narrowed=bool(m.narrowed),
        grf_used=int(m.grf_used or 0), grf_count=int(m.grf_count or 0),
        registers_per_item=int(m.registers_per_item or 0), spills=bool(m.spill_fill),
        scratch_bytes_per_thread=int(m.scratch_bytes_per_thread),
        scratch_read_bytes=float(m.scratch_read_bytes or 0) if counted else None,
        scratch_write_bytes=float(m.scratch_write_bytes or 0) if counted else None,
        int64_share=(m.int64_cycles / m.machine_cycles) if m.machine_cycles else None,
        coverage=m.dynamic_coverage if m.priced_by == "machine_code" else None)
    moved = (m.scratch_read_bytes or 0) + (m.scratch_write_bytes or 0)
    first = r.memory.traffic.levels[0].bytes if r.memory is not None and r.memory.traffic.levels else 0.0
    if moved and first:   # both whole-launch bytes
        view.scratch_share_of_first_level = moved / (moved + first)
    view.lines = _hot_lines(m, source)
    return view


def _hot_lines(m, source: str | None) -> list[MachineLineView]:
    pl = m.per_line
    if pl is None or pl.empty:
        return []
    total = float(pl["cycles"].sum()) or 1.0
    text = source.splitlines() if source else []
    out = []
    for row in pl.head(MACHINE_LINES).to_dict(orient="records"):
        line = row.get("line")
        has_line = line == line and line is not None and line > 0
        listing = str(row.get("listing") or "").splitlines()
        out.append(MachineLineView(
            label=f"{row.get('file') or '?'}:{int(line)}" if has_line else "(no source line)",
            source=text[int(line) - 1].strip() if has_line and int(line) <= len(text) else "",
            share=float(row["cycles"]) / total, executed=float(row["executed"]),
            instructions=int(row["instructions"]), unroll=int(row.get("unroll") or 1),
            listing=listing[:LISTING_ROWS], more=max(0, len(listing) - LISTING_ROWS)))
    return out
