"""The report checked as a reader sees it: a real browser and the PDF tools.

Headless Chromium (Debian's ``chromium``) loads the HTML, takes a screenshot and
logs the page's console to stderr; the screenshot must not be blank and the
console must stay silent (the report has no scripts, and its Content Security
Policy would log any blocked load).  A control page with a script error and no
content proves both checks can fail.  Poppler's ``pdftoppm`` and ``pdftotext``
read the PDF: pages that are not blank and the checklist items with citations.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageStat
from test_report_fixtures import sample_model
from test_report_render import tags_of
from test_report_safety import KERNEL, hostile_model

from tracekit.report import render_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make system-test)")
needs_poppler = pytest.mark.skipif(shutil.which("pdftoppm") is None or shutil.which("pdftotext") is None,
                                   reason="poppler-utils is not installed (make system-test)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]


def chromium(page: Path, tmp: Path, *extra: str) -> subprocess.CompletedProcess:
    profile = tmp / f"profile-{page.stem}"
    cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.resolve().as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp)


def screenshot(page: Path, tmp: Path) -> tuple[Path, list[str]]:
    """A 1200x1600 screenshot of ``page`` and the console messages Chromium logged."""
    png = tmp / f"{page.stem}.png"
    proc = chromium(page, tmp, "--window-size=1200,1600", f"--screenshot={png}")
    assert png.exists(), proc.stderr[-2000:]
    return png, console_messages(proc.stderr)


def console_messages(stderr: str) -> list[str]:
    """Lines Chromium logs for the page's console (messages, uncaught errors, CSP refusals)."""
    return [ln for ln in stderr.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]


def ink(png: Path) -> tuple[float, float]:
    """(grey-level standard deviation, fraction of pixels that are not near-white)."""
    img = Image.open(png).convert("L")
    stddev = ImageStat.Stat(img).stddev[0]
    hist = img.histogram()
    dark = sum(hist[:235]) / max(1, sum(hist))
    return stddev, dark


@needs_chromium
def test_browser_shows_the_report_without_console_errors(tmp_path):
    page = render_report(sample_model(), "html", tmp_path / "report.html")
    png, messages = screenshot(page, tmp_path)
    assert messages == []
    stddev, dark = ink(png)
    assert stddev > 20 and dark > 0.03, (stddev, dark)
    with Image.open(png) as img:
        assert img.size == (1200, 1600)
        # Colour-coded verdict badges are on screen: some clearly blue pixels (the memory badge colour).
        rgb = np.asarray(img.convert("RGB").resize((300, 400))).astype(int)
        blue = int(((rgb[..., 2] > 180) & (rgb[..., 0] < 80) & (rgb[..., 1] < 130)).sum())
    assert blue > 20


@needs_chromium
def test_the_checks_catch_a_broken_page(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>console.error('broken page');"
                    "undefinedFunction();</script></body></html>", encoding="utf-8")
    png, messages = screenshot(page, tmp_path)
    assert any("broken page" in m for m in messages)
    assert any("undefinedFunction" in m for m in messages)
    stddev, dark = ink(png)
    assert stddev < 1 and dark < 0.001


@needs_chromium
def test_browser_dom_of_a_hostile_report_has_no_script(tmp_path):
    page = render_report(hostile_model(), "html", tmp_path / "hostile.html")
    proc = chromium(page, tmp_path, "--dump-dom")
    dom = proc.stdout
    assert "</html>" in dom, proc.stderr[-2000:]
    tags = tags_of(dom)
    assert not [t for t, _ in tags if t in ("script", "img", "iframe")]
    assert not [(t, k) for t, a in tags for k in a if k.startswith("on")]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom and KERNEL not in dom
    assert console_messages(proc.stderr) == []


@needs_poppler
def test_pdf_pages_and_text_hold_the_checklist(tmp_path):
    model = sample_model()
    pdf = render_report(model, "pdf", tmp_path / "report.pdf")
    subprocess.run(["pdftoppm", "-r", "40", "-png", str(pdf), str(tmp_path / "page")],
                   check=True, timeout=120)
    pages = sorted(tmp_path.glob("page-*.png"))
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    assert len(pages) == int(re.search(r"Pages:\s+(\d+)", info).group(1)) >= 3
    for p in pages:
        stddev, dark = ink(p)
        assert stddev > 5 and dark > 0.005, (p.name, stddev, dark)
    text = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    flat = re.sub(r"-\s+", "-", " ".join(text.split()))
    items = model.kernels[0].checklist
    assert len(items) >= 2
    for item in items:
        assert item.title in flat and item.rule_id in flat
        for citation in item.citations:
            assert " ".join(citation.split()) in flat, citation
    for part in ("Summary", "Checklist", "Across targets", "Methods and assumptions"):
        assert part in flat
