"""Trace commands: ingest, validate, info (placeholder until filled in)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def info(trace: str) -> None:
        """Summarise a trace."""
        from ..trace import open_trace
        t = open_trace(trace)
        typer.echo(repr(t))
