"""Run every ``bench/bench_*.py`` in turn and print one table of their results.

Each benchmark is a script that prints whatever it likes and ends with one line
``RESULT name=value name=value ...`` (see bench/README.md).  This runner starts
each one with the same interpreter, echoes its output, collects the ``RESULT``
lines and prints them together at the end.  Exit status 1 if any benchmark
failed or printed no ``RESULT`` line.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def parse_result(line: str) -> dict[str, str]:
    """``RESULT a=1 b=x`` -> ``{"a": "1", "b": "x"}``."""
    fields = {}
    for token in line.split()[1:]:
        key, _, value = token.partition("=")
        fields[key] = value
    return fields


def main() -> int:
    benches = sorted(HERE.glob("bench_*.py"))
    rows, failed = [], []
    for bench in benches:
        print(f"== {bench.name}", flush=True)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, str(bench)], capture_output=True, text=True,
                              cwd=HERE.parent)
        seconds = time.perf_counter() - start
        sys.stdout.write(proc.stdout)
        if proc.returncode != 0:
            sys.stdout.write(proc.stderr[-4000:])
            failed.append(bench.name)
            rows.append((bench.name, f"FAILED (exit {proc.returncode})", seconds))
            continue
        results = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        if not results:
            failed.append(bench.name)
            rows.append((bench.name, "no RESULT line", seconds))
        for ln in results:
            fields = parse_result(ln)
            rows.append((bench.name, "  ".join(f"{k}={v}" for k, v in fields.items()), seconds))
    width = max((len(r[0]) for r in rows), default=10)
    print("\n" + "benchmark".ljust(width) + "  seconds  results")
    for name, text, seconds in rows:
        print(f"{name.ljust(width)}  {seconds:7.1f}  {text}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
