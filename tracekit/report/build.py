"""Build the report model from the analysis results and the checklist.

``build_report_model(facts, results, findings)`` is the one door between the
models and the templates.  Its inputs are typed: the facts of the trace a report
needs (:func:`summarize_trace`: launch sizes and source text, site lines), one
:class:`analyzers.AnalysisResult` per target, and the checklist's
:class:`~analyzers.rules.Finding` records.  It reads their fields directly and
chooses what a reader needs; it never re-reads the trace, so a report costs what
the analysis cost plus a few tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from tracekit import __version__
from tracekit.report.methods import base_assumptions, calibration_views, sensitivity_rows, target_assumptions
from tracekit.report.model import (
    VERDICTS,
    CacheView,
    FindingView,
    KernelSection,
    LaunchOnTarget,
    ReportModel,
    TargetInfo,
    sort_findings,
)
from tracekit.report.sections import alu_priced_by, machine_view, texture_view
from tracekit.report.views import coalescing_rows, conflict_rows, histogram_rows, hot_sites, roofline_view


@dataclass(frozen=True)
class LaunchFacts:
    """One launch as the report names it: sizes, build, where it ran, its source text."""

    kernel: str
    launch: int
    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    local_mem_bytes: int = 0
    build_options: str = ""
    device: str = ""
    source: str | None = None


@dataclass
class TraceFacts:
    """What a report needs of a trace, read once (small tables only)."""

    path: str
    launches: list[LaunchFacts] = field(default_factory=list)
    #: (kernel, site) -> (file, line, column)
    sites: dict[tuple[str, int], tuple[str, int, int]] = field(default_factory=dict)


def summarize_trace(trace) -> TraceFacts:
    """The launches and sites tables of ``trace`` (never the accesses or instructions)."""
    launches = []
    for row in trace.launches.to_pylist():
        launches.append(LaunchFacts(
            kernel=str(row["kernel"]), launch=int(row["launch"]),
            global_size=tuple(int(x) for x in row["global_size"] or ()),
            local_size=tuple(int(x) for x in row["local_size"] or ()),
            local_mem_bytes=int(row.get("local_mem_bytes") or 0),
            build_options=row.get("build_options") or "", device=row.get("device") or "",
            source=row.get("source")))
    sites = {}
    for s in trace.sites.to_pylist():
        line = s.get("line")
        sites[(str(s["kernel"]), int(s["site"]))] = (s.get("file") or "?", int(line) if line else 0,
                                                     int(s.get("column") or 0))
    return TraceFacts(path=str(trace.path), launches=launches, sites=sites)


def _dims(v) -> str:
    dims = [int(x) for x in v or ()]
    while len(dims) > 1 and dims[-1] == 1:
        dims.pop()
    return " × ".join(str(x) for x in dims)


def _target_info(t) -> TargetInfo:
    return TargetInfo(name=t.name, vendor=t.vendor, family=t.family, description=t.description,
                      compute_units=int(t.compute_units), clock_mhz=float(t.clock_mhz),
                      simd_width=int(t.simd.width), dram_gb_per_s=float(t.dram.bandwidth_gb_per_s))


def finding_view(f) -> FindingView:
    """A checklist row from a :class:`~analyzers.rules.Finding`."""
    evidence = [(str(k).replace("_", " "), _show(v)) for k, v in (f.evidence or {}).items()]
    w = f.what_if or {}
    replay = ""
    if w.get("with_the_other_fixes"):
        replay = (f"{w.get('description', '')}: with {w['with_the_other_fixes']} also applied, "
                  f"{_time(w.get('time_without_this_fix_s'))} to {_time(w.get('time_with_all_fixes_s'))} "
                  f"(alone it changes nothing: another bottleneck of the same size remains)"
                  if w.get("time_after_s") == w.get("time_before_s") else
                  f"{w.get('description', '')}: with {w['with_the_other_fixes']} also applied, "
                  f"{_time(w.get('time_without_this_fix_s'))} to {_time(w.get('time_with_all_fixes_s'))}")
    elif w:
        replay = (f"{w.get('description', w.get('change', ''))}: {_time(w.get('time_before_s'))} "
                  f"({w.get('verdict_before')}) to {_time(w.get('time_after_s'))} ({w.get('verdict_after')})")
    return FindingView(rule_id=f.rule_id, title=f.title, severity=f.severity, target=f.target,
                       kernel=f.kernel, launch=int(f.launch), evidence=evidence,
                       sites=[(str(a), int(b)) for a, b in f.sites], fix=f.fix, citation=f.citation,
                       gain_s=f.estimated_gain_s, gain_fraction=f.estimated_gain_fraction,
                       gain_method=f.gain_method or "", replay=replay)


def _time(v) -> str:
    from tracekit.report.fmt import fmt_time
    return fmt_time(v)


def _show(v) -> str:
    """Evidence values as a reader wants them: numbers rounded, records as ``key value`` lists."""
    if isinstance(v, bool) or v is None:
        return str(v).lower() if v is not None else "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{str(k).replace('_', ' ')} {_show(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return "; ".join(_show(x) for x in v)
    return str(v)


def _finite(v) -> float | None:
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def launch_view(r, target, info: LaunchFacts | None, sites: dict,
                findings: list[FindingView]) -> LaunchOnTarget:
    """One (kernel launch, target) cell of the report from its typed result."""
    if r.error:
        return LaunchOnTarget(target=target.name, error=str(r.error), findings=sort_findings(findings))
    te = r.time_estimates or {}
    times = [(k.removesuffix("_s"), float(te[k])) for k in ("alu_s", "memory_s", "latency_s")
             if te.get(k) is not None]
    times += [(f"memory {name}", float(v)) for name, v in (te.get("memory_levels_s") or {}).items()]
    verdict = r.verdict if r.verdict in VERDICTS else "unknown"
    view = LaunchOnTarget(target=target.name, verdict=verdict, time_s=_finite(te.get("total_s")), times=times,
                          findings=sort_findings(findings))
    if r.bound is not None:
        ev = r.bound.evidence
        view.verdict_margin, view.runner_up = _finite(ev.verdict_margin), str(ev.runner_up or "")
    if r.memory is not None:
        m, lm = r.memory.memory, r.memory.local_memory
        view.requests, view.transactions = int(m.requests), int(m.transactions)
        view.transactions_per_request = _finite(m.transactions_per_request) if m.requests else None
        view.caches = [CacheView(level=c.level, hit_rate=_finite(c.hit_rate), hits=int(c.hits),
                                 misses=int(c.misses)) for c in m.caches]
        view.dram_bytes = int(m.dram_bytes)
        view.local_requests, view.local_cycles = int(lm.requests), float(lm.cycles)
        view.conflict_degree_mean = _finite(lm.conflict_degree_mean) if lm.requests else None
        view.conflict_histogram = histogram_rows(lm.conflict_degree_histogram)
        rows = _site_rows(r, sites)
        view.coalescing_sites = coalescing_rows(rows)
        view.bank_sites = conflict_rows(rows)
    else:
        rows = _site_rows(r, sites)
    if r.simd is not None:
        view.simd_utilization = _finite(r.simd.utilization)
    if r.occupancy is not None:
        occ = r.occupancy
        view.occupancy = _finite(occ.occupancy)
        view.resident_waves = float(occ.waves_per_cu)
        view.max_waves = float(target.occupancy.max_waves_per_cu)
        view.occupancy_limiter = str(occ.limiting_factor or "").replace("_", " ")
    view.hot_sites = hot_sites(rows, info.source if info else None, view.verdict)
    ops = r.alu.lane_ops if r.alu is not None and hasattr(r.alu, "lane_ops") else None
    if ops is None:
        from analyzers.result_dict import lane_ops
        ops = lane_ops(r)
    view.roofline = roofline_view(ops, _finite(te.get("alu_s")), view.time_s, view.dram_bytes, target)
    view.texture = texture_view(r, target)
    view.machine_code = machine_view(r, info.source if info else None)
    view.alu_priced_by = alu_priced_by(r)
    return view


def _site_rows(r, sites: dict) -> list[dict]:
    """The launch's per-site table as plain rows, each labelled with its source line."""
    ps = r.per_site
    if ps is None or ps.empty:
        return []
    rows = ps.to_dict(orient="records")
    for row in rows:
        file, line, column = sites.get((r.kernel, int(row["site"])), (None, 0, 0))
        row["file"] = row.get("file") if isinstance(row.get("file"), str) else file
        ln = row.get("line")
        row["line"] = int(ln) if ln is not None and ln == ln else line
        col = row.get("column")
        row["column"] = int(col) if col is not None and col == col else column
    return rows


def build_report_model(facts: TraceFacts, results: Sequence, findings: Sequence = (), *,
                       title: str | None = None, sensitivity: Sequence | None = None) -> ReportModel:
    """The :class:`ReportModel` of one trace analysed on several targets.

    ``results``: one ``AnalysisResult`` per target; ``findings``: the checklist
    (:attr:`tracekit.pipeline.Analysis.findings`); ``sensitivity``: rows of
    :func:`analyzers.sensitivity.sensitivity` for the methods appendix.
    """
    launches = {lf.launch: lf for lf in facts.launches}
    fviews = [finding_view(f) for f in findings]
    by_cell: dict[tuple[int, str], list[FindingView]] = {}
    for f in fviews:
        by_cell.setdefault((f.launch, f.target), []).append(f)
    sections: dict[int, KernelSection] = {}
    for launch, info in sorted(launches.items()):
        sections[launch] = KernelSection(
            kernel=info.kernel, launch=launch, global_size=_dims(info.global_size),
            local_size=_dims(info.local_size), local_mem_bytes=info.local_mem_bytes or None,
            build_options=info.build_options, device=info.device)
    infos, extra = [], []
    for result in results:
        target = result.target
        infos.append(_target_info(target))
        extra.append((target.name, target_assumptions(None, target)))
        for r in sorted(result.launches, key=lambda x: x.launch):
            if r.launch not in sections:
                sections[r.launch] = KernelSection(kernel=r.kernel, launch=r.launch)
            cell = by_cell.get((r.launch, target.name), [])
            view = launch_view(r, target, launches.get(r.launch), facts.sites, cell)
            sections[r.launch].results.append(view)
    return ReportModel(title=title or "tracekit report", trace_path=facts.path, tool_version=__version__,
                       targets=infos, kernels=[sections[k] for k in sorted(sections)],
                       assumptions=base_assumptions(),
                       target_assumptions=[(n, items) for n, items in extra if items],
                       calibration=calibration_views(), sensitivity=sensitivity_rows(sensitivity or ()))


__all__ = ["LaunchFacts", "TraceFacts", "build_report_model", "finding_view", "launch_view",
           "summarize_trace"]
