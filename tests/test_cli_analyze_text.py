"""`tracekit analyze` for people at a terminal: the table view and the default format."""

from __future__ import annotations

import json
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent.parent / "sample_traces" / "vector_add.tkt"


def test_text_table_shows_verdict_and_terms_per_target(run_cli):
    r = run_cli("analyze", SAMPLE, "-t", "powervr-g6400", "-t", "intel-hd530", "-f", "text")
    assert r.code == 0, r.err
    doc = json.loads(run_cli("analyze", SAMPLE, "-t", "powervr-g6400", "-t", "intel-hd530", "-f", "json").out)
    for target in ("powervr-g6400", "intel-hd530"):
        line = next(ln for ln in r.out.splitlines() if target in ln)
        launch = doc["targets"][target]["launches"][0]
        assert "vector_add" in line and launch["bound"] in line
        assert f"{100 * launch['simd']['utilization']:.0f}%" in line
    for header in ("verdict", "ALU", "memory", "latency", "SIMD util.", "occupancy"):
        assert header in r.out


def test_default_is_json_when_piped_and_follows_the_output_suffix(run_cli, tmp_path):
    r = run_cli("analyze", SAMPLE, "-t", "powervr-g6400")
    assert r.code == 0 and json.loads(r.out)["format"] == "tracekit-analysis"
    html = tmp_path / "r.html"
    assert run_cli("analyze", SAMPLE, "-t", "powervr-g6400", "-o", html).code == 0
    assert html.read_text().lstrip().lower().startswith("<!doctype html")
    txt = tmp_path / "r.txt"
    assert run_cli("analyze", SAMPLE, "-t", "powervr-g6400", "-o", txt).code == 0
    assert "verdict" in txt.read_text()
