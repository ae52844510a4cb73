"""Jinja2 templates and the print stylesheet of tracekit reports (package data)."""

from pathlib import Path

TEMPLATE_DIR = Path(__file__).parent
