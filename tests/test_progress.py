"""Progress: plain lines off a terminal (none for short runs), a rich bar on one, replay-driven counts."""

from __future__ import annotations

import io
from pathlib import Path

from analyzers import analyze
from tracekit.formats import open_trace
from tracekit.progress import counting_trace, progress

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
        result = analyze(counting_trace(trace, bar), "powervr-g6400")
    assert bar.done == trace.num_accesses
    assert result.trace == str(trace.path)
