"""``tracekit analyze``: every launch on every target in one run, JSON keys, errors, exit codes."""

from __future__ import annotations

import json

import pytest
from exec_model_helpers import combine, few_items, vector_add

from tracekit.trace.store import write_trace


def _write(path, trace_tables):
    write_trace(path, trace_tables["accesses"], instructions=trace_tables["instructions"],
                launches=trace_tables["launches"])
    return path


@pytest.fixture
def two_launch_trace(tmp_path):
    big = vector_add(n=2048, local=512)      # too large a work-group for Intel HD530 (256)
    small = few_items()
    small.launch = 1
    small.launch_row["launch"] = 1
    tr = combine(big, small)
    tables = {k: getattr(tr, k) for k in ("accesses", "instructions", "launches")}
    return _write(tmp_path / "two.tkt", tables)


REQUIRED = ("memory.requests", "memory.transactions", "memory.transactions_per_request",
            "memory.dram_bytes", "local_memory.requests", "local_memory.cycles",
            "local_memory.conflict_degree_mean", "bound", "time_estimates", "simd.utilization", "occupancy")


def _dig(d, dotted):
    for part in dotted.split("."):
        d = d[part]
    return d


def test_every_launch_on_every_target_in_one_json(run_cli, two_launch_trace, tmp_path):
    out = tmp_path / "result.json"
    r = run_cli("analyze", two_launch_trace, "--target", "powervr-g6400", "--target", "intel-hd530",
                "-t", "nvidia-h200", "--format", "json", "-o", out)
    assert r.code == 0, r.err
    doc = json.loads(out.read_text())
    assert doc["format"] == "tracekit-analysis" and doc["version"] == 1
    assert sorted(doc["targets"]) == ["intel-hd530", "nvidia-h200", "powervr-g6400"]
    for name, res in doc["targets"].items():
        launches = {ln["launch"]: ln for ln in res["launches"]}
        assert sorted(launches) == [0, 1]
        for ln in launches.values():
            if name == "intel-hd530" and ln["launch"] == 0:
                assert ln["bound"] is None and "exceeds intel-hd530's maximum" in ln["error"]
                continue
            assert ln["error"] is None
            for key in REQUIRED:
                _dig(ln, key)
            assert [c["level"] for c in ln["memory"]["caches"]] and \
                all(0 <= c["hit_rate"] <= 1 for c in ln["memory"]["caches"])
            assert ln["bound"] in ("alu", "memory", "latency")
        assert launches[1]["bound"] == "latency"
    assert doc["targets"]["powervr-g6400"]["launches"][0]["bound"] == "memory"


def test_json_output_is_byte_identical_between_runs(run_cli, two_launch_trace, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run_cli("analyze", two_launch_trace, "-t", "adreno-640", "-o", a).code == 0
    assert run_cli("analyze", two_launch_trace, "-t", "adreno-640", "-o", b).code == 0
    assert a.read_bytes() == b.read_bytes()
    r = run_cli("analyze", two_launch_trace, "-t", "adreno-640")
    assert r.code == 0 and r.out.encode() == a.read_bytes()


def test_no_target_is_a_usage_error(run_cli, two_launch_trace):
    r = run_cli("analyze", two_launch_trace)
    assert r.code == 2 and "--target" in r.err and "powervr-g6400" in r.err


def test_unknown_target_lists_the_known_ones(run_cli, two_launch_trace):
    r = run_cli("analyze", two_launch_trace, "-t", "geforce-256")
    assert r.code == 2 and "unknown target 'geforce-256'" in r.err and "nvidia-h200" in r.err


def test_missing_trace_is_a_clear_error(run_cli, tmp_path):
    r = run_cli("analyze", tmp_path / "nope.tkt", "-t", "powervr-g6400")
    assert r.code == 2 and "nope.tkt" in r.err and "Traceback" not in r.err


def test_report_formats_need_an_output_file(run_cli, two_launch_trace):
    r = run_cli("analyze", two_launch_trace, "-t", "powervr-g6400", "--format", "html")
    assert r.code == 2 and "-o" in r.err


def test_trace_without_launch_metadata_warns(run_cli, tmp_path):
    t = vector_add(n=1024, local=64).tables()
    from tracekit.trace import schema
    path = tmp_path / "bare.tkt"
    write_trace(path, t["accesses"], instructions=t["instructions"], launches=schema.empty("launches"))
    out = tmp_path / "bare.json"
    r = run_cli("analyze", path, "-t", "powervr-g6400", "-o", out)
    assert r.code == 0
    doc = json.loads(out.read_text())
    assert any("no launch metadata" in w for w in doc["warnings"])
    (ln,) = doc["targets"]["powervr-g6400"]["launches"]
    assert ln["geometry"]["inferred"] and ln["geometry"]["local_size"] == [64, 1, 1]


def test_html_report_of_every_target(run_cli, two_launch_trace, tmp_path):
    out = tmp_path / "report.html"
    r = run_cli("analyze", two_launch_trace, "-t", "powervr-g6400", "-t", "intel-hd530", "-f", "html",
                "-o", out)
    assert r.code == 0, r.err
    text = out.read_text()
    assert text.lstrip().lower().startswith("<!doctype html")
    assert "vector_add" in text and "powervr-g6400" in text and "intel-hd530" in text
    assert "exceeds intel-hd530" in text           # the error of the too-large launch is shown
