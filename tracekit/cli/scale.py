"""Big traces: ``tracekit partition``, and the scale options of ``tracekit analyze``.

``tracekit analyze`` calls :func:`analyze_results` (one process with a progress
bar, or Dask workers with ``--workers``/``--scheduler``) and, with
``--sample-groups``, :func:`sampled_document` instead of the full analysis.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tracekit.errors import TracekitError

SAMPLED_FORMAT = "tracekit-sampled-analysis"


def analyze_results(trace, targets, *, workers: int | None = None, scheduler: str | None = None,
                    shard: str = "launch", show_progress: bool = True) -> list:
    """Every target's :class:`analyzers.AnalysisResult`, here or on Dask workers."""
    from tracekit.progress import counting_trace, progress

    total = trace.num_accesses * len(targets)
    with progress(total, "analyze", enabled=show_progress) as bar:
        if workers or scheduler:
            from tracekit.distributed import analyze_distributed
            return analyze_distributed(trace.path, targets, workers=workers, scheduler=scheduler,
                                       shard=shard, progress=bar)
        from analyzers import analyze
        view = counting_trace(trace, bar)
        return [analyze(view, t) for t in targets]


def sampled_document(trace, targets, fraction: float, seed: int) -> dict:
    """The JSON document of a sampled analysis: estimates with 95 % intervals per launch and target."""
    from analyzers.sampling import sample_trace

    if not 0 < fraction <= 1:
        raise TracekitError(f"--sample-groups takes a fraction in (0, 1], got {fraction}")
    out = {}
    for t in targets:
        launches = sample_trace(trace, t, fraction=fraction, seed=seed)
        out[t.name] = {"launches": [s.to_dict() for s in launches]}
    return {"format": SAMPLED_FORMAT, "version": 1, "trace": str(trace.path),
            "sampling": {"fraction": fraction, "seed": seed, "unit": "blocks of work-groups",
                         "interval": "95% bootstrap percentile"},
            "targets": out}


def dumps(doc: dict) -> str:
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


SrcArg = Annotated[str, typer.Argument(help="The trace to copy (.tkt directory or .parquet file).")]
DstArg = Annotated[str, typer.Argument(help="The partitioned trace to write (a .tkt directory).")]
ByOpt = Annotated[str, typer.Option("--by", help="Partition key (launch).")]


def register(app: typer.Typer) -> None:
    @app.command()
    def partition(src: SrcArg, dst: DstArg, by: ByOpt = "launch") -> None:
        """Copy a trace as a Parquet dataset partitioned by launch, so Dask workers read only their part."""
        from tracekit.formats import open_trace
        from tracekit.trace.partition import check_partition_by
        from tracekit.trace.repartition import write_partitioned

        check_partition_by(by)
        out = write_partitioned(open_trace(src), Path(dst))
        typer.echo(f"wrote {out} (one part per launch)", err=True)
