"""The methods appendix shows the calibration agreement table, in HTML and in the PDF."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html import unescape

import pytest
from test_report_fixtures import sample_model

from tracekit.calibration.summary import DEFAULT_SUMMARY, REAL_SUMMARY, load_summary
from tracekit.report import render_html, render_report
from tracekit.report.compare import compare_models
from tracekit.report.methods import calibration_view, calibration_views


def _text(html: str) -> str:
    """What a reader sees: tags dropped, entities decoded, white space collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


@pytest.fixture(scope="module")
def summary() -> dict:
    doc = load_summary()
    assert doc is not None, f"{DEFAULT_SUMMARY} is missing or not a calibration summary"
    return doc


def test_view_carries_every_quantity_and_the_device(summary):
    view = calibration_view()
    assert [r.label for r in view.rows] == [q["label"] for q in summary["quantities"]]
    assert view.device == "NVIDIA H200" and view.ncu_version.startswith("2025.3.1")
    assert view.measured == summary["measured"] and view.launches == 31
    verdict = next(r for r in view.rows if r.label.startswith("verdict"))
    q = next(q for q in summary["quantities"] if q["quantity"] == "verdict")
    assert verdict.agreement == f"{q['agreement'] * 100:.0f} %" and verdict.agreeing == q["agreeing"]
    assert len(view.disagreements) == q["launches"] - q["agreeing"]


def test_view_of_a_missing_summary_is_none(tmp_path):
    assert load_summary(tmp_path / "absent.json") is None
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else"}))
    assert load_summary(tmp_path / "other.json") is None


def _expect_table(text: str, summary: dict) -> None:
    assert "calibration on NVIDIA H200" in text
    assert f"Nsight Compute {summary['ncu_version']}" in text and f"measured {summary['measured']}" in text
    for q in summary["quantities"]:
        assert q["label"] in text, q["label"]
        share = f"{q['agreement'] * 100:.0f} % ({q['agreeing']} of {q['launches']})"
        assert share in text, share


def test_report_html_shows_the_table(summary):
    text = _text(render_html(sample_model()))
    methods = text[text.index("Methods and assumptions"):]
    _expect_table(methods, summary)


def test_comparison_html_shows_the_table(summary):
    model = sample_model()
    text = _text(render_html(compare_models(model, model, "adreno-640")))
    _expect_table(text[text.index("Methods and assumptions"):], summary)


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) is not installed")
def test_report_pdf_shows_the_table(summary, tmp_path):
    pdf = render_report(sample_model(), "pdf", tmp_path / "r.pdf")
    text = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    text = re.sub(r"\s+", " ", text)
    assert "calibration on NVIDIA H200" in text
    verdict = next(q for q in summary["quantities"] if q["quantity"] == "verdict")
    assert f"({verdict['agreeing']} of {verdict['launches']})" in text
    assert "sectors per request (global loads)" in text


def test_appendix_shows_the_real_kernel_suite_after_the_micro_kernels():
    """Both committed tables: the micro-kernels, one effect each, then the 28 launches of real
    benchmark kernels, each named by its suite."""
    real = load_summary(REAL_SUMMARY)
    assert real is not None and real["suite"] == "real-kernel" and real["launches"] == 28
    views = calibration_views()
    assert [v.suite for v in views] == ["micro-kernel", "real-kernel", "probe", "probe"]
    assert views[1].launches == 28
    text = _text(render_html(sample_model()))
    methods = text[text.index("Methods and assumptions"):]
    assert "calibration on NVIDIA H200, micro-kernel suite" in methods
    assert "calibration on NVIDIA H200, real-kernel suite" in methods
    assert "a suite of 28 real-kernel launches" in methods
    # the published-probe suites of the mobile targets follow (tests/data/mobile)
    assert "calibration on Qualcomm Adreno 640 (Google Pixel 4), probe suite" in methods
    assert "replayed ArchProbe's probe kernels" in methods
    assert "replayed clpeak 1.1.x's probe kernels" in methods
    for q in real["quantities"]:
        assert f"{q['agreement'] * 100:.0f} % ({q['agreeing']} of {q['launches']})" in methods, q["label"]
    assert "stencil_naive (ncu ID 21): model memory, device latency" in methods
