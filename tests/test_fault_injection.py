"""Killing a command at any moment never leaves a damaged output.

``analyze`` (JSON and HTML), ``ingest`` and ``partition`` run as real processes over an
output that already exists, and are killed with SIGKILL or SIGTERM after seeded random
delays spread over the length of an uninterrupted run.  After every kill the output
is byte for byte the previous one or the complete new one; after SIGTERM no
temporary is left; and after one more run that completes, the folder holds the new
output and nothing else of ours.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tracekit.files import temporary_owner

ROOT = Path(__file__).resolve().parents[1]
#: Kills per command: alternately SIGKILL and SIGTERM.
KILLS = 4

#: command line, output name, trace (the analyses take a smaller one: their time is the model's)
CASES = {
    "analyze-json": (["analyze", "{trace}", "-t", "adreno-640", "-f", "json", "-o", "{out}"], "report.json",
                     "small"),
    "analyze-html": (["analyze", "{trace}", "-t", "adreno-640", "-f", "html", "-o", "{out}"], "report.html",
                     "small"),
    "ingest-tkt": (["ingest", "{trace}", "-o", "{out}"], "copy.tkt", "large"),
    "ingest-parquet": (["ingest", "{trace}", "-o", "{out}"], "copy.parquet", "large"),
    "partition": (["partition", "{trace}", "{out}"], "parts.tkt", "large"),
}


def snapshot(path: Path) -> dict[str, bytes] | None:
    """Every file of the output with its bytes (None when there is no output)."""
    if not os.path.lexists(path):
        return None
    if path.is_dir():
        return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
    return {"": path.read_bytes()}


def put_back(old: Path, out: Path) -> None:
    """Make ``out`` the previous output again."""
    if out.is_dir():
        shutil.rmtree(out)
    elif os.path.lexists(out):
        out.unlink()
    (shutil.copytree if old.is_dir() else shutil.copy2)(old, out)


def ours(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if temporary_owner(p))


def start(argv: list[str], cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    return subprocess.Popen([sys.executable, "-m", "tracekit.cli", *argv], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def finish(argv: list[str], cwd: Path) -> float:
    """Run to the end; returns how long it took."""
    began = time.monotonic()
    proc = start(argv, cwd)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode(errors="replace")
    return time.monotonic() - began


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """The traces the commands read, and previous outputs of every kind to be replaced."""
    from conftest import access_pattern, launches_for, sites_for

    from tracekit.trace.store import write_trace

    folder = tmp_path_factory.mktemp("traces")
    made = {}
    for name, pattern, size, layout in (("large", "vector_add", 16384, "tkt"),
                                        ("small", "vector_add", 1024, "tkt"),
                                        ("old", "strided", 512, "tkt"), ("old", "strided", 512, "parquet")):
        acc = access_pattern(pattern, global_size=size, local_size=64)
        made[name + "." + layout] = write_trace(folder / f"{name}.{layout}", acc, launches=launches_for(
            acc, global_size=size, local_size=64), sites=sites_for(acc), layout=layout)
    for suffix in ("json", "html"):
        made["old." + suffix] = folder / f"old.{suffix}"
        made["old." + suffix].write_text(f"a previous {suffix} report\n")
    return made


def kill_at_write(proc: subprocess.Popen, folder: Path, name: str, rng: random.Random, limit: float,
                  there: set[str]) -> None:
    """Wait until a new temporary of the output appears beside it, then a few more milliseconds."""
    deadline = time.monotonic() + limit
    while proc.poll() is None and time.monotonic() < deadline:
        if any(n.startswith(f".{name}.") for n in set(os.listdir(folder)) - there):
            time.sleep(rng.uniform(0, 0.03))
            return
        time.sleep(0.001)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_killed_command_leaves_the_old_output_or_the_new_one(traces, tmp_path, case):
    template, name, size = CASES[case]
    argv = [a.format(trace=traces[size + ".tkt"], out=name) for a in template]
    previous = traces["old" + Path(name).suffix]
    (tmp_path / "ref").mkdir()
    took = finish(argv, tmp_path / "ref")
    new, old = snapshot(tmp_path / "ref" / name), snapshot(previous)
    work = tmp_path / "work"
    work.mkdir()
    out = work / name
    rng = random.Random(f"{case}-kills")
    outcomes = []
    for i in range(KILLS):
        sig = signal.SIGKILL if i % 2 == 0 else signal.SIGTERM
        put_back(previous, out)
        there = set(os.listdir(work))
        proc = start(argv, work)
        if i < KILLS // 2:          # anywhere in the run
            time.sleep(rng.uniform(0.2, 1.1) * took)
        else:                       # while the output is being written
            kill_at_write(proc, work, name, rng, 3 * took + 5, there)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        got = snapshot(out)
        assert got in (old, new), f"kill {i} ({sig.name}): the output is neither the previous nor the new one"
        if sig == signal.SIGTERM:
            left = sorted(set(os.listdir(work)) - there)
            assert not left, f"SIGTERM left temporaries: {left}"
            assert b"Traceback" not in err, err.decode(errors="replace")
        outcomes.append((sig.name, proc.returncode, "new" if got == new else "old", ours(work)))
    finish(argv, work)
    assert snapshot(out) == new
    assert sorted(p.name for p in work.iterdir()) == [name], outcomes
    print(case, f"{took:.2f} s", outcomes)
