"""Launch counts that contradict each other are refused by `validate` and by every analysis alike."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from conftest import access_pattern, sites_for

from tracekit.trace.store import conform, write_trace


def write_launch(path, *, metadata: dict | None = None, global_size=(256, 1, 1), local_size=(64, 1, 1),
                 groups: int = 4, launches: int = 1, listed: int | None = None):
    """A vector-add trace of ``groups`` work-groups of 64 items per launch, with one launches row
    per launch holding the sizes and metadata given (which may contradict the rows); ``listed``
    launches rows in all (more than ``launches`` lists launches without rows)."""
    parts = [access_pattern("vector_add", global_size=64 * groups, local_size=64, launch=i)
             for i in range(launches)]
    acc = pa.concat_tables(parts)
    launches = listed or launches
    rows = conform(pa.table({
        "kernel": ["vector_add"] * launches, "launch": pa.array(range(launches), pa.int32()),
        "global_size": [list(global_size)] * launches, "local_size": [list(local_size)] * launches,
        "local_mem_bytes": [0] * launches, "metadata": [json.dumps(metadata or {})] * launches,
    }), "launches")
    write_trace(path, acc, launches=rows, sites=sites_for(acc), layout="tkt")
    return path


def sampled(recorded: int, total: int, **extra) -> dict:
    return {"sampling": {"mode": "first", "n": recorded, "groups_recorded": recorded, "total_groups": total,
                         "scale": total / recorded if recorded else 1.0, **extra}}


BAD = {
    # the recorded groups say none were kept, yet four are in the rows (scale would fall to 1)
    "zero-recorded": (dict(metadata=sampled(0, 4)), "groups_recorded is 0"),
    # fewer recorded groups than the rows hold
    "recorded-below-rows": (dict(metadata=sampled(2, 16), global_size=(1024, 1, 1)),
                            "accesses hold at least 3 distinct work-groups"),
    # the sampling record's grid is not the launch's grid
    "total-not-grid": (dict(metadata=sampled(4, 1000)), "total_groups is 1,000 but the grid"),
    "recorded-above-grid": (dict(metadata={"sampling": {"groups_recorded": 8, "total_groups": 4}}),
                            "more than the grid's 4"),
    "all-but-fewer": (dict(metadata={"sampling": {"mode": "all", "groups_recorded": 4, "total_groups": 8}},
                           global_size=(512, 1, 1)), "mode is 'all' but groups_recorded is 4"),
    "total-without-recorded": (dict(metadata={"sampling": {"total_groups": 4}}), "not groups_recorded"),
    "scale-disagrees": (dict(metadata=sampled(4, 16, scale=2.0),
                             global_size=(1024, 1, 1)), "total_groups / groups_recorded is 16 / 4 = 4"),
    "scale-nan": (dict(metadata={"sampling": {"groups_recorded": 4, "total_groups": 4, "scale": "x"}}),
                  "expected a finite number > 0"),
    "recorded-above-n": (dict(metadata=sampled(4, 16, n=2), global_size=(1024, 1, 1)), "n = 2"),
    "every-k-zero": (dict(metadata={"sampling": {"mode": "every", "k": 0, "groups_recorded": 4,
                                                 "total_groups": 4}}), "sampling.k is 0"),
    "num-groups": (dict(metadata={"num_groups": [8, 1, 1]}), "'num_groups' is 8 x 1 x 1"),
    # products that wrap around in int64 (validate used to say "expected 0 to -1")
    "grid-overflow": (dict(global_size=(2**40, 2**40, 2**40)), "more than int64 holds"),
    "grid-overflow-2": (dict(global_size=(2**62, 4, 1)), "work-items in the grid"),
    "group-size-overflow": (dict(global_size=(2**40, 1, 1), local_size=(2**20, 2**20, 1)),
                            "the int32 'item' column"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_contradicting_counts_are_refused_by_validate_and_analyze(tmp_path, run_cli, case):
    kw, phrase = BAD[case]
    trace = write_launch(tmp_path / "t.tkt", **kw)
    v = run_cli("validate", trace)
    assert v.code == 2 and phrase in v.text, v.text
    assert "expected 0 to -1" not in v.text
    a = run_cli("analyze", trace, "-t", "adreno-640", "-f", "json", "-o", tmp_path / "a.json")
    assert a.code == 2 and phrase in a.text, a.text
    assert "Traceback" not in a.text and not (tmp_path / "a.json").exists()


def test_what_if_and_sampled_estimates_refuse_the_same_counts(tmp_path, run_cli):
    trace = write_launch(tmp_path / "t.tkt", metadata=sampled(0, 4))
    for extra in (["--what-if", "pad-local=64:4"], ["--sample-groups", "0.5"]):
        r = run_cli("analyze", trace, "-t", "adreno-640", "-f", "json", "-o", tmp_path / "a.json", *extra)
        assert r.code == 2 and "groups_recorded is 0" in r.text, r.text


def test_notebook_analysis_refuses_the_same_counts(tmp_path):
    from tracekit import TraceFormatError, pipeline

    trace = write_launch(tmp_path / "t.tkt", metadata=sampled(4, 1000))
    with pytest.raises(TraceFormatError, match="total_groups is 1,000"):
        pipeline.analyze(str(trace), ["adreno-640"])


def test_consistent_sampling_is_valid(tmp_path, run_cli):
    trace = write_launch(tmp_path / "t.tkt", metadata=sampled(4, 16, seed=1), global_size=(1024, 1, 1))
    assert run_cli("validate", trace).code == 0
    r = run_cli("analyze", trace, "-t", "adreno-640", "-f", "json", "-o", tmp_path / "a.json")
    assert r.code == 0, r.text
    doc = json.loads((tmp_path / "a.json").read_text())
    launch = doc["targets"]["adreno-640"]["launches"][0]
    assert launch["geometry"]["work_groups"] == 16


def test_a_trace_without_accesses_is_refused(tmp_path, run_cli):
    acc = access_pattern("vector_add").slice(0, 0)
    rows = conform(pa.table({
        "kernel": ["vector_add"], "launch": pa.array([0], pa.int32()), "global_size": [[256, 1, 1]],
        "local_size": [[64, 1, 1]], "local_mem_bytes": [0], "metadata": ["{}"]}), "launches")
    write_trace(tmp_path / "t.tkt", acc, launches=rows, layout="tkt")
    r = run_cli("analyze", tmp_path / "t.tkt", "-t", "adreno-640", "-f", "json", "-o", tmp_path / "a.json")
    assert r.code == 2 and "no accesses" in r.text and "nothing to analyse" in r.text, r.text


def test_an_empty_launch_says_so_and_the_others_keep_their_results(tmp_path, run_cli):
    full = json.loads(run_cli("analyze", write_launch(tmp_path / "full.tkt", launches=2), "-t", "adreno-640",
                              "-f", "json").out)
    # the launches table lists a third launch the trace holds no rows of
    trace = write_launch(tmp_path / "t.tkt", launches=2, listed=3)
    v = run_cli("validate", trace)
    assert v.code == 0 and "have no accesses" in v.text and "launch 2" in v.text
    r = run_cli("analyze", trace, "-t", "adreno-640", "-f", "json")
    assert r.code == 0, r.text
    launches = json.loads(r.out)["targets"]["adreno-640"]["launches"]
    assert [x["launch"] for x in launches] == [0, 1, 2]
    assert "nothing to analyse" in launches[2]["error"] and launches[2]["bound"] is None
    before = full["targets"]["adreno-640"]["launches"]
    assert [x["time_estimates"] for x in launches[:2]] == [x["time_estimates"] for x in before]


def test_what_if_and_sampling_say_an_empty_launch_has_nothing_to_analyse(tmp_path, run_cli):
    trace = write_launch(tmp_path / "t.tkt", launches=2, listed=3)
    for extra, entries in ((["--what-if", "fast-math"], lambda d: d["targets"]["adreno-640"]),
                           (["--sample-groups", "0.5"], lambda d: d["targets"]["adreno-640"]["launches"])):
        r = run_cli("analyze", trace, "-t", "adreno-640", "-f", "json", *extra)
        assert r.code == 0, r.text
        got = entries(json.loads(r.out))
        assert [e["launch"] for e in got] == [0, 1, 2]
        assert "nothing to analyse" in got[2]["error"] and "error" not in got[0]
    r = run_cli("analyze", trace, "-t", "adreno-640", "-f", "text", "--what-if", "fast-math")
    assert r.code == 0 and "nothing to" in r.text  # the table may fold the message


def test_an_unfinished_recorded_launch_keeps_the_groups_it_wrote(tmp_path, run_cli):
    """A launch the program stopped in never reports its recorded groups: the converter counts
    those it wrote, so the launch stays consistent (and is analysed, marked incomplete)."""
    from types import SimpleNamespace

    from tracekit.recorder.convert import Converter

    info = {"num_groups": [4, 1, 1], "sampling": {"mode": "all"}, "work_dim": 1, "global_offset": [0, 0, 0],
            "args": [], "global_size": [256, 1, 1], "local_size": [64, 1, 1]}
    st = SimpleNamespace(info=info, end=None, groups_seen=3, diagnostics=[], errors=0, unmapped=0, layout={},
                         footprint=[], images=None, kernel="vector_add", launch=0)
    row = Converter._launch_row(SimpleNamespace(device="d"), st, None, None, {})
    meta = json.loads(row["metadata"])
    assert meta["status"] == "incomplete" and meta["sampling"]["groups_recorded"] == 3
    acc = access_pattern("vector_add", global_size=192, local_size=64)     # the three groups written
    write_trace(tmp_path / "t.tkt", acc, launches=conform(pa.Table.from_pylist([row]), "launches"),
                sites=sites_for(acc), layout="tkt")
    assert run_cli("validate", tmp_path / "t.tkt").code == 0
    r = run_cli("analyze", tmp_path / "t.tkt", "-t", "adreno-640", "-f", "json")
    assert r.code == 0, r.text
    geo = json.loads(r.out)["targets"]["adreno-640"]["launches"][0]["geometry"]
    assert geo["sampling"]["groups_recorded"] == 3 and geo["sampling"]["total_groups"] == 4
