"""Big traces: ``tracekit partition`` (one Parquet part per launch, for Dask workers).

The scale options of ``tracekit analyze`` (``--workers``, ``--scheduler``,
``--sample-groups``) are arguments of :func:`tracekit.pipeline.analyze` and
:func:`tracekit.pipeline.sampled_document`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

SrcArg = Annotated[str, typer.Argument(help="The trace to copy (.tkt directory or .parquet file).")]
DstArg = Annotated[str, typer.Argument(help="The partitioned trace to write (a .tkt directory).")]
ByOpt = Annotated[str, typer.Option("--by", help="Partition key (launch).")]


def register(app: typer.Typer) -> None:
    @app.command()
    def partition(src: SrcArg, dst: DstArg, by: ByOpt = "launch") -> None:
        """Copy a trace as a Parquet dataset partitioned by launch, so Dask workers read only their part."""
        from tracekit.files import refuse_overwriting_inputs
        from tracekit.formats import input_files, open_trace
        from tracekit.trace.partition import check_partition_by
        from tracekit.trace.repartition import write_partitioned

        check_partition_by(by)
        refuse_overwriting_inputs(dst, input_files(src))
        out = write_partitioned(open_trace(src), Path(dst))
        typer.echo(f"wrote {out} (one part per launch)", err=True)
