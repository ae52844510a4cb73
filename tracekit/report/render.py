"""Render a report model to one self-contained HTML or PDF file.

HTML comes from the Jinja2 templates in ``report_templates`` with autoescaping
on for every template (kernel names, file names and source text come from
untrusted traces).  The stylesheets are inlined and charts are inline SVG, so
the file has no scripts and no external references.  The PDF is the same HTML
laid out by WeasyPrint with the print stylesheet and a URL fetcher that refuses
everything, so nothing in a trace can make the renderer read a file or the
network.  Files are written under a temporary name and renamed into place.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from report_templates import TEMPLATE_DIR
from tracekit.errors import TracekitError, printable
from tracekit.files import write_atomic
from tracekit.report import svg
from tracekit.report.fmt import FILTERS, fmt_time

FORMATS = ("html", "pdf")


def environment() -> Environment:
    """The Jinja environment: autoescape everywhere, undefined names are errors."""
    env = Environment(loader=FileSystemLoader(str(TEMPLATE_DIR)), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters.update(FILTERS)
    env.globals.update(svg=svg, fmt_time=fmt_time, verdict_colors=svg.VERDICT_COLORS, palette=svg.PALETTE,
                       styles=_styles())
    return env


def _styles() -> dict[str, Markup]:
    """Our own stylesheets, inlined into <style> blocks (trusted package data)."""
    out = {}
    for name in ("report.css", "print.css"):
        text = (Path(TEMPLATE_DIR) / name).read_text(encoding="utf-8")
        if "</" in text:
            raise ValueError(f"{name} must not contain '</'")
        out[name.split(".")[0]] = Markup(text)
    return out


def render_html(model: Any, template: str | None = None) -> str:
    """The report as one HTML string (no scripts, no external URLs)."""
    return printable_html(environment().get_template(template or template_for(model)).render(report=model))


def printable_html(html: str) -> str:
    """``html`` with every control character a document may not hold shown as a visible escape.

    Autoescaping takes care of markup, not of NUL, ESC, C1 controls or bidirectional
    overrides in a kernel or file name: HTML and XML forbid most of them (a PDF renderer or
    an XML tool rejects the file) and the others make text read differently from what it
    is.  Our templates use none of them, so every one in the output came from the input and
    is written the way the terminal output writes it (``\\x00``, ``\\u202e``); the escape
    is plain text, safe inside elements and attribute values alike.
    """
    return printable(html, limit=None, newlines=True)


class RefusingFetcher:
    """A WeasyPrint URL fetcher that fetches nothing and remembers what was asked.

    WeasyPrint calls it for every stylesheet, image or font URL in the document;
    a report needs none, so each call raises and the resource is left out.
    """

    def __init__(self) -> None:
        self.attempts: list[str] = []
        self._fail_on_errors = False   # read by weasyprint.urls.fetch

    def fetch(self, url: str, headers: Any = None):
        self.attempts.append(url)
        raise PermissionError(f"report renderer refuses to fetch {url!r}")

    def __call__(self, url: str):
        return self.fetch(url)


def render_pdf_bytes(html: str, fetcher: RefusingFetcher | None = None) -> bytes:
    """PDF bytes of an HTML report, laid out with the print stylesheet."""
    import weasyprint

    fetcher = fetcher if fetcher is not None else RefusingFetcher()
    document = weasyprint.HTML(string=html, base_url=None, url_fetcher=fetcher, media_type="print")
    return document.write_pdf()


def template_for(model: Any) -> str:
    """The template of a model: the comparison has its own, everything else is a report."""
    from tracekit.report.compare import Comparison
    return "compare.html.j2" if isinstance(model, Comparison) else "report.html.j2"


def render_report(report_model: Any, fmt: str, out_path: str | os.PathLike, *,
                  template: str | None = None, fetcher: RefusingFetcher | None = None) -> Path:
    """Write ``report_model`` (a ReportModel or a Comparison) as ``fmt`` ("html" or "pdf")
    to ``out_path``, atomically (temporary name, then rename)."""
    if fmt not in FORMATS:
        raise TracekitError(f"unknown report format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    html = render_html(report_model, template or template_for(report_model))
    data = html.encode("utf-8") if fmt == "html" else render_pdf_bytes(html, fetcher)
    return write_atomic(out_path, data)
