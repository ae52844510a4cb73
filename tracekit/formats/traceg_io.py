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

import numpy as np
import pyarrow as pa

from tracekit.errors import TraceFormatError
from tracekit.files import check_input
from tracekit.formats import sass
from tracekit.formats.traceg import KernelState, TracegReader, _inst_bytes, add_block, launch_row
from tracekit.formats.traceg_chunk import Chunk, access_table, instruction_table
from tracekit.trace import schema, store
from tracekit.trace.reader import Trace
from tracekit.trace.store import TraceWriter, conform

_TRACEG_SUFFIXES = (".traceg", ".traceg.xz")


def is_traceg_name(path: Path) -> bool:
    return path.name.endswith(_TRACEG_SUFFIXES)


def traceg_files(src: str | os.PathLike) -> list[Path]:
    """The kernel files of ``src`` in launch order."""
    src = check_input(src, kind=".traceg file, kernelslist.g or folder of them")
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
        files.append(check_input(p, kind=".traceg file", dirs=False))
    if not files:
        raise TraceFormatError("lists no kernel traces", path=str(src))
    return files


def _kernel_number(p: Path) -> tuple:
    digits = "".join(c if c.isdigit() else " " for c in p.name).split()
    return (int(digits[0]) if digits else 0, p.name)


#: Lanes gathered before a chunk is turned into rows and written (bounds memory per kernel).
CHUNK_LANES = 1 << 21


def _block_order(path: Path) -> tuple[bool, int]:
    """(blocks appear in linear-id order, number of blocks): a quick first pass over the file."""
    reader = TracegReader(path)
    try:
        gx, gy, _ = reader.grid
        ids = []
        for text in reader._fh:
            if text.startswith("thread block"):
                xyz = [int(v) for v in text.partition("=")[2].split(",")]
                ids.append(xyz[0] + xyz[1] * gx + xyz[2] * gx * gy)
    except ValueError:
        return False, 0  # the main pass reports the bad line
    finally:
        reader.close()
    if len(set(ids)) != len(ids):
        dup = next(g for g in ids if ids.count(g) > 1)
        raise TraceFormatError(f"thread block with linear id {dup} appears more than once", path=str(path))
    return all(a < b for a, b in zip(ids, ids[1:], strict=False)), len(ids)


def _kernel_rows(path: Path, launch: int, emit) -> tuple[dict, pa.Table]:
    """Stream one kernel file's rows to ``emit(accesses, instructions)``; return its launch row and sites."""
    ordered, _ = _block_order(path)
    reader = TracegReader(path)
    try:
        kernel = reader.header.values["kernel name"]
        state = KernelState()
        inst_bytes = _inst_bytes(reader.header.integer("binary version", 0))
        chunk, blocks = Chunk(), 0

        def flush(c: Chunk) -> None:
            opclass_of = {site: sass.opclass(op) for site, (op, _) in state.sites.items()}
            common = dict(kernel=kernel, launch=launch, threads=reader.threads, path=path)
            emit(access_table(c, kinds=state.kinds, bases=np.asarray(state.kind_bases or [0], np.uint64),
                              **common),
                 instruction_table(c, opclass_of=opclass_of, **common))

        for blk in reader.blocks():
            add_block(chunk, blk, reader, state, inst_bytes)
            blocks += 1
            if ordered and chunk.lanes >= CHUNK_LANES:
                flush(chunk)
                chunk = Chunk()
        flush(chunk)  # unordered files: everything in one chunk, sorted there
    finally:
        reader.close()
    if not blocks:
        raise TraceFormatError("has a header but no thread blocks (#BEGIN_TB ... #END_TB): no instruction "
                               "was traced, so there is nothing to convert", path=str(path))
    order = sorted(state.sites)
    sites = pa.table({
        "kernel": pa.array([kernel] * len(order), pa.string()), "site": pa.array(order, pa.int32()),
        "opcode": pa.array([state.sites[s][0] for s in order], pa.string()),
        "file": pa.nulls(len(order), pa.string()),
        "line": pa.array([state.sites[s][1] for s in order], pa.int32()),
        "column": pa.nulls(len(order), pa.int32()),
    })
    return launch_row(reader, kernel, launch, blocks), sites


def convert_traceg(src: str | os.PathLike, dst: str | os.PathLike, *, layout: str | None = None) -> Path:
    """Write the ``.traceg`` launches of ``src`` as a trace v1 at ``dst`` (streaming, chunk by chunk)."""
    files = traceg_files(src)
    launches, sites = [], []
    with TraceWriter(dst, layout=layout) as w:
        def emit(acc, ins):
            w.write_accesses(acc)
            w.write_instructions(ins)

        for launch, path in enumerate(files):
            row, site_table = _kernel_rows(path, launch, emit)
            launches.append(row)
            sites.append(site_table)
        w.set_launches(pa.Table.from_pylist(launches, schema=schema.LAUNCHES))
        w.set_sites(_merge_sites(sites))
    return Path(dst)


def _merge_sites(tables: list[pa.Table]) -> pa.Table:
    if not tables:
        return schema.empty("sites")
    t = pa.concat_tables([store.conform(tb, "sites") for tb in tables])   # optional columns as nulls
    seen, keep = set(), []
    for i, (k, s) in enumerate(zip(t["kernel"].to_pylist(), t["site"].to_pylist(), strict=True)):
        if (k, s) not in seen:
            seen.add((k, s))
            keep.append(i)
    return t.take(pa.array(keep, pa.int64()))


def read_traceg(src: str | os.PathLike) -> Trace:
    """Convert in memory (small traces, notebooks); see :func:`convert_traceg` for files."""
    files = traceg_files(src)
    acc, ins, launches, sites = [], [], [], []

    def emit(a, i):
        acc.append(conform(a, "accesses"))
        ins.append(conform(i, "instructions"))

    for launch, path in enumerate(files):
        row, site_table = _kernel_rows(path, launch, emit)
        launches.append(row)
        sites.append(site_table)
    tables = {
        "accesses": pa.concat_tables(acc) if acc else schema.empty("accesses"),
        "instructions": pa.concat_tables(ins) if ins else schema.empty("instructions"),
        "launches": pa.Table.from_pylist(launches, schema=schema.LAUNCHES),
        "sites": _merge_sites(sites),
    }
    return Trace(Path(src), _tables=tables)
