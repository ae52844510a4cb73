"""Untrusted trace text cannot run in the HTML report nor make the PDF renderer fetch anything.

A kernel named ``<script>alert(1)</script>`` with source that contains
``<img src="file:///etc/passwd">`` (on the hottest line, 9, so it is shown) and a
hostile file name go through the whole pipeline.  The HTML must carry them as
escaped text only; the PDF must show them as text and its URL fetcher must never
be asked for a ``file://`` URL.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from test_report_fixtures import sample_inputs
from test_report_render import tags_of

from tracekit.report import build_report_model, render_html, render_report
from tracekit.report.render import RefusingFetcher

KERNEL = "<script>alert(1)</script>"
IMG = '<img src="file:///etc/passwd">'
FILE = '"><svg onload=alert(2)>.cl'
SOURCE = "\n".join([
    "__kernel void k(__global const float *in, __global float *out) {",
    "  int i = get_global_id(0);",
    f"  // {IMG}",
    "  float v = 0.0f;",
    "  v += 1.0f;",
    "  v = in[i];",
    "  v *= 2.0f;",
    "  v += 3.0f;",
    f"  out[i * 17] = v; /* {IMG} */",
    "}",
    "",
])


def hostile_model():
    from dataclasses import replace
    facts, results, findings = sample_inputs(kernel=KERNEL, source=SOURCE, file=FILE)
    findings = [replace(f, evidence={"note": IMG}, title=f.title + " " + KERNEL) for f in findings]
    return build_report_model(facts, results, findings, title=f"report for {KERNEL}")


@pytest.fixture(scope="module")
def html() -> str:
    return render_html(hostile_model())


def test_untrusted_text_is_escaped_not_markup(html):
    assert KERNEL not in html and IMG not in html and "<svg onload" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=&#34;file:///etc/passwd&#34;&gt;" in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 5   # title, summary, headings, checklist
    tags = tags_of(html)
    assert not [t for t, _ in tags if t in ("script", "img", "iframe", "object", "embed", "link")]
    assert not [(t, k) for t, a in tags for k in a if k.startswith("on")]
    # The hostile line is on show, escaped, in the hot-lines code block.
    assert re.search(r'<span class="ln hot"><span class="no">9</span>.*&lt;img src=', html)


def test_pdf_shows_the_text_and_fetches_nothing(tmp_path):
    fetcher = RefusingFetcher()
    out = render_report(hostile_model(), "pdf", tmp_path / "hostile.pdf", fetcher=fetcher)
    assert not [u for u in fetcher.attempts if u.startswith("file:")]
    assert fetcher.attempts == []
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    text = subprocess.run(["pdftotext", "-layout", str(out), "-"], check=True, capture_output=True,
                          text=True).stdout
    flat = " ".join(text.split())
    assert KERNEL in flat                       # shown as literal text
    assert 'src="file:///etc/passwd"' in flat
    assert "root:" not in text                  # /etc/passwd never made it in
