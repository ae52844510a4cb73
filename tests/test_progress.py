"""Progress: plain lines off a terminal (none for short runs), a rich bar on one, replay-driven counts."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from analyzers import analyze
from tracekit.formats import open_trace
from tracekit.progress import LaunchCredit, counting_trace, finish_counting, progress

SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"


def test_log_lines_when_not_a_terminal():
    out = io.StringIO()
    with progress(1000, "replay", stream=out, interval=0.0) as bar:
        assert not bar.terminal
        for _ in range(4):
            bar.advance(250)
    lines = out.getvalue().splitlines()
    assert len(lines) == 5 and "\x1b" not in out.getvalue()
    assert lines[0].startswith("replay: progress: 250/1,000 accesses (25%)") and "M accesses/s" in lines[0]
    assert lines[-1].startswith("replay: done: 1,000/1,000 accesses (100%)")


def test_short_runs_stay_quiet_off_a_terminal():
    out = io.StringIO()
    with progress(10, stream=out, interval=60.0) as bar:
        bar.advance(10)
    assert out.getvalue() == "" and bar.done == 10


def test_bar_on_a_terminal():
    out = io.StringIO()
    with progress(2_000_000, "analyze", stream=out, terminal=True) as bar:
        bar.advance(1_000_000)
        bar.advance(1_000_000)
    text = out.getvalue()
    assert "analyze" in text and "2000000/2000000" in text and "M accesses/s" in text


def test_counting_trace_counts_the_replayed_accesses_once():
    trace = open_trace(SAMPLES / "reduction.tkt")
    with progress(trace.num_accesses, stream=io.StringIO(), interval=1e9) as bar:
        view = counting_trace(trace, bar)
        result = analyze(view, "powervr-g6400")
        assert 0 < bar.done < trace.num_accesses      # the launch is not done until the analysis is
        finish_counting(view)
    assert bar.done == trace.num_accesses
    assert result.trace == str(trace.path)


def test_progress_never_passes_the_total_and_never_goes_back():
    """Passes over launches of every kind (one, several, a sample read five times) earn within
    each launch's share; the total comes only when the analysis is done."""
    out = io.StringIO()
    sizes = {0: 1000, 1: 4000, 2: 500}
    seen = []
    with progress(sum(sizes.values()), stream=out, interval=0.0) as bar:
        credit = LaunchCredit(bar, sizes)
        for launch, passes in ((0, 1), (1, 5), (2, 2)):
            for _ in range(passes):
                for _ in range(10):
                    credit.add(launch, sizes[launch] // 10)
                    seen.append(bar.done)
        assert bar.done < bar.total
        credit.finish()
    assert seen == sorted(seen) and max(seen) < bar.total and bar.done == bar.total
    pcts = [int(line.split("(")[1].split("%")[0]) for line in out.getvalue().splitlines()]
    assert pcts == sorted(pcts) and pcts[-1] == 100 and pcts.count(100) <= 2   # finished, then done
    assert all(" 0 s left" not in line for p, line in zip(pcts, out.getvalue().splitlines(), strict=True)
               if p < 100)


def test_advance_stops_at_the_total():
    with progress(100, stream=io.StringIO(), interval=1e9) as bar:
        bar.advance(80)
        bar.advance(80)
    assert bar.done == 100


HOST = """
import sys
import numpy as np
import pyopencl as cl
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, open(sys.argv[1]).read()).build()
n = 1 << 14
a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.ones(n, np.float32))
c = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * n)
k = cl.Kernel(prg, "vector_add")
for local in (32, 64, 128):
    k(q, (n,), (local,), a, a, c, np.int32(n))
q.finish()
"""


def _progress_lines(err: str, description: str) -> list[tuple[int, int, str]]:
    """(done, percent, the line) of each progress line of ``description``."""
    out = []
    for line in err.splitlines():
        if line.startswith(f"{description}: "):
            done = int(line.split(": ")[2].split()[0].split("/")[0].replace(",", ""))
            out.append((done, int(line.split("(")[1].split("%")[0]), line))
    return out


@pytest.fixture(scope="module")
def sampled_trace(tmp_path_factory):
    """Three launches of a kernel, 16 work-groups of each recorded (sampled launches)."""
    import sys

    from tracekit.recorder import record_command

    folder = tmp_path_factory.mktemp("progress")
    host = folder / "host.py"
    host.write_text(HOST)
    trace = folder / "sampled.tkt"
    record_command([sys.executable, str(host), str(SAMPLES / "kernels" / "vector_add.cl")], trace,
                   sample="first:16", echo=False)
    return trace


@pytest.mark.parametrize("mode,description", [((), "analyze"), (("--what-if", "fast-math"), "what-if"),
                                              (("--sample-groups", "0.5"), "sample")])
def test_progress_of_sampled_launches_on_several_targets(mode, description, sampled_trace, run_cli, tmp_path,
                                                         monkeypatch):
    """Three sampled launches (the warm-cache replays read each sample several times) on three
    targets, analysed, replayed with a fix, or estimated from a sample: the progress line climbs
    to 100 % once, at the end, and only then says nothing is left."""
    import sys

    import tracekit.progress as tp

    plain = tp.progress
    monkeypatch.setattr(tp, "progress", lambda total, description="analyze", **kw:
                        plain(total, description, **{**kw, "stream": sys.stderr, "interval": 0.0}))
    targets = ["intel-hd530", "nvidia-h200", "adreno-640"]
    res = run_cli("analyze", sampled_trace, *[x for t in targets for x in ("-t", t)], *mode, "-f", "json",
                  "-o", tmp_path / "a.json")
    assert res.code == 0, res.text
    lines = _progress_lines(res.err, description)
    total = open_trace(sampled_trace).num_accesses * len(targets)
    assert len(lines) > len(targets)
    done = [d for d, _, _ in lines]
    pcts = [p for _, p, _ in lines]
    assert done == sorted(done) and pcts == sorted(pcts) and max(pcts) == 100
    assert all(d <= total for d in done) and done[-1] == total
    assert lines[-1][2].startswith(f"{description}: done")
    first_full = pcts.index(100)
    assert all(" 0 s left" not in text for _, _, text in lines[:first_full])
    assert len(lines) - first_full <= 2       # 100 % is reached when the work ends, not before


def test_a_pass_that_does_not_name_its_launch_is_spread_without_finishing_any():
    with progress(300, stream=io.StringIO(), interval=1e9) as bar:
        credit = LaunchCredit(bar, {0: 100, 1: 200})
        view = counting_trace(open_trace(SAMPLES / "vector_add.tkt"), bar, {0: 100, 1: 200})
        view._credit = credit
        import pyarrow as pa
        view._count(pa.record_batch({"address": pa.array(range(150), pa.uint64())}), None)
        assert 0 < bar.done < 150 and credit.earned[0] < 100 and credit.earned[1] < 200
