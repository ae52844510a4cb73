"""Record the OpenCL twins of realkernels.cu with `tracekit record`: one trace for all launches.

    .venv/bin/python tests/data/h200_real/record_twins.py [--only KERNEL,...] [--parts DIR]
        [--keep TWINS] [--verify]

Writes ``twins/twins.tkt`` (every launch of realkernels.cu's main(), in the same
order, so trace launch i is ncu ID i) and ``twins/full.tkt`` (a few launches
recorded whole, for checking sampled against full replays).

Sampling.  Each launch of the sampled trace is recorded over its full grid with
``tracekit record --sample first:N``: the recorder keeps the rows of the first N
work-groups (linear order, dimension 0 fastest) and, since Oclgrind runs every
work-group anyway, the footprint of the whole grid (what every group read and
wrote, ``tracekit/trace/footprint.py``), which gives the replay the launch's
compulsory traffic.  Running every group is what makes the recording slow: about
an hour and a half of CPU for the suite, most of it GEMM, SYRK, SGEMM, N-body and
MRI-Q (``--truncate`` runs only the first N work-groups as a launch of their own,
in minutes, and records no footprint: the accesses are the same, because no twin
reads the grid size; ``--verify`` records one launch both ways and compares them).
N is chosen per launch so the trace stays small: one or two work-groups where
every work-item loops over a whole 1024- to 16384-long row, column or body list
(PolyBench's matrix-vector kernels, GEMM, SYRK, the covariance means, SGEMM,
N-body, MRI-Q), whole rows of work-groups for the 2-D PolyBench grids (one row of
128 for the convolution, two rows for the others, so vertical neighbours are
recorded), 4 to 64 work-groups elsewhere.

Inputs.  Buffers have the sizes the CUDA program allocates.  Where addresses
depend on data (SpMV's row delimiters and column indices, the histogram's input)
the values are the CUDA host's, from the same integer hash; elsewhere the values
do not change what is recorded and buffers are left zero.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "realkernels.cl"

#: Launches recorded whole into twins/full.tkt: the Jacobi step, whose 1 MiB grid fits the L2
#: and is re-read by neighbouring work-groups, and the copy back, which streams 1 MiB through
#: once.  Their 262144 work-items keep the whole launches small.
FULL = ("jacobi2d_kernel1", "jacobi2d_kernel2")


def hash32(x) -> np.ndarray:
    """Wellons' lowbias32, as realkernels.cu's host code computes it (uint32 wrap-around)."""
    x = np.asarray(x, dtype=np.uint32)
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint32(16))
        x = x * np.uint32(0x7FEB352D)
        x = x ^ (x >> np.uint32(15))
        x = x * np.uint32(0x846CA68B)
    return x ^ (x >> np.uint32(16))


SPMV_DIM = 16384


def spmv_matrix() -> tuple[np.ndarray, np.ndarray]:
    """Row delimiters and column indices of the CUDA host's CSR matrix."""
    rows = np.arange(SPMV_DIM, dtype=np.uint32)
    lengths = 8 + (hash32(2 * rows + 1) % np.uint32(313)).astype(np.int64)
    rowptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    nnz = int(rowptr[-1])
    cols = (hash32(np.arange(nnz, dtype=np.uint32) ^ np.uint32(0x5BD1E995)) % np.uint32(SPMV_DIM)).astype(
        np.int32
    )
    return rowptr, cols


def histogram_input(n: int) -> np.ndarray:
    return (hash32(np.arange(n, dtype=np.uint32)) & np.uint32(255)).astype(np.uint32)


@dataclass
class Case:
    """One launch of realkernels.cu's main(): kernel, grid (work-groups), block, --arg list."""

    kernel: str
    grid: tuple[int, int]
    block: tuple[int, int]
    args: list[str]
    groups: int  #: work-groups recorded in the sampled trace
    meta: dict = field(default_factory=dict)

    @property
    def total_groups(self) -> int:
        return self.grid[0] * self.grid[1]


def f32(n: int) -> str:
    return f"float[{n}]"


def ints(*values: int) -> list[str]:
    return [f"int:{v}" for v in values]


def cases(data: Path) -> list[Case]:
    """realkernels.cu main(), launch by launch (the CUDA host's sizes)."""
    out: list[Case] = []

    def add(kernel, grid, block, args, groups):
        grid = tuple(grid) + (1,) * (2 - len(grid))
        block = tuple(block) + (1,) * (2 - len(block))
        out.append(Case(kernel, grid, block, args, groups))

    n = 1024  # GEMM, SYRK: 4 MiB matrices, all three fit the 60 MiB L2
    add(
        "gemm",
        (n // 32, n // 8),
        (32, 8),
        ints(n, n, n) + ["float:1.5", "float:1.2", f32(n * n), f32(n * n), f32(n * n)],
        2,
    )
    add(
        "syrk", (n // 32, n // 8), (32, 8), ints(n, n) + ["float:1.5", "float:1.2", f32(n * n), f32(n * n)], 2
    )
    n = 4096  # matrix-vector products over a 64 MiB matrix; row walkers have a 16 KiB pitch
    mat, vec = f32(n * n), f32(n)
    add("atax_kernel1", (n // 256,), (256,), ints(n, n) + [mat, vec, vec], 1)
    add("atax_kernel2", (n // 256,), (256,), ints(n, n) + [mat, vec, vec], 1)
    add("bicg_kernel1", (n // 256,), (256,), ints(n, n) + [mat, vec, vec], 1)
    add("bicg_kernel2", (n // 256,), (256,), ints(n, n) + [mat, vec, vec], 1)
    add("mvt_kernel1", (n // 256,), (256,), ints(n) + [mat, vec, vec], 1)
    add("mvt_kernel2", (n // 256,), (256,), ints(n) + [mat, vec, vec], 1)
    add(
        "gesummv_kernel",
        (n // 256,),
        (256,),
        ints(n) + ["float:1.5", "float:1.2", mat, mat, vec, vec, vec],
        1,
    )
    n = 4096
    add("convolution2D_kernel", (n // 32, n // 8), (32, 8), ints(n, n) + [f32(n * n), f32(n * n)], n // 32)
    n = 512
    add("jacobi2d_kernel1", (n // 32, n // 8), (32, 8), ints(n) + [f32(n * n), f32(n * n)], 2 * (n // 32))
    add("jacobi2d_kernel2", (n // 32, n // 8), (32, 8), ints(n) + [f32(n * n), f32(n * n)], 2 * (n // 32))
    n = 2048
    grid = (n // 32, n // 8)
    add(
        "fdtd_step1_kernel",
        grid,
        (32, 8),
        ints(n, n) + [f32(500), f32(n * n), f32(n * n), f32(n * n), "int:0"],
        2 * grid[0],
    )
    add(
        "fdtd_step2_kernel",
        grid,
        (32, 8),
        ints(n, n) + [f32(n * n), f32(n * n), f32(n * n), "int:0"],
        2 * grid[0],
    )
    add(
        "fdtd_step3_kernel",
        grid,
        (32, 8),
        ints(n, n) + [f32(n * n), f32(n * n), f32(n * n), "int:0"],
        2 * grid[0],
    )
    m = n = 2048
    add("mean_kernel", (m // 256,), (256,), ints(m, n) + [f"float:{float(n)}", f32(m), f32(m * n)], 1)
    add("reduce_kernel", (m // 32, n // 8), (32, 8), ints(m, n) + [f32(m), f32(m * n)], 2 * (m // 32))
    rowptr, cols = spmv_matrix()
    np.save(data / "spmv_rowptr.npy", rowptr)
    np.save(data / "spmv_cols.npy", cols)
    nnz, dim = int(rowptr[-1]), SPMV_DIM
    spmv = [
        f32(nnz),
        f"int[{nnz}]=@{data / 'spmv_cols.npy'}",
        f"int[{dim + 1}]=@{data / 'spmv_rowptr.npy'}",
        f"int:{dim}",
        f32(dim),
        f32(dim),
    ]
    add("spmv_csr_scalar_kernel", (dim // 128,), (128,), spmv, 4)
    add("spmv_csr_vector_kernel", (dim // 4,), (128,), spmv, 32)
    n = 1 << 24
    np.save(data / "histo_in.npy", histogram_input(n))
    add(
        "histo_global",
        (n // 256,),
        (256,),
        [f"uint[{n}]=@{data / 'histo_in.npy'}", "uint[256]", f"int:{n}"],
        64,
    )
    add("reduce_sum", (n // 512,), (256,), [f32(n), f32(n // 512), f"uint:{n}"], 64)
    nx, ny, nz = 512, 512, 64
    add(
        "stencil_naive",
        (ny - 2, nz - 2),
        (nx - 1,),
        [f"float:{1 / 6}", f"float:{1 / 36}", f32(nx * ny * nz), f32(nx * ny * nz)] + ints(nx, ny, nz),
        64,
    )
    n = 1024
    add("sgemm_tiled", (n // 16, n // 16), (16, 16), [f32(n * n), f32(n * n), f32(n * n), f"int:{n}"], 2)
    w, h = 8192, 2048
    add("transpose_naive_sdk", (w // 16, h // 16), (16, 16), [f32(w * h), f32(w * h)] + ints(w, h), 64)
    add("transpose_tiled_sdk", (w // 16, h // 16), (16, 16), [f32(w * h), f32(w * h)] + ints(w, h), 64)
    cols_, rows, pyramid = 100000, 100, 20
    small = 256 - 2 * pyramid
    block_cols = cols_ // small + (1 if cols_ % small else 0)
    add(
        "dynproc_kernel",
        (block_cols,),
        (256,),
        ints(pyramid)
        + [f"int[{(rows - 1) * cols_}]", f"int[{cols_}]", f"int[{cols_}]"]
        + ints(cols_, rows, 0, pyramid),
        16,
    )
    n = 16384
    add("nbody_accel", (n // 128,), (128,), [f"float4[{n}]", f"float4[{n}]", f"int:{n}", "float:0.01"], 1)
    nx = 262144
    add("ComputeQ_GPU", (nx // 256,), (256,), ["int:2048", "int:0"] + [f32(nx)] * 5 + ["float4[1024]"], 1)
    return out


def record(case: Case, groups: int | None, out: Path, sample: str | None = None) -> int:
    """Run `tracekit record` for the first ``groups`` work-groups (all when None); returns how many ran."""
    gx, gy = case.grid
    bx, by = case.block
    run = case.total_groups if groups is None else min(groups, case.total_groups)
    if groups is None or sample is not None:
        glob = (gx * bx, gy * by)
    elif run <= gx:
        glob = (run * bx, by)
    else:
        if run % gx:
            raise SystemExit(f"{case.kernel}: {run} work-groups is not a whole number of rows of {gx}")
        glob = (gx * bx, (run // gx) * by)
    cmd = [
        sys.executable,
        "-c",
        "from tracekit.cli import main; main()",
        "record",
        str(KERNELS),
        "--kernel",
        case.kernel,
        "--global",
        f"{glob[0]},{glob[1]}",
        "--local",
        f"{bx},{by}",
        "--sample",
        sample or "all",
        "-q",
        "-o",
        str(out),
    ]
    for a in case.args:
        cmd += ["--arg", a]
    subprocess.run(cmd, check=True)
    return run


def merge(parts: list[tuple[int, Case, int, Path]], dst: Path) -> None:
    """One trace: part k becomes launch k, with the full grid, sampling metadata and its ncu ID."""
    from tracekit import open_trace
    from tracekit.trace.store import TraceWriter, conform

    launches, sites, seen = [], [], set()
    with TraceWriter(dst) as w:
        for k, (ncu_id, case, run, path) in enumerate(parts):
            t = open_trace(path)
            for kind in ("accesses", "instructions"):
                tab = getattr(t, kind)
                tab = tab.set_column(
                    tab.schema.get_field_index("launch"),
                    "launch",
                    pa.array(np.full(tab.num_rows, k, np.int32)),
                )
                (w.write_accesses if kind == "accesses" else w.write_instructions)(tab)
            row = t.launches.to_pylist()[0]
            meta = json.loads(row["metadata"])
            gx, gy = case.grid
            bx, by = case.block
            total = case.total_groups
            row.update(launch=k, global_size=[gx * bx, gy * by, 1], source=None)
            meta["num_groups"] = [gx, gy, 1]
            meta["ncu_id"] = ncu_id
            # kernel_file as given on the command line would be this machine's absolute path
            meta["kernel_file"] = "tests/data/h200_real/realkernels.cl"
            meta["arg_specs"] = [
                a.split("=@")[0] + ("=@" + Path(a.split("=@")[1]).name if "=@" in a else "")
                for a in case.args
            ]
            if run < total and meta.get("sampling", {}).get("total_groups") != total:
                # a truncated launch: the first groups ran as a launch of their own
                meta["sampling"] = {
                    "mode": "first",
                    "n": run,
                    "groups_recorded": run,
                    "total_groups": total,
                    "scale": total / run,
                    "method": "the first n work-groups run as their own launch",
                }
            row["metadata"] = json.dumps(meta, sort_keys=True)
            launches.append(row)
        # a kept launch carries the sites table of the earlier recording, whose roles an older
        # recorder wrote: the launches recorded now give their kernels' sites
        part_sites = [(path, open_trace(path).sites.to_pylist()) for _, _, _, path in parts]
        fresh = {(s["kernel"], s["site"]): s for path, rows in part_sites if not path.name.startswith("kept")
                 for s in rows}
        for _, rows in part_sites:
            for s in rows:
                if (s["kernel"], s["site"]) not in seen:
                    seen.add((s["kernel"], s["site"]))
                    s = fresh.get((s["kernel"], s["site"]), s)
                    s["file"] = "tests/data/h200_real/realkernels.cl"
                    sites.append(s)
        w.set_launches(conform(pa.Table.from_pylist(launches), "launches"))
        w.set_sites(conform(pa.Table.from_pylist(sites), "sites"))


def extract(t, launch: int, dst: Path) -> None:
    """Launch ``launch`` of the open trace ``t`` as a one-launch trace of its own (for ``--keep``)."""
    import pyarrow.compute as pc

    from tracekit.trace.store import TraceWriter, conform

    with TraceWriter(dst) as w:
        for kind in ("accesses", "instructions"):
            tab = getattr(t, kind)
            tab = tab.filter(pc.equal(tab["launch"], launch))
            tab = tab.set_column(tab.schema.get_field_index("launch"), "launch",
                                 pa.array(np.zeros(tab.num_rows, np.int32)))
            (w.write_accesses if kind == "accesses" else w.write_instructions)(tab)
        row = next(r for r in t.launches.to_pylist() if r["launch"] == launch)
        row["launch"] = 0
        w.set_launches(conform(pa.Table.from_pylist([row]), "launches"))
        w.set_sites(conform(t.sites, "sites"))


def shrink(path: Path) -> None:
    """Rewrite a table of the trace at zstd's highest level (same encodings and row groups): the
    writer's level 1 suits recording, a file kept in the repository should stay small."""
    import pyarrow.parquet as pq

    from tracekit.trace.store import _parquet_options

    pf = pq.ParquetFile(path)
    tmp = path.with_suffix(".shrink")
    with pq.ParquetWriter(tmp, pf.schema_arrow, **{**_parquet_options(pf.schema_arrow),
                                                   "compression_level": 22}) as w:
        for i in range(pf.num_row_groups):
            w.write_table(pf.read_row_group(i))
    tmp.replace(path)


def refresh_roles(all_cases: list[Case], kept: Path, dst: Path, tmp: Path) -> None:
    """``kept`` with every site's role as the recorder writes it now, into ``dst``.

    Roles are a property of the program, not of a launch: the recorder decides them for the
    whole module when a launch starts, and every kernel's rows of the sites table list the
    same module sites.  One work-group of the smallest launch gives them; the accesses,
    instructions and launches of ``kept`` are copied unchanged.
    """
    import shutil

    import pyarrow.parquet as pq

    from tracekit import open_trace

    case = min(all_cases, key=lambda c: c.block[0] * c.block[1])
    record(case, 1, tmp / "roles.tkt")
    fresh = open_trace(tmp / "roles.tkt").sites.to_pandas().set_index("site")
    if dst.resolve() != kept.resolve():
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(kept, dst)
    path = dst / "sites.parquet"
    sites = pq.read_table(path).to_pandas()
    known = sites["site"].isin(fresh.index)
    same = known & (sites["opcode"].to_numpy() == fresh["opcode"].reindex(sites["site"]).to_numpy())
    if not same.all():
        raise SystemExit(f"{int((~same).sum())} sites differ from the module recorded now: record again")
    before = sites["role"].copy()
    sites["role"] = fresh["role"].reindex(sites["site"]).to_numpy()
    changed = sites[(before.fillna("") != sites["role"].fillna(""))]
    from tracekit.trace.store import conform

    pq.write_table(conform(pa.Table.from_pandas(sites, preserve_index=False), "sites"), path,
                   compression="zstd", compression_level=22)
    print(f"roles: {len(changed)} site rows changed, "
          f"{changed.groupby('kernel').size().to_dict() if len(changed) else {}}")


def verify(all_cases: list[Case], tmp: Path) -> None:
    """Record one launch truncated and as a full launch with --sample first:N; compare the accesses."""
    from tracekit import open_trace

    case = next(c for c in all_cases if c.kernel == "jacobi2d_kernel2")
    record(case, case.groups, tmp / "trunc.tkt")
    record(case, case.groups, tmp / "full.tkt", sample=f"first:{case.groups}")
    a = open_trace(tmp / "trunc.tkt").accesses.drop_columns(["kernel", "space", "op"])
    b = open_trace(tmp / "full.tkt").accesses.drop_columns(["kernel", "space", "op"])
    if not a.equals(b):
        raise SystemExit("truncated and sampled recordings differ")
    print(
        f"verified: {a.num_rows} accesses identical for a truncated launch and --sample first:{case.groups}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", type=Path, default=HERE / "twins")
    ap.add_argument("--only", help="record only launches of these kernels (comma-separated: for a quick "
                                   "look, or to share the recording between processes with --parts)")
    ap.add_argument("--parts", type=Path, help="keep each launch's recording here and reuse the ones "
                                               "already there (to resume, or to record in several processes)")
    ap.add_argument("--verify", action="store_true", help="check truncation against recorder sampling")
    ap.add_argument("--no-full", action="store_true", help="skip twins/full.tkt")
    ap.add_argument("--keep", type=Path,
                    help="an earlier twins.tkt: launches not recorded now (see --only) are taken from it")
    ap.add_argument("--truncate", action="store_true",
                    help="run only the recorded work-groups (fast, but no whole-grid footprint)")
    ap.add_argument("--roles-from-keep", action="store_true",
                    help="with --keep: copy it to OUT/twins.tkt with the site roles the recorder writes "
                         "now (one work-group recorded), recording nothing else")
    opts = ap.parse_args()
    opts.out.mkdir(parents=True, exist_ok=True)
    if opts.roles_from_keep:
        if opts.keep is None:
            raise SystemExit("--roles-from-keep needs --keep TWINS")
        with tempfile.TemporaryDirectory(prefix="twins-") as tmpdir:
            refresh_roles(cases(Path(tmpdir)), opts.keep, opts.out / "twins.tkt", Path(tmpdir))
        return
    with tempfile.TemporaryDirectory(prefix="twins-") as tmpdir:
        tmp = Path(tmpdir)
        all_cases = cases(tmp)
        if opts.verify:
            verify(all_cases, tmp)
        parts, full = [], []
        only = set(opts.only.split(",")) if opts.only else None
        kept = None
        if opts.keep is not None:
            from tracekit import open_trace

            kept = open_trace(opts.keep)
        keep = opts.parts or tmp
        keep.mkdir(parents=True, exist_ok=True)
        for i, case in enumerate(all_cases):
            if only and case.kernel not in only:
                if kept is not None:  # kept as recorded before
                    path = tmp / f"kept{i}.tkt"
                    extract(kept, i, path)
                    groups = kept.launch_metadata(i).get("sampling", {})
                    parts.append((i, case, int(groups.get("groups_recorded", case.groups)), path))
                continue
            path = keep / f"launch{i}.tkt"
            sample = None if opts.truncate or case.groups >= case.total_groups else f"first:{case.groups}"
            if opts.parts and (path / "manifest.json").exists():
                run = min(case.groups, case.total_groups)  # recorded by an earlier or another run
            else:
                run = record(case, case.groups, path, sample=sample)
            print(
                f"launch {i:2d} {case.kernel:<24} grid {case.grid} block {case.block}: "
                f"recorded {run} of {case.total_groups} work-groups",
                flush=True,
            )
            parts.append((i, case, run, path))
            if case.kernel in FULL and not opts.no_full:
                fpath = tmp / f"full{i}.tkt"
                record(case, None, fpath)
                print(
                    f"          {case.kernel:<24} recorded whole ({case.total_groups} work-groups)",
                    flush=True,
                )
                full.append((i, case, case.total_groups, fpath))
        merge(parts, opts.out / "twins.tkt")
        shrink(opts.out / "twins.tkt" / "accesses.parquet")
        print(f"wrote {opts.out / 'twins.tkt'}")
        if full:
            merge(full, opts.out / "full.tkt")
            print(f"wrote {opts.out / 'full.tkt'}")


if __name__ == "__main__":
    main()
