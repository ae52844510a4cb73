"""tracekit.trace.cut: a subset of a trace's launches and work-groups, with sampling rescaled."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tracekit.errors import TraceFormatError
from tracekit.formats import open_trace
from tracekit.trace.cut import cut_trace
from tracekit.trace.validate import validate

TWINS = Path(__file__).resolve().parent / "data" / "h200_real" / "twins" / "twins.tkt"
SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"


def launch_column(trace, launch: int, column: str) -> pd.Series:
    return pd.concat(b.to_pandas() for b in trace.iter_batches(columns=[column], launches=[launch]))[column]


def test_cut_keeps_launch_and_first_groups(tmp_path):
    src = open_trace(TWINS)
    out = open_trace(cut_trace(src, tmp_path / "cut.tkt", {23: 8, 19: None}))
    assert out.launches.column("launch").to_pylist() == [19, 23]
    acc = out.to_pandas()
    kept = acc[acc.launch == 23]["group"].unique()
    first8 = launch_column(src, 23, "group").unique()[:8]
    assert np.array_equal(np.sort(kept), np.sort(first8))
    meta = json.loads(out.launches.to_pylist()[1]["metadata"])
    assert meta["sampling"]["groups_recorded"] == 8
    assert meta["sampling"]["total_groups"] == 65536
    assert meta["sampling"]["scale"] == pytest.approx(65536 / 8)
    # the launch kept whole is unchanged, down to its sampling record
    whole = json.loads(out.launches.to_pylist()[0]["metadata"])["sampling"]
    assert whole == json.loads(src.launches.to_pylist()[19]["metadata"])["sampling"]
    assert (acc.launch == 19).sum() == len(launch_column(src, 19, "group"))
    ins = out.to_pandas("instructions")
    assert set(ins.query("launch == 23")["group"]) == set(kept)


def test_cut_of_unsampled_launch_adds_sampling(tmp_path):
    src = open_trace(SAMPLES / "transpose_naive.tkt")       # 64 x 64 in 16 x 16 groups, all recorded
    out = open_trace(cut_trace(src, tmp_path / "t.tkt", {0: 3}))
    meta = json.loads(out.launches.to_pylist()[0]["metadata"])["sampling"]
    assert meta["mode"] == "first" and meta["groups_recorded"] == 3 and meta["total_groups"] == 16
    report = validate(out.path)
    assert not report.errors, report.errors


def test_cut_rejects_unknown_launch(tmp_path):
    with pytest.raises(TraceFormatError, match=r"launch\(es\) \[5\]"):
        cut_trace(open_trace(SAMPLES / "transpose_naive.tkt"), tmp_path / "t.tkt", {5: None})
