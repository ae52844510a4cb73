"""Start-up cost of the command line: each quick command against a bare interpreter start.

Every command runs in its own process, as a user starts it, and the rounds
alternate (bare start, the two floors, ``--help``, ``targets list``, ``validate``,
``info``, ...) so load on the machine hits all of them alike; the medians of
``--repeat`` rounds are compared with the bare ``python -c pass`` start measured in
the same run.  Two floors are printed too.  "pyarrow in use" imports pyarrow's
Parquet reader and makes one array, which makes pyarrow import NumPy and pandas: what
a command pays once anything converts through pyarrow's own functions.  "pyarrow, no
pandas" imports the Parquet reader and the compute functions and reads one column of
the trace into NumPy without pandas (as tracekit.trace.arrow_numpy does): the least
``validate`` and ``info`` must load, so their distance from it is what is left to gain.
Goal: ``--help``, ``targets list``, ``validate`` and ``info`` each well under half a second.

Recording: ``tracekit record -- python host.py`` around a small pyopencl program
(two launches of a vector add), against the same program run on Oclgrind without
the recorder; the difference is what recording costs on top of the program.  The
first recording of a kernel also builds its Intel machine code with ocloc (kept for
later recordings of the same source); it is timed once, apart.

``--src DIR`` measures another source tree of tracekit (put first on PYTHONPATH),
for before/after comparisons with the same interpreter and packages.

Last line: ``RESULT name=startup bare_s=... pyarrow_floor_s=... nopandas_floor_s=... help_s=...
help_ratio=... ... within_budget=yes|no``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "sample_traces" / "vector_add.tkt"
KERNEL = ROOT / "sample_traces" / "kernels" / "vector_add.cl"
CLI = "from tracekit.cli import main; main()"
#: The least a command that reads a trace loads: pyarrow's Parquet reader, and what pyarrow
#: itself imports on its first array (numpy, and pandas when it is installed).
PYARROW_FLOOR = "import pyarrow as pa, pyarrow.parquet; pa.array([0])"
#: The least ``validate`` and ``info`` load: the Parquet reader, the compute functions and NumPy,
#: one column read and handed to NumPy without pandas (the trace's path is argv[1]).
NOPANDAS_FLOOR = ("import sys, numpy as np, pyarrow.compute, pyarrow.parquet as pq; "
                  "c = pq.ParquetFile(sys.argv[1] + '/accesses.parquet').read(columns=['address'])[0]; "
                  "np.from_dlpack(c.chunk(0)).sum()")
BUDGET_S = 0.5

HOST = textwrap.dedent("""
    import sys
    import numpy as np
    import pyopencl as cl
    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, open(sys.argv[1]).read()).build()
    n = 4096
    mf = cl.mem_flags
    a = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.arange(n, dtype=np.float32))
    b = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ones(n, np.float32))
    c = cl.Buffer(ctx, mf.READ_WRITE, 4 * n)
    k = cl.Kernel(prg, "vector_add")
    k(q, (n,), (64,), a, b, c, np.int32(n))
    k(q, (n,), (64,), c, b, a, np.int32(n))
    q.finish()
""")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run, started outside any source tree (so ``-c`` imports what
    PYTHONPATH says).  CPU time is what the run itself used, steadier than wall time on a busy
    machine."""
    c0, t0 = _children_cpu(), time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=tempfile.gettempdir())
    return time.perf_counter() - t0, _children_cpu() - c0


def medians(commands: dict[str, list[str]], env: dict[str, str], repeat: int
            ) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) seconds of each command, the commands alternating round by round."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for cmd in commands.values():  # one warm-up each: file caches, .pyc files
        timed(cmd, env)
    for _ in range(repeat):
        for name, cmd in commands.items():
            times[name].append(timed(cmd, env))
    return {name: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
            for name, t in times.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--src", type=Path, default=None,
                    help="tracekit source tree to measure (default: this one)")
    ap.add_argument("--skip-record", action="store_true", help="leave out the recording measurement")
    args = ap.parse_args()
    env = dict(os.environ, COLUMNS="100")
    if args.src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(args.src.resolve()), env.get("PYTHONPATH", "")]).rstrip(":")
    py = sys.executable
    commands = {
        "bare start": [py, "-c", "pass"],
        "pyarrow in use": [py, "-c", PYARROW_FLOOR],
        "pyarrow, no pandas": [py, "-c", NOPANDAS_FLOOR, str(TRACE)],
        "--help": [py, "-c", CLI, "--help"],
        "targets list": [py, "-c", CLI, "targets", "list"],
        "validate": [py, "-c", CLI, "validate", str(TRACE)],
        "info": [py, "-c", CLI, "info", str(TRACE)],
    }
    both = medians(commands, env, args.repeat)
    med = {name: wall for name, (wall, _) in both.items()}
    bare = med["bare start"]
    print(f"medians of {args.repeat} alternating runs (source: {args.src or ROOT})")
    print(f"{'command':24s} {'wall s':>8s} {'x bare start':>13s} {'CPU s':>7s}")
    for name, (wall, cpu) in both.items():
        print(f"{name:24s} {wall:8.3f} {wall / bare:13.1f} {cpu:7.3f}")
    keys = {"--help": "help", "targets list": "targets", "validate": "validate", "info": "info"}
    fields = [f"bare_s={bare:.3f}", f"pyarrow_floor_s={med['pyarrow in use']:.3f}",
              f"nopandas_floor_s={med['pyarrow, no pandas']:.3f}"]
    for name, key in keys.items():
        fields += [f"{key}_s={med[name]:.3f}", f"{key}_ratio={med[name] / bare:.1f}",
                   f"{key}_cpu_s={both[name][1]:.3f}"]
    ok = all(med[name] < BUDGET_S for name in keys)
    if not args.skip_record:
        fields += record(py, env, args.repeat)
    print("RESULT name=startup " + " ".join(fields) + f" within_budget={'yes' if ok else 'no'}")
    return 0


def record(py: str, env: dict[str, str], repeat: int) -> list[str]:
    """Recording a small host program against the program alone on Oclgrind."""
    oclgrind = shutil.which("oclgrind")
    if oclgrind is None:
        print("recording: oclgrind is not installed, not measured")
        return []
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        host = Path(tmp) / "host.py"
        host.write_text(HOST)
        # A kernel file no earlier run has seen, so the first recording builds its Intel machine
        # code (later ones find the build kept per source, device and options).
        kernel = Path(tmp) / KERNEL.name
        kernel.write_text(KERNEL.read_text() + f"\n// bench_startup {time.time_ns()}\n")
        out = Path(tmp) / "host.tkt"
        run = [py, str(host), str(kernel)]
        record_cmd = [py, "-c", CLI, "record", "-q", "-o", str(out), "--", *run]
        first, _ = timed(record_cmd, env)
        med = medians({"program on Oclgrind": [oclgrind, *run], "tracekit record": record_cmd},
                      env, max(3, repeat // 2))
    alone, recorded = med["program on Oclgrind"][0], med["tracekit record"][0]
    print(f"recording a small host program: alone on Oclgrind {alone:.3f} s, recorded {recorded:.3f} s, "
          f"overhead {recorded - alone:.3f} s ({recorded / alone:.2f}x); the first recording of a new "
          f"kernel (machine code built) {first:.3f} s")
    return [f"record_alone_s={alone:.3f}", f"record_s={recorded:.3f}",
            f"record_overhead_s={recorded - alone:.3f}", f"record_ratio={recorded / alone:.2f}",
            f"record_first_s={first:.3f}"]


if __name__ == "__main__":
    sys.exit(main())
