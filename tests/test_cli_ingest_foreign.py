"""`tracekit ingest` on other tools' exports: detection, --format, and refusals."""

from __future__ import annotations

from pathlib import Path

from tracekit import open_trace

DATA = Path(__file__).parent / "data"


def test_traceg_detected_from_content(run_cli, tmp_path):
    out = tmp_path / "k.tkt"
    r = run_cli("ingest", DATA / "traceg" / "kernel-1.traceg", "-o", out)
    assert r.code == 0, r.err
    t = open_trace(out)
    assert t.num_accesses > 0 and t.launches.num_rows == 1
    assert f"{t.num_accesses:,} accesses" in r.out
    assert run_cli("validate", out).code == 0


def test_traceg_named_explicitly_single_file(run_cli, tmp_path):
    out = tmp_path / "k.parquet"
    r = run_cli("ingest", DATA / "traceg" / "kernel-1.traceg", "--format", "traceg", "-o", out)
    assert r.code == 0, r.err
    assert open_trace(out).layout == "parquet"


def test_measurements_are_refused_with_a_pointer(run_cli, tmp_path):
    out = tmp_path / "n.tkt"
    r = run_cli("ingest", DATA / "h200" / "ncu_raw.csv", "--format", "ncu", "-o", out)
    assert r.code == 2 and "Traceback" not in r.err
    assert "measurements" in r.err and "ncu_raw.csv" in r.err
    assert not out.exists()


def test_unknown_format_named(run_cli, tmp_path):
    r = run_cli("ingest", DATA / "traceg" / "kernel-1.traceg", "--format", "bogus", "-o", tmp_path / "x.tkt")
    assert r.code == 2 and "'bogus'" in r.err and "traceg" in r.err
