"""Report sections for the texture path and Intel machine code, through the real pipeline.

The HTML is rendered from ``tracekit.pipeline`` exactly as ``tracekit analyze -f html``
writes it; the PDF through WeasyPrint and read back with pdftotext.  Kernels are the
image sample pair and recordings made with real Oclgrind and ocloc (recorded_kernels).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html import unescape

import pytest
import recorded_kernels as rk

from tracekit import pipeline
from tracekit.report.fmt import fmt_bytes, fmt_num, fmt_pct
from tracekit.report.render import render_html, render_pdf_bytes


def _report(path, target):
    analysis = pipeline.analyze(path, [target])
    model = analysis.report_model()
    return analysis, model, render_html(model)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def test_adreno_report_says_why_the_image_version_is_faster():
    """Adreno guide §6.2 and §7.1.5.3: the report of the image sample shows the texture cache and
    says, in the model's numbers, why its reads are cheap; the report of the buffer sample shows the
    same reads replayed as an image, and its checklist prices the change.  On the Adreno 740, whose
    texture L1 is assumed at 16 KiB (the 640's measured 1 KiB makes the image version the slower one
    there: tests/test_rules_images.py)."""
    buf_an, buf_model, buf_html = _report(rk.SAMPLES / "conv3x3_buffer.tkt", "adreno-740")
    img_an, img_model, img_html = _report(rk.SAMPLES / "conv3x3_image.tkt", "adreno-740")
    img_r = img_an.results[0].launches[0]
    buf_r = buf_an.results[0].launches[0]
    assert img_r.bound.time_s < buf_r.bound.time_s      # the image version is the faster one

    tex = img_model.kernels[0].results[0].texture
    assert [lv.level for lv in tex.levels] == ["TPL1"]
    tpl1 = img_r.memory.memory.texture_caches[0]
    text = _text(img_html)
    assert "Texture caches" in text and "TPL1" in text
    assert "Why the image reads are fast here" in text
    assert f"served {fmt_pct(tpl1.hit_rate)} of the {fmt_num(tpl1.hits + tpl1.misses)} tile lines" in text
    assert f"only {fmt_num(tpl1.misses)} lines went on to the L2" in text
    assert "The sampler (clamp_to_edge) handles reads past the borders" in text

    text = _text(buf_html)
    assert "Buffer 0 (conv2d.cl:17) is read around each work-item (3 × 3 rows by columns)" in text
    loads = buf_r.per_site[buf_r.per_site["op"] == "load"]
    as_buffer, as_image = int(loads["cache_lookups"].sum()), int(loads["whatif_cache_lookups"].sum())
    assert (as_buffer, as_image) == (3420, 484)
    assert "3,420 lines" in text and "484 lines (7.1x fewer)" in text
    item = next(i for i in buf_model.kernels[0].checklist if i.rule_id == "GEN-BUFFER-AS-IMAGE")
    f = item.findings[0]
    assert f.gain_method == "replay" and f.gain_s > 0 and "as a 2-D image" in f.replay
    assert "Read-only buffer read with 2-D locality: make it an image" in text


def test_texture_section_only_where_there_is_a_texture_path_to_show():
    _, model, html = _report(rk.SAMPLES / "vector_add.tkt", "adreno-640")
    assert model.kernels[0].results[0].texture is None and "Texture caches" not in html
    # Intel reads images through its sampler caches: the table is there, the Adreno explanation is not
    _, model, html = _report(rk.SAMPLES / "conv3x3_image.tkt", "intel-hd530")
    tex = model.kernels[0].results[0].texture
    assert [lv.level for lv in tex.levels] == ["SamplerL1", "SamplerL2"] and not tex.why
    assert "Texture caches" in html and "Why the image reads are fast here" not in html


def test_register_pressure_kernel_reported_at_the_simd_width_ocloc_chose():
    rk.needs_isa()
    analysis, model, html = _report(rk.pressure("heavy", 32), "intel-hd530")
    m = analysis.results[0].launches[0].machine
    mc = model.kernels[0].results[0].machine_code
    assert mc.simd_width == m.simd_width == 8 and mc.narrowed and mc.usual_width == 16
    text = _text(html)
    assert "Machine code" in text and "SIMD8 (narrower than the usual SIMD16)" in text
    assert f"{m.grf_used} of {m.grf_count}" in text
    # the hottest line with the instructions it became
    top = m.per_line.iloc[0]
    assert f"pressure.cl:{int(top['line'])}" in text
    first = str(top["listing"]).splitlines()[0]
    assert first in unescape(html)
    assert "Kernel compiled SIMD8 because of register pressure" in text   # the note


def test_spilling_kernel_shows_its_scratch_traffic_in_html_and_pdf():
    rk.needs_isa()
    analysis, model, html = _report(rk.pressure("heavy", 160), "intel-hd530")
    m = analysis.results[0].launches[0].machine
    assert m.spill_fill
    text = _text(html)
    traffic = f"{fmt_bytes(m.scratch_read_bytes)} read, {fmt_bytes(m.scratch_write_bytes)} written"
    assert traffic in text and fmt_bytes(m.scratch_bytes_per_thread) in text
    assert "Registers spilled to scratch memory" in text
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    pdf = render_pdf_bytes(html)
    out = subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    flat = re.sub(r"\s+", " ", out)
    assert "machine code" in flat.lower() and "SIMD8" in flat   # headings are upper case in print
    assert traffic in flat


def test_machine_section_says_why_without_machine_code(tmp_path):
    import shutil
    bare = tmp_path / "vector_add.tkt"       # the sample without the machine code it ships with
    shutil.copytree(rk.SAMPLES / "vector_add.tkt", bare)
    (bare / "machine_code.parquet").unlink()
    _, model, html = _report(bare, "intel-hd530")
    mc = model.kernels[0].results[0].machine_code
    assert mc is not None and mc.priced_by == "ir" and mc.simd_width is None
    assert "no machine code" in _text(html)
    # targets without an offline compiler have no machine-code section
    _, model, _ = _report(rk.SAMPLES / "vector_add.tkt", "adreno-640")
    assert model.kernels[0].results[0].machine_code is None
