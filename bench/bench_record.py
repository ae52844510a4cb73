"""Recorder overhead: the same kernel launch run on plain Oclgrind and recorded.

For each kernel the plain run (the launch host under ``oclgrind``, no plugin)
and the recorded run (:func:`tracekit.recorder.record_kernel`: plugin, pipe,
conversion, Parquet) alternate ``REPEAT`` (7) times with the same Oclgrind thread
count (``OCLGRIND_NUM_THREADS``, set here for both); the medians are compared.
The CPU time of each part is printed too: Oclgrind keeps every core busy in
both runs, so the plugin's and the conversion's CPU time show up in the
wall-clock ratio almost one for one.  Budgets: recording takes at most
1.3x the plain run, and the trace at most 4 bytes per access on disk.

Last line: ``RESULT name=record overhead_ratio=... bytes_per_access=...``, the
worst ratio and the worst bytes/access over the kernels.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tracekit.recorder import record_kernel, toolchain  # noqa: E402
from tracekit.recorder.kernel import parse_dims, plain_command  # noqa: E402

KERNELS = ROOT / "sample_traces" / "kernels"
REPEAT = 7
N = 96
CASES = [
    # (label, file, kernel, global, local, args): a compute loop with a load pair per step;
    # the same through local-memory tiles, whose barriers make work-items' accesses
    # interleave (the recorder reorders each group); and the worst case for the
    # recorder, three accesses per dozen instructions.
    ("matmul_naive", "matmul.cl", "matmul_naive", f"{N},{N}", "16,16",
     [f"float[{N * N}]=rand:1", f"float[{N * N}]=rand:2", f"float[{N * N}]", f"int:{N}"]),
    ("matmul_tiled", "matmul.cl", "matmul_tiled", f"{N},{N}", "16,16",
     [f"float[{N * N}]=rand:1", f"float[{N * N}]=rand:2", f"float[{N * N}]", f"int:{N}"]),
    ("vector_add", "vector_add.cl", "vector_add", "262144", "64",
     ["float[262144]=rand:1", "float[262144]=range", "float[262144]", "int:262144"]),
]


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def cpu() -> tuple[float, float]:
    """CPU seconds used so far by (finished children, this process)."""
    c, s = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    return c.ru_utime + c.ru_stime, s.ru_utime + s.ru_stime


def run_case(label, file, kernel, gsize, lsize, args, tmp: Path) -> tuple[float, float]:
    src = KERNELS / file
    plain_cmd = plain_command(src, kernel, tmp, global_size=parse_dims(gsize, "global"),
                              local_size=parse_dims(lsize, "local"), args=args)
    plain, recorded, accesses = [], [], 0
    cpu_plain, cpu_sim, cpu_conv = [], [], []
    out = tmp / f"{label}.tkt"
    for _ in range(REPEAT):
        c0, t0 = cpu(), time.perf_counter()
        subprocess.run(plain_cmd, check=True, stdout=subprocess.DEVNULL)
        plain.append(time.perf_counter() - t0)
        c1, t0 = cpu(), time.perf_counter()
        r = record_kernel(src, kernel, global_size=gsize, local_size=lsize, args=args, out=out)
        recorded.append(time.perf_counter() - t0)
        c2 = cpu()
        cpu_plain.append(c1[0] - c0[0])
        cpu_sim.append(c2[0] - c1[0])
        cpu_conv.append(c2[1] - c1[1])
        accesses = r.accesses
    med = statistics.median
    ratio = med(recorded) / med(plain)
    bpa = du(out) / accesses
    print(f"{label:14s} CPU: plain Oclgrind {med(cpu_plain):.2f} s, "
          f"Oclgrind with plugin {med(cpu_sim):.2f} s, conversion (this process) {med(cpu_conv):.2f} s")
    print(f"{label:14s} accesses {accesses:>10,}  plain {med(plain):6.2f} s  "
          f"recorded {med(recorded):6.2f} s  "
          f"ratio {ratio:4.2f} (budget 1.3)  trace {du(out):>10,} B = {bpa:.3f} B/access (budget 4)")
    return ratio, bpa


def main() -> int:
    threads = os.environ.setdefault("OCLGRIND_NUM_THREADS", str(os.cpu_count() or 1))
    print(f"Oclgrind threads: {threads} (both runs); medians of {REPEAT} alternating runs")
    toolchain.plugin_path()
    toolchain.host_path()
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-record-") as tmp:
        for case in CASES:
            results.append(run_case(*case, Path(tmp)))
    ratio = max(r for r, _ in results)
    bpa = max(b for _, b in results)
    print(f"RESULT name=record overhead_ratio={ratio:.2f} bytes_per_access={bpa:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
