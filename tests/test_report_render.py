"""The rendered report: one self-contained file, deterministic, written atomically."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser

import pytest
from test_report_fixtures import TARGETS, refusing_results, sample_inputs, sample_model

from tracekit.errors import TracekitError
from tracekit.report import build_report_model, render_html, render_report
from tracekit.report.render import RefusingFetcher, render_pdf_bytes


class Tags(HTMLParser):
    """Every start tag with its attributes, to check what a browser would load or run."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags_of(html: str) -> list[tuple[str, dict]]:
    p = Tags()
    p.feed(html)
    return p.tags


@pytest.fixture(scope="module")
def html() -> str:
    return render_html(sample_model())


def test_html_is_self_contained(html):
    tags = tags_of(html)
    names = {t for t, _ in tags}
    assert "script" not in names and "link" not in names and "img" not in names and "iframe" not in names
    for tag, attrs in tags:
        for key, value in attrs.items():
            assert not key.startswith("on"), (tag, key)
            if key in ("src", "href", "xlink:href", "action"):
                assert value.startswith("#"), (tag, key, value)   # in-page anchors only
    assert "url(" not in html and "@import" not in html and "@font-face" not in html
    assert re.search(r"<style>[^<]*\.badge", html)          # the stylesheet is inlined
    assert "Content-Security-Policy" in html


def test_html_has_every_part(html):
    assert html.count("<svg") >= 3 * 5   # per target: roofline, times, coalescing, banks, meters
    for part in ("Summary", "What to fix first, per target", "Checklist", "Across targets",
                 "Methods and assumptions", "Hottest source lines"):
        assert part in html
    assert html.index("What to fix first") < html.index('id="launch-0"')   # the advice leads
    for target in TARGETS:
        assert html.count(target) >= 3
    assert "Local-memory bank conflicts" in html
    assert "intel-processor-graphics-opencl-guide.txt §__local Memory" in html
    assert 'class="ln hot"' in html and "out[ty * n + tx]" in html
    assert 'class="badge ' in html and "ahead of" in html


def test_same_inputs_give_identical_bytes():
    assert render_html(sample_model()) == render_html(sample_model())


def test_error_cell_is_shown_without_charts():
    facts, results, findings = sample_inputs()
    html = render_html(build_report_model(facts, list(results) + list(refusing_results()), findings))
    assert re.search(r"Not analysed on this target: [^<]*256[^<]*64", html)


def test_render_report_writes_atomically(tmp_path):
    out = tmp_path / "r.html"
    out.write_text("old")
    path = render_report(sample_model(), "html", out)
    assert path == out and out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(os.listdir(tmp_path)) == ["r.html"]        # no temporary left behind
    with pytest.raises(TracekitError, match="unknown report format"):
        render_report(sample_model(), "docx", tmp_path / "r.docx")
    nested = render_report(sample_model(), "html", tmp_path / "new" / "dir" / "r.html")
    assert nested.read_bytes() == out.read_bytes()
    (tmp_path / "file").write_text("x")
    with pytest.raises(TracekitError, match="cannot create the output folder"):
        render_report(sample_model(), "html", tmp_path / "file" / "r.html")


def test_pdf_renders_without_fetching_anything(tmp_path):
    fetcher = RefusingFetcher()
    out = render_report(sample_model(), "pdf", tmp_path / "r.pdf", fetcher=fetcher)
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and len(data) > 20_000
    assert fetcher.attempts == []


def test_refusing_fetcher_refuses(tmp_path):
    secret = tmp_path / "secret.css"
    secret.write_text("body { background: red; }")
    fetcher = RefusingFetcher()
    pdf = render_pdf_bytes(f'<link rel="stylesheet" href="{secret.as_uri()}"><p>x</p>', fetcher)
    assert fetcher.attempts == [secret.as_uri()]
    assert pdf.startswith(b"%PDF-")
    with pytest.raises(PermissionError):
        fetcher("https://example.com/a.png")
