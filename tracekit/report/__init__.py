"""Reports: a small report model, HTML from Jinja2 templates, PDF through WeasyPrint.

``build_report_model`` turns analysis results into plain dataclasses;
``render_report(model, "html"|"pdf", path)`` writes one self-contained file;
``compare`` reports what changed between two traces of one kernel.
"""

from tracekit.report.build import build_report_model, finding_view, summarize_trace
from tracekit.report.model import ReportModel
from tracekit.report.render import RefusingFetcher, render_html, render_report

__all__ = ["RefusingFetcher", "ReportModel", "build_report_model", "finding_view", "render_html",
           "render_report", "summarize_trace"]
