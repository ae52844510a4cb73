"""trace -> analysis -> findings -> report: the one sequence every entry point runs.

``tracekit analyze``, ``tracekit compare``, scheduled jobs and notebooks all call
:func:`analyze` and then ask the returned :class:`Analysis` for what they need:
the JSON document (:meth:`Analysis.document`), the checklist
(:attr:`Analysis.findings`), the report model (:meth:`Analysis.report_model`) or
a written report (:func:`write`).  Results are typed objects up to this point;
JSON exists only where a document is rendered.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tracekit.arguments import (
    WORKERS_MAX,
    ArgumentTypeError,
    check_choice,
    check_fraction,
    check_int,
    check_optional_str,
    check_path,
    check_seed,
    check_target,
    check_targets,
    check_trace,
)
from tracekit.errors import TracekitError
from tracekit.files import refuse_overwriting_inputs, write_atomic

#: ``format`` of the analysis document (docs/json-schema.md) and of a sampled estimate.
DOCUMENT_FORMAT = "tracekit-analysis"
DOCUMENT_VERSION = 1
SAMPLED_FORMAT = "tracekit-sampled-analysis"
WHAT_IF_FORMAT = "tracekit-what-if"
#: Output formats :func:`write` renders.
FORMATS = ("json", "html", "pdf")
#: Largest trace whose report tries cache sizes in the sensitivity check (each try is a replay).
SENSITIVITY_REPLAY_ACCESSES = 1 << 20


def load_targets(targets: Sequence) -> list:
    """Targets from shipped names, ``.toml`` paths or :class:`Target` objects; at least one, no repeats."""
    from tracekit.targets import list_targets, load_target

    targets = check_targets("targets", targets)
    if not targets:
        raise TracekitError("give at least one --target (a shipped name or a .toml path); shipped: "
                            + ", ".join(list_targets()))
    loaded = [load_target(t) if isinstance(t, (str, os.PathLike)) else t for t in targets]
    names = [t.name for t in loaded]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise TracekitError(f"target {', '.join(dup)} given more than once")
    return loaded


def load_trace(trace):
    """A :class:`~tracekit.trace.Trace` from a path (any input :func:`tracekit.open_trace` reads) or as is,
    refused (exit 2) when its counts contradict each other, as ``tracekit validate`` refuses it."""
    from tracekit.trace.counts import check_counts

    if isinstance(check_trace("trace", trace), (str, os.PathLike)):
        from tracekit.formats import open_trace
        trace = open_trace(trace)
    check_counts(trace)
    return trace


@dataclass
class Analysis:
    """One trace analysed on several targets, and its checklist.

    The checklist is a step of the pipeline (:func:`analyze` runs the rules and prices their
    fixes by replay before it returns), never a side effect of rendering: every document
    made from one analysis shows the same findings, and writing one runs no rule.
    """

    trace: object
    #: One :class:`analyzers.AnalysisResult` per target, in the order the targets were given.
    results: list
    #: The checklist on every (launch, target), in checklist order (:func:`run_checklist`); None
    #: when :func:`analyze` was asked for the analysis alone (``checklist=False``).
    checklist: list | None = None

    @property
    def targets(self) -> list:
        return [r.target for r in self.results]

    @property
    def warnings(self) -> list[str]:
        return sorted({w for r in self.results for w in r.warnings})

    @property
    def findings(self) -> list:
        """The checklist; refused (exit 2) for an analysis made without it."""
        if self.checklist is None:
            raise TracekitError("this analysis was made without its checklist (analyze(..., "
                                "checklist=False)); analyze again with checklist=True to report it")
        return self.checklist

    def document(self) -> dict:
        """The JSON document of ``tracekit analyze --format json`` (docs/json-schema.md)."""
        targets = {}
        for r in self.results:
            doc = r.to_dict()
            doc["findings"] = [f.to_dict() for f in self.findings if f.target == r.target.name]
            targets[r.target.name] = doc
        return {"format": DOCUMENT_FORMAT, "version": DOCUMENT_VERSION, "trace": str(self.trace.path),
                "targets": targets, "warnings": self.warnings}

    def to_json(self) -> str:
        from analyzers.result_dict import dumps
        return dumps(self.document())

    def sensitivity(self) -> list:
        """Per target, how the verdict and time move when each assumed number it reads is halved
        or doubled (:func:`analyzers.sensitivity.sensitivity`, on the analysis already made).
        Cache sizes, which need the replay run again, are tried only on traces of at most
        :data:`SENSITIVITY_REPLAY_ACCESSES` accesses."""
        from analyzers.parallel import ANALYSIS_PEAK_BYTES, map_cores
        from analyzers.sensitivity import sensitivity

        replay = self.trace.num_accesses <= SENSITIVITY_REPLAY_ACCESSES
        return map_cores(lambda r: sensitivity(self.trace, r.target, result=r, replay_caches=replay)
                         .assign(target=r.target.name), self.results, memory_each=ANALYSIS_PEAK_BYTES)

    def report_model(self, title: str | None = None):
        """The HTML/PDF report model: every target's analysis, the checklist and the sensitivity."""
        from tracekit.report import build_report_model, summarize_trace

        return build_report_model(summarize_trace(self.trace), self.results, self.findings, title=title,
                                  sensitivity=self.sensitivity())


def run_checklist(trace, results: Sequence) -> list:
    """The rules on every (launch, target) of ``results``, those whose fix a replay can apply
    priced by that replay (docs/rules.md), in checklist order."""
    from analyzers.rules import run_rules
    from analyzers.rules.gains import price_by_replay

    return price_by_replay(run_rules(list(results)), list(results), trace)


def analysis_with_checklist(trace, analyze_target):
    """``work(view, target)`` for :func:`per_target`: the target's analysis, then its checklist.

    The rules and the what-if replays of one target read only that target's results, so
    each target's whole pipeline runs as one task: the process that analysed a target prices
    its fixes with the target's compiled kernels already loaded, and no step waits for the
    other targets (run stage by stage, the rules and the kernels' warm-up would run in turn
    between the analyses and the replays).  ``view`` may be a counting view of ``trace``
    (the progress line); the replays read ``trace`` itself."""
    def work(view, target):
        result = analyze_target(view, target)
        return result, run_checklist(trace, [result])
    return work


def analyze(trace, targets: Sequence, *, workers: int | None = None, scheduler: str | None = None,
            shard: str = "launch", progress: bool = False, checklist: bool = True) -> Analysis:
    """Analyse every launch of ``trace`` on every target: here, or on Dask workers when
    ``workers`` (a local cluster of that many) or ``scheduler`` (an address) is given; then,
    unless ``checklist`` is False, run the rules and price their fixes (:func:`run_checklist`; here,
    in the same task as each target's analysis: :func:`analysis_with_checklist`)."""
    from tracekit.progress import progress as progress_bar

    if not isinstance(checklist, bool):
        raise ArgumentTypeError(f"checklist must be True or False, got {type(checklist).__name__} "
                                f"{checklist!r}")
    check_options(workers=workers, scheduler=scheduler, progress=progress)
    check_targets("targets", targets)
    trace = load_trace(trace)
    loaded = load_targets(targets)
    if workers is not None or scheduler:
        from tracekit.distributed import analyze_distributed
        with progress_bar(trace.num_accesses * len(loaded), "analyze", enabled=progress) as bar:
            results = analyze_distributed(trace.path, loaded, workers=workers, scheduler=scheduler,
                                          shard=shard, progress=bar)
    else:
        from analyzers import analyze as analyze_target
        if checklist and len(loaded) > 1:
            from analyzers.rules.runner import checklist_order
            done = per_target(trace, loaded, analysis_with_checklist(trace, analyze_target), "analyze",
                              progress)
            return Analysis(trace, [r for r, _ in done], checklist_order([f for _, fs in done for f in fs]))
        results = per_target(trace, loaded, analyze_target, "analyze", progress)
    return Analysis(trace, results, run_checklist(trace, results) if checklist else None)


def check_options(*, workers=None, scheduler=None, progress=False) -> None:
    """The scale options of :func:`analyze`, refused beyond their documented limits
    (``workers``: 1 to :data:`~tracekit.arguments.WORKERS_MAX`; the shard is checked where the
    shards are cut, :mod:`tracekit.distributed`)."""
    if workers is not None:
        check_int("workers", workers, 1, WORKERS_MAX)
    check_optional_str("scheduler", scheduler)
    if not isinstance(progress, bool):
        raise ArgumentTypeError(f"progress must be True or False, got {type(progress).__name__} {progress!r}")


def per_target(trace, loaded: Sequence, work, description: str, progress: bool) -> list:
    """``work(trace, target)`` for each target, on every core (:func:`analyzers.parallel.map_cores`),
    results in the order of ``loaded``, with a progress line over all of them.

    The unit is one access analysed on one target: with one target the trace is read through
    a counting view (:class:`tracekit.progress.LaunchCredit`) that moves the line launch by
    launch; with several, each target's accesses are counted when its analysis is done.
    """
    from analyzers.parallel import ANALYSIS_PEAK_BYTES, jobs, map_cores
    from tracekit.progress import counting_trace, finish_counting, launch_sizes
    from tracekit.progress import progress as progress_bar

    with progress_bar(trace.num_accesses * len(loaded), description, enabled=progress) as bar:
        if progress and (len(loaded) == 1 or jobs() == 1):
            sizes, out = launch_sizes(trace), []
            for t in loaded:
                view = counting_trace(trace, bar, sizes)
                out.append(work(view, t))
                finish_counting(view)
            return out
        return map_cores(lambda t: work(trace, t), loaded, memory_each=ANALYSIS_PEAK_BYTES,
                         on_done=lambda i, _: bar.advance(trace.num_accesses))


def write(analysis: Analysis, fmt: str, out: str | os.PathLike) -> Path:
    """Write the analysis as ``fmt`` (json, html or pdf) to ``out``, atomically."""
    if not isinstance(analysis, Analysis):
        raise ArgumentTypeError(f"analysis must be the Analysis that tracekit.pipeline.analyze returns, got "
                                f"{type(analysis).__name__}")
    check_choice("fmt", fmt, FORMATS)
    check_path("out", out)
    refuse_overwriting_inputs(out, [getattr(analysis.trace, "path", None)])
    if fmt == "json":
        return write_atomic(out, analysis.to_json())
    from tracekit.report import render_report
    return render_report(analysis.report_model(), fmt, out)


def sampled_document(trace, targets: Sequence, fraction: float, seed: int = 0, *,
                     progress: bool = False) -> dict:
    """Estimates from a seeded sample of work-groups, with 95 % intervals, per launch and target."""
    from analyzers.replay import sample_trace

    fraction = check_fraction("fraction (--sample-groups)", fraction)
    seed = check_seed("seed", seed)
    check_targets("targets", targets)
    trace = load_trace(trace)
    loaded = load_targets(targets)
    empty = empty_launches(trace)
    docs = per_target(trace, loaded, lambda view, t: {"launches": sorted(
        [s.to_dict() for s in sample_trace(view, t, fraction=fraction, seed=seed)] + empty,
        key=lambda d: d["launch"])}, "sample", progress)
    out = {t.name: d for t, d in zip(loaded, docs, strict=True)}
    return {"format": SAMPLED_FORMAT, "version": 1, "trace": str(trace.path),
            "sampling": {"fraction": fraction, "seed": seed, "unit": "blocks of work-groups",
                         "interval": "95% bootstrap percentile"},
            "targets": out}


def what_if_document(trace, targets: Sequence, change, *, progress: bool = False) -> dict:
    """Every launch on every target before and after ``change`` (text form such as
    ``"pad-local=64:4"``), replayed through the same model (:func:`analyzers.what_if`)."""
    from analyzers.analyze import analyze as analyze_one
    from analyzers.rules.gains import whole_launch
    from analyzers.whatif import parse_change, what_if

    change = parse_change(change)
    check_targets("targets", targets)
    trace = load_trace(trace)
    empty = empty_launches(trace)
    loaded = load_targets(targets)

    def one(view, t) -> list[dict]:
        # before and after as `tracekit analyze` sees the launch: its time, less the replayed share
        launches = {lr.launch: lr for lr in analyze_one(view, t).launches}
        rows = []
        for w in what_if(view, t, change):
            d = w.to_dict()
            lr = launches.get(w.launch)
            if lr is not None and not lr.error and not w.after.error:
                d.update(whole_launch(w, float(lr.time_s or 0.0), lr.verdict))
                d["gain_fraction"] = w.gain_fraction
            rows.append(d)
        return sorted(rows + empty, key=lambda d: d["launch"])

    docs = per_target(trace, loaded, one, "what-if", progress)
    out = {t.name: d for t, d in zip(loaded, docs, strict=True)}
    return {"format": WHAT_IF_FORMAT, "version": 1, "trace": str(trace.path), "change": change.spec,
            "description": change.describe(), "targets": out}


def empty_launches(trace) -> list[dict]:
    """Entries of the launches the trace lists but holds no rows of: each says there is nothing
    to analyse, in the place of a result (the other launches keep theirs)."""
    from analyzers.analyze import EMPTY_LAUNCH, recorded_launches

    recorded = recorded_launches(trace)
    return [{"kernel": row["kernel"], "launch": int(row["launch"]), "error": EMPTY_LAUNCH}
            for row in trace.launches.select(["kernel", "launch"]).to_pylist()
            if int(row["launch"]) not in recorded]


def compare(before, after, target):
    """What changed from trace ``before`` to trace ``after`` on ``target`` (name, path or Target):
    a :class:`~tracekit.report.compare.Comparison` of metrics, verdicts and findings."""
    from tracekit.report.compare import compare_models

    check_trace("before", before)
    check_trace("after", after)
    if isinstance(target, (list, tuple)):
        raise ArgumentTypeError(f"target must be one target (a name, a .toml path or a Target), got a "
                                f"{type(target).__name__}: compare runs on one target")
    check_target("target", target)
    models = []
    for trace in (before, after):
        models.append(analyze(trace, [target]).report_model())
    name = models[0].targets[0].name if models[0].targets else str(target)
    return compare_models(models[0], models[1], name)
