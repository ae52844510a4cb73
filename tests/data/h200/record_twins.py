"""Record the OpenCL twins of microkernels.cu with `tracekit record`, one trace for all launches.

    .venv/bin/python tests/data/h200/record_twins.py [--groups 16] [-o tests/data/h200/twins/twins.tkt]

Every launch of microkernels.cu's main() is recorded with the same work-group
size, grid and scalar arguments, in the same order as Nsight Compute profiled
them (so trace launch i is ncu ID i).  The measured launches are large (up to
16M work-items), and Oclgrind executes every work-group even when the recorder
keeps only some, so each launch is recorded as its first ``--groups`` work-groups
(in linear order, dimension 0 fastest) run as a launch of their own, and the
trace's launch row is then given the full grid with ``sampling`` metadata
(mode ``first``, groups recorded, total groups, scale).  That is the same data a
full launch with ``--sample first:N`` records, because none of the twins reads
the grid size (get_num_groups / get_global_size): ``--verify`` records one
launch both ways and checks the accesses are identical.

Buffers have the sizes the CUDA program indexes into (the CUDA program's
oversized shared input ``a`` is cut to what the kernels touch); the pointer
chase gets the same single-cycle permutation as the CUDA host code (same LCG
shuffle), so its addresses match.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "microkernels.cl"
N = 1 << 24
B = 256
W = 4096


def cases() -> list[dict]:
    """microkernels.cu main(), launch by launch: kernel, grid (groups), block, --arg list."""
    out = []

    def add(kernel, grid, block, args):
        out.append({"kernel": kernel, "grid": grid, "block": block, "args": args})

    def copy_args(n_in, n_out, *scalars):
        return [f"float[{n_in}]", f"float[{n_out}]"] + [f"int:{s}" for s in scalars]

    add("copy_coalesced", (N // B, 1), (B, 1), copy_args(N + 64, N + 64, N))
    for s in (2, 4, 8, 32):
        n = N // 32
        add("copy_strided", (n // B, 1), (B, 1), copy_args(n * s + 64, N + 64, n, s))
    add("copy_offset", (N // B, 1), (B, 1), copy_args(N + 64, N + 64, N, 1))
    for s in (1, 2, 4, 8, 16, 32, 33):
        add("shared_stride", (4096, 1), (B, 1), copy_args(4096 * 32 * 33 + 64, N + 64, s))
    for k in ("divergent_one_lane", "uniform_all_lanes"):
        add(k, (N // 16 // B, 1), (B, 1), copy_args(N + 64, N + 64, 256))
    add("divergent_half", (N // B, 1), (B, 1), copy_args(N + 64, N + 64))
    for k in ("transpose_naive", "transpose_tiled", "transpose_padded"):
        add(k, (W // 32, W // 32), (32, 8), copy_args(W * W + 64, W * W + 64, W))
    add("int_div", (N // B, 1), (B, 1), [f"int[{N + 64}]=range", f"int[{N + 64}]", f"int:{N}", "int:7"])
    for length in (1, 4, 16, 64, 256):
        add("fma_chain", (N // 4 // B, 1), (B, 1), copy_args(N + 64, N + 64, N // 4, length))
    add("pointer_chase", (4, 1), (32, 1), [f"int[{N}]=@{{chase}}", f"int[{N + 64}]", "int:4096"])
    for bs in (32, 64, 100, 1024):
        n = N // 4
        add("copy_coalesced", ((n + bs - 1) // bs, 1), (bs, 1), copy_args(N + 64, N + 64, n))
    add("copy_coalesced", (1, 1), (8, 1), copy_args(N + 64, N + 64, 8))
    return out


def chase_permutation(path: Path) -> None:
    """The CUDA host's next[] array: a random single cycle from its 64-bit LCG shuffle."""
    from numba import njit

    @njit(cache=False)
    def build(n):
        perm = np.arange(n, dtype=np.int64)
        s = np.uint64(12345)
        a, c = np.uint64(6364136223846793005), np.uint64(1442695040888963407)
        for i in range(n - 1, 0, -1):
            s = s * a + c
            j = np.int64((s >> np.uint64(33)) % np.uint64(i + 1))
            perm[i], perm[j] = perm[j], perm[i]
        nxt = np.empty(n, dtype=np.int32)
        for i in range(n):
            nxt[perm[i]] = perm[(i + 1) % n]
        return nxt

    np.save(path, build(N))


def record(case: dict, groups: int, out: Path, chase: Path, sample: str | None = None) -> int:
    """Run `tracekit record` for the first ``groups`` work-groups; returns how many were run."""
    gx, gy = case["grid"]
    bx, by = case["block"]
    total = gx * gy
    run = min(groups, total)
    if sample is not None:  # full launch, recorder-side sampling (--verify)
        glob = (gx * bx, gy * by)
    elif run <= gx:
        glob = (run * bx, by)
    else:
        if run % gx:
            raise SystemExit(f"--groups {groups} must be a multiple of {gx} for {case['kernel']}")
        glob = (gx * bx, (run // gx) * by)
    args = [a.replace("{chase}", str(chase)) for a in case["args"]]
    cmd = [sys.executable, "-c", "from tracekit.cli import main; main()", "record", str(KERNELS),
           "--kernel", case["kernel"], "--global", f"{glob[0]},{glob[1]}", "--local", f"{bx},{by}",
           "--sample", sample or "all", "-q", "-o", str(out)]
    for a in args:
        cmd += ["--arg", a]
    subprocess.run(cmd, check=True)
    return run


#: Site numbers of part i start at i x SITE_STRIDE when merge() keeps parts' sites apart.
SITE_STRIDE = 10_000


def merge(parts: list[tuple[dict, int, Path]], dst: Path, distinct_sites: bool = False) -> None:
    """One trace: part i becomes launch i, with the full grid and sampling metadata.

    Parts that build one kernel name from different code (other -D values) number
    their sites independently; ``distinct_sites`` moves part i's sites to
    ``i * SITE_STRIDE`` and up so that each launch keeps its own source lines.
    """
    from tracekit import open_trace
    from tracekit.trace.store import TraceWriter, conform

    launches, sites, seen = [], [], set()
    with TraceWriter(dst) as w:
        for i, (case, run, path) in enumerate(parts):
            t = open_trace(path)
            offset = i * SITE_STRIDE if distinct_sites else 0
            for kind in ("accesses", "instructions"):
                tab = getattr(t, kind)
                tab = tab.set_column(tab.schema.get_field_index("launch"), "launch",
                                     pa.array(np.full(tab.num_rows, i, np.int32)))
                if offset:
                    col = tab.schema.get_field_index("site")
                    shifted = pc.add(tab.column(col), pa.scalar(offset, tab.schema.field(col).type))
                    tab = tab.set_column(col, "site", shifted)
                (w.write_accesses if kind == "accesses" else w.write_instructions)(tab)
            row = t.launches.to_pylist()[0]
            meta = json.loads(row["metadata"])
            gx, gy = case["grid"]
            bx, by = case["block"]
            total = gx * gy
            row.update(launch=i, global_size=[gx * bx, gy * by, 1], source=None)
            meta["num_groups"] = [gx, gy, 1]
            if meta.get("sampling", {}).get("mode") in (None, "all"):
                meta["sampling"] = {"mode": "first", "n": run, "groups_recorded": run, "total_groups": total,
                                    "scale": total / run,
                                    "method": "the first n work-groups run as their own launch"}
            row["metadata"] = json.dumps(meta, sort_keys=True)
            launches.append(row)
            for s in t.sites.to_pylist():
                if offset:
                    if s["site"] >= SITE_STRIDE:
                        raise SystemExit(f"part {i} has site {s['site']}: more than {SITE_STRIDE} sites")
                    s["site"] += offset
                if (s["kernel"], s["site"]) not in seen:
                    seen.add((s["kernel"], s["site"]))
                    sites.append(s)
        w.set_launches(conform(pa.Table.from_pylist(launches), "launches"))
        w.set_sites(conform(pa.Table.from_pylist(sites), "sites"))


def verify(groups: int, chase: Path, tmp: Path) -> None:
    """Record one launch truncated and as a full launch with --sample first:N; compare accesses."""
    from tracekit import open_trace

    case = cases()[1]  # copy_strided, stride 2: small enough to run in full
    record(case, groups, tmp / "trunc.tkt", chase)
    record(case, groups, tmp / "full.tkt", chase, sample=f"first:{groups}")
    a = open_trace(tmp / "trunc.tkt").accesses.drop_columns(["kernel", "space", "op"])
    b = open_trace(tmp / "full.tkt").accesses.drop_columns(["kernel", "space", "op"])
    if not a.equals(b):
        raise SystemExit("truncated and sampled recordings differ")
    print(f"verified: {a.num_rows} accesses identical for a truncated launch and --sample first:{groups}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, default=16, help="work-groups recorded per launch")
    ap.add_argument("-o", "--out", type=Path, default=HERE / "twins" / "twins.tkt")
    ap.add_argument("--only", help="record only launches of this kernel (for a quick look)")
    ap.add_argument("--verify", action="store_true", help="check truncation against recorder sampling")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="twins-") as tmpdir:
        tmp = Path(tmpdir)
        chase = tmp / "chase.npy"
        chase_permutation(chase)
        if opts.verify:
            verify(opts.groups, chase, tmp)
        parts = []
        for i, case in enumerate(cases()):
            if opts.only and case["kernel"] != opts.only:
                continue
            path = tmp / f"launch{i}.tkt"
            run = record(case, opts.groups, path, chase)
            print(f"launch {i:2d} {case['kernel']:<20} grid {case['grid']} block {case['block']}: "
                  f"recorded {run} of {case['grid'][0] * case['grid'][1]} work-groups", flush=True)
            parts.append((case, run, path))
        merge(parts, opts.out)
    print(f"wrote {opts.out}")


if __name__ == "__main__":
    main()
