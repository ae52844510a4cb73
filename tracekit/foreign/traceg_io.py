"""Converting one or more ``.traceg`` files (one per launch) into a trace v1.

Accepted sources: a ``.traceg`` / ``.traceg.xz`` file, a ``kernelslist.g``
(its ``kernel-N.traceg`` lines, in launch order; memcpy lines are skipped), or a
directory holding either.  Each kernel file is read block by block; its blocks
are put in linear-id order before writing, so the trace keeps the canonical
(launch, group, item, seq) order even when the tracer wrote blocks in another
order.  One kernel's rows are held in memory at a time.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa

from .. import schema
from ..errors import TraceFormatError
from ..store import TraceWriter
from ..trace import Trace
from .traceg import TracegReader, _inst_bytes, _KernelState, block_tables, launch_row

_TRACEG_SUFFIXES = (".traceg", ".traceg.xz")


def is_traceg_name(path: Path) -> bool:
    return path.name.endswith(_TRACEG_SUFFIXES)


def traceg_files(src: str | os.PathLike) -> list[Path]:
    """The kernel files of ``src`` in launch order."""
    src = Path(src)
    if src.is_dir():
        for name in ("kernelslist.g", "kernelslist"):
            if (src / name).is_file():
                return traceg_files(src / name)
        files = sorted((p for p in src.iterdir() if is_traceg_name(p)), key=_kernel_number)
        if not files:
            raise TraceFormatError("directory has no kernelslist.g and no *.traceg files", path=str(src))
        return files
    if not src.exists():
        raise TraceFormatError("no such file or directory", path=str(src))
    if is_traceg_name(src):
        return [src]
    files = []
    for n, line in enumerate(src.read_text(errors="replace").splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("Memcpy"):
            continue
        p = src.parent / s
        if not p.exists() and (src.parent / (s + "g")).exists():
            p = src.parent / (s + "g")  # kernelslist names .trace, post-processing wrote .traceg
        if not p.exists():
            raise TraceFormatError(f"line {n}: kernel trace '{s}' listed but not found", path=str(src))
        files.append(p)
    if not files:
        raise TraceFormatError("lists no kernel traces", path=str(src))
    return files


def _kernel_number(p: Path) -> tuple:
    digits = "".join(c if c.isdigit() else " " for c in p.name).split()
    return (int(digits[0]) if digits else 0, p.name)


def _kernel_tables(path: Path, launch: int):
    reader = TracegReader(path)
    try:
        kernel = reader.header.values["kernel name"]
        state = _KernelState()
        inst_bytes = _inst_bytes(reader.header.integer("binary version", 0))
        blocks = []
        for blk in reader.blocks():
            acc, ins = block_tables(blk, reader, kernel, launch, state, inst_bytes)
            gx, gy, _ = reader.grid
            group = blk.coords[0] + blk.coords[1] * gx + blk.coords[2] * gx * gy
            blocks.append((group, acc, ins))
    finally:
        reader.close()
    groups = [g for g, _, _ in blocks]
    if len(set(groups)) != len(groups):
        dup = next(g for g in groups if groups.count(g) > 1)
        raise TraceFormatError(f"thread block with linear id {dup} appears more than once", path=str(path))
    blocks.sort(key=lambda b: b[0])
    sites = pa.table({
        "kernel": [kernel] * len(state.sites), "site": sorted(state.sites),
        "opcode": [state.sites[s][0] for s in sorted(state.sites)],
        "file": pa.nulls(len(state.sites), pa.string()),
        "line": [state.sites[s][1] for s in sorted(state.sites)],
        "column": pa.nulls(len(state.sites), pa.int32()),
    })
    return kernel, blocks, launch_row(reader, kernel, launch, len(blocks)), sites


def convert_traceg(src: str | os.PathLike, dst: str | os.PathLike, *, layout: str | None = None) -> Path:
    """Write the ``.traceg`` launches of ``src`` as a trace v1 at ``dst``."""
    files = traceg_files(src)
    launches, sites = [], []
    with TraceWriter(dst, layout=layout) as w:
        for launch, path in enumerate(files):
            kernel, blocks, row, site_table = _kernel_tables(path, launch)
            for _, acc, ins in blocks:
                w.write_accesses(acc)
                w.write_instructions(ins)
            launches.append(row)
            sites.append(site_table)
        w.set_launches(pa.Table.from_pylist(launches, schema=schema.LAUNCHES))
        w.set_sites(_merge_sites(sites))
    return Path(dst)


def _merge_sites(tables: list[pa.Table]) -> pa.Table:
    if not tables:
        return schema.empty("sites")
    t = pa.concat_tables([tb.cast(schema.SITES) for tb in tables])
    seen, keep = set(), []
    for i, (k, s) in enumerate(zip(t["kernel"].to_pylist(), t["site"].to_pylist(), strict=True)):
        if (k, s) not in seen:
            seen.add((k, s))
            keep.append(i)
    return t.take(keep)


def read_traceg(src: str | os.PathLike) -> Trace:
    """Convert in memory (small traces, notebooks); see :func:`convert_traceg` for files."""
    files = traceg_files(src)
    acc, ins, launches, sites = [], [], [], []
    for launch, path in enumerate(files):
        _, blocks, row, site_table = _kernel_tables(path, launch)
        acc += [a.cast(_loose(schema.ACCESSES)) for _, a, _ in blocks]
        ins += [i for _, _, i in blocks if i.num_rows]
        launches.append(row)
        sites.append(site_table)
    from ..store import conform
    tables = {
        "accesses": conform(pa.concat_tables(acc), "accesses") if acc else schema.empty("accesses"),
        "instructions": conform(pa.concat_tables([conform(i, "instructions") for i in ins]), "instructions")
        if ins else schema.empty("instructions"),
        "launches": pa.Table.from_pylist(launches, schema=schema.LAUNCHES),
        "sites": _merge_sites(sites),
    }
    return Trace(Path(src), _tables=tables)


def _loose(s: pa.Schema) -> pa.Schema:
    """The accesses schema with plain strings (the per-block tables are not dictionary-encoded)."""
    return pa.schema([pa.field(f.name, pa.string() if pa.types.is_dictionary(f.type) else f.type)
                      for f in s if f.name != "buffer"])
