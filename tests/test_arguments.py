"""Numeric options beyond their documented limits and wrong-type notebook calls: exit 2 or
TypeError/ValueError naming the argument, never a traceback from deep inside."""

from __future__ import annotations

import math

import pytest

from tracekit.arguments import SEED_MAX, WORKERS_MAX
from tracekit.errors import TracekitError

ANALYZE_OPTIONS = [
    (["--workers", "-3"], "--workers"),
    (["--workers", "0"], "--workers"),
    (["--workers", "100000"], "--workers"),            # used never to return
    (["--workers", str(WORKERS_MAX + 1)], "--workers"),
    (["--seed", "-1", "--sample-groups", "0.5"], "--seed"),
    (["--seed", str(SEED_MAX + 1), "--sample-groups", "0.5"], "--seed"),
    (["--sample-groups", "0"], "--sample-groups"),
    (["--sample-groups", "-0.5"], "--sample-groups"),
    (["--sample-groups", "1.5"], "--sample-groups"),
    (["--sample-groups", "nan"], "--sample-groups"),
    (["--sample-groups", "inf"], "--sample-groups"),
]


@pytest.mark.parametrize("args, option", ANALYZE_OPTIONS,
                         ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_analyze_options_beyond_their_limits(make_trace, run_cli, tmp_path, args, option):
    r = run_cli("analyze", make_trace("vector_add"), "-t", "adreno-640", "-f", "json",
                "-o", tmp_path / "a.json", *args)
    assert r.code == 2, r.text
    assert option in r.text and "Traceback" not in r.text
    assert not (tmp_path / "a.json").exists()


def test_other_commands_numeric_options(run_cli, tmp_path, write_csv):
    r = run_cli("jobs", "history", tmp_path / "ledger.sqlite", "--limit", "0")
    assert r.code == 2 and "--limit" in r.text, r.text
    r = run_cli("record", "-o", tmp_path / "t.tkt", "--align", "0", "k.cl")
    assert r.code == 2 and "--align" in r.text, r.text
    r = run_cli("record", "-o", tmp_path / "t.tkt", "--align", str(1 << 40), "k.cl")
    assert r.code == 2 and "--align" in r.text, r.text
    csv = write_csv("a.csv", "site,space,op,address,size,group,item\n0,global,load,0,4,0,0\n")
    for sizes in ("99999999999999999999999", f"{2**62},4,1"):
        r = run_cli("ingest", csv, "-o", tmp_path / "i.tkt", "--kernel", "k", f"--global={sizes}",
                    "--local", "1")
        assert r.code == 2 and "global" in r.text and "expected 0 to -1" not in r.text, r.text
        assert not (tmp_path / "i.tkt").exists()


def test_limits_in_range_still_run(make_trace, run_cli, tmp_path):
    r = run_cli("analyze", make_trace("vector_add"), "-t", "adreno-640", "-f", "json",
                "-o", tmp_path / "a.json", "--sample-groups", "1", "--seed", str(SEED_MAX))
    assert r.code == 0, r.text


# -- the notebook API ------------------------------------------------------------------------

def _calls(trace: str):
    """(id, call, the argument's name that the message must carry), about forty wrong calls."""
    import analyzers
    import tracekit
    from analyzers.rules import findings_frame, run_rules
    from tracekit import pipeline
    from tracekit.targets import load_target
    from tracekit.trace.summary import summarize

    T, A = trace, ["adreno-640"]
    return [
        ("open_trace(42)", lambda: tracekit.open_trace(42), "path"),
        ("open_trace(None)", lambda: tracekit.open_trace(None), "path"),
        ("open_trace('')", lambda: tracekit.open_trace(""), "path"),
        ("open_trace([path])", lambda: tracekit.open_trace([T]), "path"),
        ("Trace(42)", lambda: tracekit.Trace(42), "path"),
        ("write_trace(42)", lambda: tracekit.write_trace(42, None), "path"),
        ("TraceWriter(42)", lambda: tracekit.TraceWriter(42), "path"),
        ("write_trace(accesses=None)", lambda: tracekit.write_trace("/nonexistent/x.tkt", None), "accesses"),
        ("write_trace(accesses=dict)", lambda: tracekit.write_trace("/nonexistent/x.tkt", {}), "accesses"),
        ("load_target(42)", lambda: load_target(42), "name_or_path"),
        ("load_target(None)", lambda: load_target(None), "name_or_path"),
        ("load_target('')", lambda: load_target(""), "name_or_path"),
        ("load_target([name])", lambda: load_target(["adreno-640"]), "name_or_path"),
        ("summarize(42)", lambda: summarize(42), "trace"),
        ("summarize(None)", lambda: summarize(None), "trace"),
        ("summarize(path)", lambda: summarize(T), "open_trace"),
        ("analyze(trace=42)", lambda: analyzers.analyze(42, "adreno-640"), "trace"),
        ("analyze(trace=None)", lambda: analyzers.analyze(None, "adreno-640"), "trace"),
        ("analyze(target=42)", lambda: analyzers.analyze(T, 42), "target"),
        ("analyze(target=None)", lambda: analyzers.analyze(T, None), "target"),
        ("analyze(target=[name])", lambda: analyzers.analyze(T, ["adreno-640"]), "target"),
        ("analyze_many(targets=str)", lambda: analyzers.analyze_many(T, "adreno-640"), "targets"),
        ("analyze_many(targets=42)", lambda: analyzers.analyze_many(T, 42), "targets"),
        ("analyze_many(targets=[42])", lambda: analyzers.analyze_many(T, [42]), "targets[0]"),
        ("what_if(trace=42)", lambda: analyzers.what_if(42, "adreno-640", "fast-math"), "trace"),
        ("what_if(target=42)", lambda: analyzers.what_if(T, 42, "fast-math"), "target"),
        ("what_if(change=42)", lambda: analyzers.what_if(T, "adreno-640", 42), "change"),
        ("what_if(change=None)", lambda: analyzers.what_if(T, "adreno-640", None), "change"),
        ("pipeline.analyze(trace=42)", lambda: pipeline.analyze(42, A), "trace"),
        ("pipeline.analyze(targets=None)", lambda: pipeline.analyze(T, None), "targets"),
        ("pipeline.analyze(targets=str)", lambda: pipeline.analyze(T, "adreno-640"), "targets"),
        ("pipeline.analyze(targets=[42])", lambda: pipeline.analyze(T, [42]), "targets[0]"),
        ("pipeline.analyze(workers='2')", lambda: pipeline.analyze(T, A, workers="2"), "workers"),
        ("pipeline.analyze(workers=2.5)", lambda: pipeline.analyze(T, A, workers=2.5), "workers"),
        ("pipeline.analyze(workers=-3)", lambda: pipeline.analyze(T, A, workers=-3), "workers"),
        ("pipeline.analyze(workers=10**6)", lambda: pipeline.analyze(T, A, workers=10**6), "workers"),
        ("analyze_distributed(workers=-3)", lambda: _distributed(T, workers=-3), "workers"),
        ("analyze_distributed(workers=10**6)", lambda: _distributed(T, workers=10**6), "workers"),
        ("pipeline.analyze(scheduler=42)", lambda: pipeline.analyze(T, A, scheduler=42), "scheduler"),
        ("pipeline.analyze(progress='yes')", lambda: pipeline.analyze(T, A, progress="yes"), "progress"),
        ("sampled_document(fraction='0.5')", lambda: pipeline.sampled_document(T, A, "0.5"), "fraction"),
        ("sampled_document(fraction=nan)", lambda: pipeline.sampled_document(T, A, math.nan), "fraction"),
        ("sampled_document(seed=-1)", lambda: pipeline.sampled_document(T, A, 0.5, seed=-1), "seed"),
        ("sampled_document(seed='1')", lambda: pipeline.sampled_document(T, A, 0.5, seed="1"), "seed"),
        ("sampled_document(seed=1.5)", lambda: pipeline.sampled_document(T, A, 0.5, seed=1.5), "seed"),
        ("what_if_document(change=42)", lambda: pipeline.what_if_document(T, A, 42), "change"),
        ("write(analysis=42)", lambda: pipeline.write(42, "json", "x.json"), "analysis"),
        ("compare(before=42)", lambda: tracekit.compare(42, T, "adreno-640"), "before"),
        ("compare(after=None)", lambda: tracekit.compare(T, None, "adreno-640"), "after"),
        ("compare(target=42)", lambda: tracekit.compare(T, T, 42), "target"),
        ("compare(target=[name])", lambda: tracekit.compare(T, T, ["adreno-640"]), "target"),
        ("run_rules(42)", lambda: run_rules(42), "results"),
        ("run_rules([42])", lambda: run_rules([42]), "results[0]"),
        ("findings_frame(42)", lambda: findings_frame(42), "findings"),
        ("findings_frame([42])", lambda: findings_frame([42]), "findings[0]"),
    ]


def _distributed(trace, **kw):
    from tracekit.distributed import analyze_distributed
    return analyze_distributed(trace, ["adreno-640"], **kw)


CALL_IDS = [c[0] for c in _calls("unused")]


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory):
    from conftest import access_pattern, launches_for, sites_for

    from tracekit.trace.store import write_trace

    acc = access_pattern("vector_add")
    path = tmp_path_factory.mktemp("api") / "t.tkt"
    write_trace(path, acc, launches=launches_for(acc, global_size=256, local_size=64), sites=sites_for(acc))
    return str(path)


@pytest.mark.parametrize("call_id", CALL_IDS)
def test_wrong_notebook_calls_name_the_argument(small_trace, call_id):
    _, call, argument = next(c for c in _calls(small_trace) if c[0] == call_id)
    with pytest.raises((TypeError, ValueError, TracekitError)) as info:
        call()
    assert argument in str(info.value), f"{call_id}: {info.value!r}"
    assert not isinstance(info.value, (AttributeError, KeyError, IndexError))


def test_wrong_types_are_also_tracekit_errors_for_the_command_line():
    from tracekit import pipeline

    with pytest.raises(TypeError) as info:
        pipeline.analyze("x.tkt", "adreno-640")
    assert isinstance(info.value, TracekitError) and info.value.exit_code == 2
