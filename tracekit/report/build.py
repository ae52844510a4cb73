"""Build the report model from a trace summary, analysis results and findings.

``build_report_model(trace_summary, results_by_target, findings)`` is the one
door between the analyzers and the templates.  Inputs:

* ``trace_summary``: from :func:`summarize_trace` (path, launches with sizes and
  source text, sites with file and line, arithmetic ops per launch);
* ``results_by_target``: ``{target name: analysis result}`` where a result is an
  object with ``to_dict()`` or the dict of the JSON ``tracekit analyze`` writes
  (``launches[]`` each with ``memory``, ``local_memory``, ``bound``,
  ``time_estimates``, ``simd``, ``occupancy``, ``sites``); a ``Target`` may be
  given in ``targets`` (or as the result's ``target`` attribute) for the roofs;
* ``findings``: rule findings (objects or dicts) across all targets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tracekit import __version__
from tracekit.report.inputs import as_dict, dig, first, integer, launch_results, num, records
from tracekit.report.methods import base_assumptions, calibration_view, target_assumptions
from tracekit.report.model import (
    VERDICTS,
    CacheView,
    FindingView,
    HotSite,
    KernelSection,
    LaunchOnTarget,
    ReportModel,
    RooflineView,
    SourceLine,
    TargetInfo,
    sort_findings,
)
from tracekit.report.views import coalescing_rows, conflict_rows, histogram_rows, hot_sites, roofline_view

#: Instruction classes that are not arithmetic work for the roofline's ops count.
_NON_ALU = frozenset({"load", "store", "atomic", "barrier", "branch", "other"})


def summarize_trace(trace) -> dict:
    """The facts of a trace a report needs, read once (a report never re-reads a trace)."""
    import pyarrow.compute as pc

    launches = trace.launches.to_pylist()
    ops: dict[int, float] = {}
    ins = trace.instructions
    if ins.num_rows:
        opclass = ins["opclass"].cast("string") if hasattr(ins["opclass"].type, "value_type") \
            else ins["opclass"]
        keep = pc.invert(pc.is_in(opclass, value_set=_pa_strings(sorted(_NON_ALU))))
        alu = ins.filter(keep)
        if alu.num_rows:
            grouped = alu.group_by("launch").aggregate([("count", "sum")])
            ops = dict(zip(grouped["launch"].to_pylist(), grouped["count_sum"].to_pylist(), strict=True))
    for row in launches:
        row["ops"] = ops.get(row["launch"])
    return {"path": str(trace.path), "launches": launches, "sites": trace.sites.to_pylist()}


def _pa_strings(values: list[str]):
    import pyarrow as pa
    return pa.array(values, pa.string())


def _dims(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        dims = [int(x) for x in v]
        while len(dims) > 1 and dims[-1] == 1:
            dims.pop()
        return " × ".join(str(x) for x in dims)
    return str(v)


def _target_info(name: str, target: Any) -> TargetInfo:
    if target is None:
        return TargetInfo(name=name)
    t = as_dict(target) if isinstance(target, Mapping) else target
    get = (lambda k, d=None: t.get(k, d)) if isinstance(t, dict) else (lambda k, d=None: getattr(t, k, d))
    simd, dram = get("simd"), get("dram")
    width = (simd.get("width") if isinstance(simd, Mapping) else getattr(simd, "width", None))
    bw = (dram.get("bandwidth_gb_per_s") if isinstance(dram, Mapping)
          else getattr(dram, "bandwidth_gb_per_s", None))
    return TargetInfo(name=name, vendor=str(get("vendor", "") or ""), family=str(get("family", "") or ""),
                      description=str(get("description", "") or ""),
                      compute_units=integer(get("compute_units")), clock_mhz=num(get("clock_mhz")),
                      simd_width=integer(width), dram_gb_per_s=num(bw))


def finding_view(f: Any) -> FindingView:
    d = as_dict(f)
    ev = d.get("evidence")
    if isinstance(ev, Mapping):
        evidence = [(str(k).replace("_", " "), _show(v)) for k, v in ev.items()]
    elif isinstance(ev, (list, tuple)):
        evidence = [(str(e[0]), _show(e[1])) if isinstance(e, (list, tuple)) and len(e) == 2
                    else ("", _show(e)) for e in ev]
    else:
        evidence = [("", str(ev))] if ev else []
    sites = []
    for s in d.get("sites") or []:
        s = (s.get("file"), s.get("line")) if isinstance(s, Mapping) else tuple(s)
        sites.append((str(s[0] or "?"), integer(s[1]) or 0))
    gain = first(d, "estimated_gain_s", "estimated_gain", "gain")
    gain_s = gain_fraction = None
    if isinstance(gain, Mapping):
        gain_s = num(first(gain, "seconds", "time_s", "gain_s"))
        gain_fraction = num(first(gain, "fraction", "speedup_fraction"))
    else:
        gain_s = num(gain)
    if gain_fraction is None:
        gain_fraction = num(first(d, "estimated_gain_fraction", "gain_fraction"))
    return FindingView(rule_id=str(d.get("rule_id", "")), title=str(d.get("title", "")),
                       severity=str(d.get("severity", "info")).lower(), target=str(d.get("target", "")),
                       kernel=str(d.get("kernel", "")), launch=integer(d.get("launch")) or 0,
                       evidence=evidence, sites=sites, fix=str(d.get("fix", "")),
                       citation=str(d.get("citation", "")), gain_s=gain_s, gain_fraction=gain_fraction)


def _show(v: Any) -> str:
    """Evidence values as a reader wants them: numbers rounded, records as ``key value`` lists."""
    if isinstance(v, bool) or v is None:
        return str(v).lower() if v is not None else "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, Mapping):
        return ", ".join(f"{str(k).replace('_', ' ')} {_show(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return "; ".join(_show(x) for x in v)
    return str(v)


def _time_components(te: Mapping) -> tuple[float | None, list[tuple[str, float]]]:
    total = num(first(te, "total_s", "estimated_s", "time_s"))
    parts = []
    for key, value in te.items():
        if key in ("total_s", "estimated_s", "time_s"):
            continue
        if isinstance(value, Mapping):   # e.g. {"memory_levels_s": {"L1": ..}}
            parts += [(f"{key.removesuffix('_s').removesuffix('_levels')} {k}", num(v))
                      for k, v in value.items() if num(v) is not None]
        elif key.endswith("_s") and num(value) is not None:
            parts.append((key.removesuffix("_s").replace("_", " "), num(value)))
    if total is None and parts:
        total = max(v for _, v in parts)
    return total, parts


def launch_view(target: str, r: Mapping, launch_info: Mapping, sites: list[dict], tobj: Any,
                findings: list[FindingView]) -> LaunchOnTarget:
    """One (kernel launch, target) cell of the report from its result dict."""
    mem, lm = r.get("memory") or {}, r.get("local_memory") or {}
    occ = r.get("occupancy") or {}
    occ = occ if isinstance(occ, Mapping) else {"fraction": occ}
    verdict = str(first(r, "bound", "verdict", default="unknown")).lower()
    total, parts = _time_components(r.get("time_estimates") or {})
    resident = num(first(occ, "resident_waves", "waves_per_cu"))
    max_waves = num(first(occ, "max_waves", "max_waves_per_cu"))
    fraction = num(first(occ, "fraction", "occupancy"))
    if fraction is None and resident is not None and max_waves:
        fraction = resident / max_waves
    site_rows = records(first(r, "sites", "per_site"))
    view = LaunchOnTarget(
        target=target, verdict=verdict if verdict in VERDICTS else "unknown",
        error=(str(r["error"]) if r.get("error") else None), time_s=total, times=parts,
        requests=integer(mem.get("requests")), transactions=integer(mem.get("transactions")),
        transactions_per_request=num(mem.get("transactions_per_request")),
        caches=[CacheView(level=str(c.get("level")), hit_rate=num(c.get("hit_rate")),
                          hits=integer(c.get("hits")), misses=integer(c.get("misses")))
                for c in mem.get("caches") or []],
        dram_bytes=integer(first(mem, "dram_bytes")),
        local_requests=integer(lm.get("requests")), local_cycles=num(lm.get("cycles")),
        conflict_degree_mean=num(lm.get("conflict_degree_mean")),
        conflict_histogram=histogram_rows(first(lm, "conflict_degree_histogram", "conflict_degrees")),
        simd_utilization=num(first(dig(r, "simd") or {}, "utilization", "utilisation")),
        occupancy=fraction, resident_waves=resident, max_waves=max_waves,
        occupancy_limiter=str(first(occ, "limiting_factor", "limiter", default="") or "").replace("_", " "),
        coalescing_sites=coalescing_rows(site_rows),
        ideal_transactions_per_request=num(mem.get("ideal_transactions_per_request")),
        bank_sites=conflict_rows(site_rows),
        evidence=[(str(k), _show(v)) for k, v in (r.get("evidence") or {}).items()]
        if isinstance(r.get("evidence"), Mapping) else [],
        findings=sort_findings(findings),
    )
    view.hot_sites = hot_sites(site_rows, sites, launch_info.get("source"), view.verdict)
    ops = (num(first(dig(r, "alu") or {}, "ops", "lane_ops")) or num(r.get("ops"))
           or num(launch_info.get("ops")))
    alu_s = next((v for k, v in parts if k == "alu"), None)
    view.roofline = roofline_view(ops, alu_s, total, view.dram_bytes, tobj, r.get("roofline"))
    return view


def build_report_model(trace_summary: Mapping, results_by_target: Mapping[str, Any],
                       findings: Iterable[Any] = (), *, targets: Mapping[str, Any] | None = None,
                       title: str | None = None) -> ReportModel:
    """The :class:`ReportModel` for one trace analysed on several targets."""
    targets = dict(targets or {})
    launches = {int(row["launch"]): row for row in trace_summary.get("launches", [])}
    all_sites = list(trace_summary.get("sites", []))
    fviews = [finding_view(f) for f in findings]
    by_cell: dict[tuple[int, str], list[FindingView]] = {}
    for f in fviews:
        by_cell.setdefault((f.launch, f.target), []).append(f)

    sections: dict[int, KernelSection] = {}
    for launch, info in sorted(launches.items()):
        sections[launch] = KernelSection(
            kernel=str(info.get("kernel", "")), launch=launch, global_size=_dims(info.get("global_size")),
            local_size=_dims(info.get("local_size")), local_mem_bytes=integer(info.get("local_mem_bytes")),
            build_options=str(info.get("build_options") or ""), device=str(info.get("device") or ""))
    infos, extra_assumptions = [], []
    for name, result in results_by_target.items():
        tobj = targets.get(name) or getattr(result, "target", None)
        rdict = as_dict(result)
        if tobj is None and isinstance(rdict.get("target"), Mapping):
            tobj = rdict["target"]
        infos.append(_target_info(name, tobj))
        extra_assumptions.append((name, target_assumptions(rdict.get("assumptions"), tobj)))
        for r in launch_results(result):
            launch = integer(r.get("launch")) or 0
            if launch not in sections:
                sections[launch] = KernelSection(kernel=str(r.get("kernel", "")), launch=launch)
            sec = sections[launch]
            site_rows = [s for s in all_sites if s.get("kernel") in (None, sec.kernel)]
            sec.results.append(launch_view(name, r, launches.get(launch, {}), site_rows, tobj,
                                           by_cell.get((launch, name), [])))
    kernels = [sections[k] for k in sorted(sections)]
    path = str(trace_summary.get("path", ""))
    return ReportModel(title=title or "tracekit report", trace_path=path, tool_version=__version__,
                       targets=infos, kernels=kernels,
                       assumptions=base_assumptions(),
                       target_assumptions=[(n, items) for n, items in extra_assumptions if items],
                       calibration=calibration_view())


__all__ = ["build_report_model", "summarize_trace", "finding_view", "HotSite", "SourceLine",
           "RooflineView", "CacheView"]
