"""The HTML report against the terminal text on a large trace, on all seven shipped targets.

``tracekit analyze T -f text`` and ``tracekit analyze T -f html -o R.html`` run the same
analysis (replay, models, verdict) and the same checklist, whose findings are priced
by what-if replays; the report adds the sensitivity table and the rendering.  This
benchmark measures what the report costs on top: wall time, CPU time and peak RSS of
each command in its own process, and the HTML/text ratios (goal: time within 2x,
peak RSS within the analysis' memory budget of 1 GiB).

The trace is synthesised, not recorded: recording 50 million accesses under Oclgrind
takes hours on a small machine.  It is written with ``TraceWriter`` by the generator
of ``bench_full.py`` (two kernels, four launches, 256-item work-groups: coalesced,
strided and hashed global loads, local stores and loads with two-way bank conflicts,
per-item instruction counts), so its checklist has findings whose fixes the report
prices by replay (coalesce, pad the local array).

``--accesses 5e6`` is a quick run; the default is 50 million.  ``--sizes 5e6,2e7``
measures several lengths in one run to show the trend.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

TARGETS = ("powervr-g6400", "powervr-gx6650", "adreno-640", "adreno-740", "intel-hd530",
           "intel-iris-plus-g7", "nvidia-h200")
TIME_RATIO_GOAL = 2.0
RSS_BUDGET_MB = 1024


def _tracekit() -> list[str]:
    exe = Path(sys.executable).with_name("tracekit")
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "from tracekit.cli import main; main()"]


def run(args: list[str]) -> dict:
    """Run one command; wall seconds, CPU seconds and peak RSS (MiB) of that process alone."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.stderr.write(err[-4000:])
        raise SystemExit(f"{' '.join(args[:4])} ... failed (exit {proc.returncode})")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024}


def measure(trace: Path, out: Path, targets: tuple[str, ...]) -> dict:
    flags = [a for t in targets for a in ("-t", t)]
    base = [*_tracekit(), "analyze", str(trace), *flags]
    text = run([*base, "-f", "text", "-o", str(out / "report.txt")])
    html = run([*base, "-f", "html", "-o", str(out / "report.html")])
    return {"text": text, "html": html}


def main() -> None:
    from bench_full import generate

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--accesses", type=float, default=5e7, help="accesses in the trace")
    ap.add_argument("--sizes", help="comma-separated lengths to measure in turn (overrides --accesses)")
    ap.add_argument("--targets", default=",".join(TARGETS), help="comma-separated target names")
    args = ap.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")] if args.sizes else [int(args.accesses)]
    targets = tuple(t for t in args.targets.split(",") if t)
    rows = []
    with tempfile.TemporaryDirectory(prefix="tracekit-bench-report-") as tmp:
        tmp = Path(tmp)
        generate(tmp / "warm.tkt", 200_000, launches=2)
        measure(tmp / "warm.tkt", tmp, targets)        # numba's cache and the imports, once
        for n in sizes:
            t0 = time.perf_counter()
            exact = generate(tmp / "trace.tkt", n)
            print(f"generated {exact:,} accesses in {time.perf_counter() - t0:.0f} s", flush=True)
            m = measure(tmp / "trace.tkt", tmp, targets)
            t, h = m["text"], m["html"]
            row = {"accesses": exact, "text": t, "html": h, "time_ratio": h["wall_s"] / t["wall_s"],
                   "cpu_ratio": h["cpu_s"] / t["cpu_s"], "rss_ratio": h["peak_rss_mb"] / t["peak_rss_mb"]}
            rows.append(row)
            print(f"{exact:>12,} accesses x {len(targets)} targets   "
                  f"text {t['wall_s']:7.1f} s (CPU {t['cpu_s']:7.1f} s, peak {t['peak_rss_mb']:5.0f} MiB)   "
                  f"html {h['wall_s']:7.1f} s (CPU {h['cpu_s']:7.1f} s, peak {h['peak_rss_mb']:5.0f} MiB)   "
                  f"html/text time {row['time_ratio']:.2f} (CPU {row['cpu_ratio']:.2f}) "
                  f"RSS {row['rss_ratio']:.2f}   load avg {os.getloadavg()[0]:.1f}", flush=True)
            for f in tmp.glob("trace.tkt*"):
                subprocess.run(["rm", "-rf", str(f)], check=True)
    last = rows[-1]
    ok = last["cpu_ratio"] <= TIME_RATIO_GOAL and last["html"]["peak_rss_mb"] <= RSS_BUDGET_MB
    print(f"RESULT name=report_scale accesses={last['accesses']} targets={len(targets)} "
          f"text_s={last['text']['wall_s']:.1f} html_s={last['html']['wall_s']:.1f} "
          f"text_cpu_s={last['text']['cpu_s']:.1f} html_cpu_s={last['html']['cpu_s']:.1f} "
          f"time_ratio={last['time_ratio']:.2f} cpu_ratio={last['cpu_ratio']:.2f} "
          f"text_peak_rss_mb={last['text']['peak_rss_mb']:.0f} "
          f"html_peak_rss_mb={last['html']['peak_rss_mb']:.0f} "
          f"rss_ratio={last['rss_ratio']:.2f} within_budget={'yes' if ok else 'no'}")


if __name__ == "__main__":
    main()
