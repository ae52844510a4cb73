"""Benchmark: streaming validation of a 20-million-access trace, and its size on disk.

The trace is a tiled matrix multiply (16 x 16 work-groups, global loads into
local tiles, then the inner product out of local memory), generated one batch of
work-groups at a time and written through ``TraceWriter``, so neither the
generator nor the validator holds the trace in memory.

Validation and a reference (a plain pyarrow scan of every column of the same
file) each run in a fresh child process; wall time and the child's own peak RSS
(``os.wait4`` rusage) are measured for both, in the same run.

Prints one ``RESULT`` line (see bench/README.md).  Budgets: peak RSS of the
validator below 1 GiB; the trace at most 4 bytes per access on disk.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from tracekit.trace.store import TraceWriter

TILE = 16
K = 256  # inner dimension
RSS_BUDGET_MB = 1024


def _group_template():
    """Site, space, op and address recipe of one work-item's accesses (same for every item)."""
    site, space, op, kind, t_of, k_of = [], [], [], [], [], []
    for t in range(K // TILE):
        for s, sp, o, kd in ((0, 0, 0, "A"), (1, 1, 1, "As_st"), (2, 0, 0, "B"), (3, 1, 1, "Bs_st")):
            site.append(s), space.append(sp), op.append(o), kind.append(kd), t_of.append(t), k_of.append(0)
        for k in range(TILE):
            for s, kd in ((4, "As_ld"), (5, "Bs_ld")):
                site.append(s), space.append(1), op.append(0), kind.append(kd), t_of.append(t), k_of.append(k)
    site.append(6), space.append(0), op.append(1), kind.append("C"), t_of.append(0), k_of.append(0)
    return (np.array(site, np.int32), np.array(space, np.int32), np.array(op, np.int32), np.array(kind),
            np.array(t_of, np.int64), np.array(k_of, np.int64))


def generate(path: Path, accesses: int) -> int:
    """Write a tiled-matmul trace of about ``accesses`` accesses; returns the exact count."""
    site, space, op, kind, t_of, k_of = _group_template()
    per_item = len(site)
    items = TILE * TILE
    groups = max(1, round(accesses / (per_item * items)))
    gx_count = int(np.ceil(np.sqrt(groups)))
    n_cols = gx_count * TILE  # matrix C is (rows x n_cols)
    base_a, base_b, base_c = 0x100000, 0x100000 + 0x4000000, 0x100000 + 0x8000000
    lid = np.arange(items)
    lx, ly = (lid % TILE)[:, None], (lid // TILE)[:, None]
    space_dict, op_dict = pa.array(["global", "local"]), pa.array(["load", "store"])
    written = 0
    with TraceWriter(path) as w:
        for first in range(0, groups, 8):
            parts = []
            for g in range(first, min(first + 8, groups)):
                gx, gy = g % gx_count, g // gx_count
                row, col = gy * TILE + ly, gx * TILE + lx
                t, k = t_of[None, :], k_of[None, :]
                addr = np.select(
                    [kind == "A", kind == "B", kind == "C", kind == "As_st", kind == "Bs_st",
                     kind == "As_ld", kind == "Bs_ld"],
                    [base_a + (row * K + t * TILE + lx) * 4, base_b + ((t * TILE + ly) * n_cols + col) * 4,
                     base_c + (row * n_cols + col) * 4, (ly * TILE + lx) * 4 + 0 * t,
                     1024 + (ly * TILE + lx) * 4 + 0 * t, (ly * TILE + k) * 4, 1024 + (k * TILE + lx) * 4])
                n = items * per_item
                parts.append(pa.table({
                    "kernel": pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)),
                                                             pa.array(["matmul"])),
                    "launch": np.zeros(n, np.int32), "group": np.full(n, g, np.int64),
                    "item": np.repeat(lid.astype(np.int32), per_item), "site": np.tile(site, items),
                    "seq": np.tile(np.arange(per_item, dtype=np.int64), items),
                    "space": pa.DictionaryArray.from_arrays(pa.array(np.tile(space, items)), space_dict),
                    "op": pa.DictionaryArray.from_arrays(pa.array(np.tile(op, items)), op_dict),
                    "address": addr.reshape(-1).astype(np.uint64), "size": np.full(n, 4, np.uint16),
                }))
            batch = pa.concat_tables(parts)
            w.write_accesses(batch)
            written += batch.num_rows
        w.set_launches(pa.table({
            "kernel": ["matmul"], "launch": pa.array([0], pa.int32()),
            "global_size": [[n_cols, int(np.ceil(groups / gx_count)) * TILE, 1]],
            "local_size": [[TILE, TILE, 1]], "local_mem_bytes": [2048],
            "metadata": [json.dumps({"layout": {"alignment": 4096, "buffers": [base_a, base_b, base_c]}})]}))
        w.set_sites(pa.table({"kernel": ["matmul"] * 7, "site": pa.array(range(7), pa.int32()),
                              "file": ["matmul.cl"] * 7, "line": pa.array(range(10, 17), pa.int32())}))
    return written


_VALIDATE = """
import json, sys
from tracekit.trace.validate import validate
r = validate(sys.argv[1])
print(json.dumps({"ok": r.ok, "rows": r.counts.get("accesses", 0), "errors": r.lines()[:3]}))
"""
_SCAN = """
import json, sys
import pyarrow.parquet as pq
pf = pq.ParquetFile(sys.argv[1] + "/accesses.parquet")
rows = sum(b.num_rows for b in pf.iter_batches(batch_size=1 << 20))
print(json.dumps({"ok": True, "rows": rows}))
"""


def run_child(code: str, path: Path) -> dict:
    """Run ``code`` in a fresh interpreter; wall seconds and that child's own peak RSS."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"child failed with exit code {proc.returncode}")
    result = json.loads(out)
    result.update(seconds=seconds, peak_rss_mb=usage.ru_maxrss / 1024)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--accesses", type=float, default=20e6, help="trace size (default 20M)")
    ap.add_argument("--keep", help="write the trace here and keep it")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tracekit-bench-"))
    try:
        path = Path(args.keep) if args.keep else tmp / "matmul.tkt"
        t0 = time.perf_counter()
        rows = generate(path, int(args.accesses))
        gen_s = time.perf_counter() - t0
        disk = sum(p.stat().st_size for p in path.iterdir())
        val = run_child(_VALIDATE, path)
        scan = run_child(_SCAN, path)
        if not val["ok"] or val["rows"] != rows:
            raise SystemExit(f"validation did not pass on the generated trace: {val}")
        v_rate, s_rate = rows / val["seconds"], rows / scan["seconds"]
        print(f"trace: {rows:,} accesses (tiled matmul), generated in {gen_s:.1f} s, "
              f"{disk / 1e6:.1f} MB on disk = {disk / rows:.3f} bytes/access (budget 4)")
        print(f"validate:     {val['seconds']:7.2f} s  {v_rate / 1e6:6.2f} M rows/s  peak RSS "
              f"{val['peak_rss_mb']:7.1f} MB (budget {RSS_BUDGET_MB})")
        print(f"pyarrow scan: {scan['seconds']:7.2f} s  {s_rate / 1e6:6.2f} M rows/s  peak RSS "
              f"{scan['peak_rss_mb']:7.1f} MB (reference)")
        rss_ratio = val["peak_rss_mb"] / scan["peak_rss_mb"]
        print(f"RESULT name=validate rows={rows} validate_rows_per_s={v_rate:.0f} "
              f"peak_rss_mb={val['peak_rss_mb']:.0f} scan_rows_per_s={s_rate:.0f} "
              f"speed_vs_scan={v_rate / s_rate:.2f} rss_vs_scan={rss_ratio:.2f} "
              f"bytes_per_access={disk / rows:.3f} "
              f"within_budget={'yes' if val['peak_rss_mb'] < RSS_BUDGET_MB and disk / rows <= 4 else 'no'}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
