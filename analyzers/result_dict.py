"""Analysis results as plain data: JSON-ready dicts, DataFrames and notebook HTML.

Deterministic on purpose: the same trace and target give byte-identical JSON.  Keys
are sorted, floats are rounded to 6 significant digits (model numbers are not more
precise than that), NaN and infinities become ``null``, and NumPy scalars become
plain Python numbers.  docs/json-schema.md documents every key.
"""

from __future__ import annotations

import html
import json
import math
import re

import numpy as np
import pandas as pd

#: Instruction classes that are not arithmetic (excluded from ``alu.lane_ops``).
NON_ARITHMETIC = frozenset({"load", "store", "atomic", "barrier", "branch", "other"})
FORMAT = "tracekit-analysis"
VERSION = 1


def clean(value):
    """JSON-safe, rounded, deterministic copy of ``value``."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if not math.isfinite(x):
            return None
        return float(f"{x:.6g}")
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, pd.DataFrame):
        return clean(value.to_dict(orient="records"))
    if value is pd.NA or value is pd.NaT:
        return None
    return str(value)


#: Characters JSON may hold raw but a terminal or a reader acts on: DEL, C1 controls, line and
#: paragraph separators and the bidirectional controls (json.dumps escapes only C0 controls).
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def dumps(doc: dict) -> str:
    """The document as JSON, UTF-8 text kept as is, every control character as a ``\\u`` escape.

    The escapes only occur inside strings, so a parser reads back exactly the same names;
    the JSON printed to a terminal cannot recolour it or reorder its lines."""
    text = json.dumps(clean(doc), sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _geometry(g) -> dict:
    return {"global_size": list(g.global_size), "local_size": list(g.local_size),
            "work_group_size": g.work_group_size, "work_groups": g.total_groups or g.num_groups,
            "items": g.items, "local_mem_bytes": g.local_mem_bytes, "build_options": g.build_options,
            "fast_math": g.fast_math, "has_barrier": g.has_barrier,
            "compile_time_work_group_size": g.compile_time_work_group_size, "inferred": g.inferred,
            "sampling": {"total_groups": g.total_groups, "groups_recorded": g.groups_recorded,
                         "scale": g.sample_scale}}


def lane_ops(res) -> float:
    """Arithmetic instructions executed by lanes (whole launch), the roofline's work count."""
    if res.simd is None or res.simd.per_site.empty:
        return 0.0
    ps = res.simd.per_site
    keep = ~ps["opclass"].isin(NON_ARITHMETIC)
    return float(ps.loc[keep, "lane_executions"].sum()) * res.geometry.sample_scale


def launch_dict(res) -> dict:
    d = {"kernel": res.kernel, "launch": res.launch, "error": res.error,
         "geometry": _geometry(res.geometry), "bound": res.verdict,
         "time_estimates": res.time_estimates,
         "evidence": res.bound.evidence.to_dict() if res.bound else {},
         "simd": res.simd.to_dict() if res.simd else {},
         "occupancy": res.occupancy.to_dict() if res.occupancy else {},
         "alu": dict(res.alu.to_dict(), lane_ops=lane_ops(res)) if res.alu else {},
         "memory": res.memory.memory.to_dict() if res.memory else {},
         "local_memory": res.memory.local_memory.to_dict() if res.memory else {},
         "sites": clean(res.per_site) if not res.per_site.empty else []}
    if getattr(res, "machine", None) is not None:
        d["machine_code"] = res.machine.to_dict()
    if getattr(res, "compiled", None) is not None:
        d["compiled_view"] = res.compiled.to_dict()
    return d


def result_dict(result) -> dict:
    t = result.target
    return {"format": FORMAT, "version": VERSION, "trace": result.trace,
            "target": getattr(t, "name", str(t)),
            "launches": [r.to_dict() for r in sorted(result.launches, key=lambda r: r.launch)],
            "warnings": list(result.warnings), "errors": result.errors}


def summary_frame(result) -> pd.DataFrame:
    rows = []
    for r in result.launches:
        te = r.time_estimates
        rows.append({"launch": r.launch, "kernel": r.kernel, "bound": r.verdict,
                     "time_s": te.get("total_s"), "alu_s": te.get("alu_s"), "memory_s": te.get("memory_s"),
                     "latency_s": te.get("latency_s"),
                     "simd_utilization": r.simd.utilization if r.simd else None,
                     "occupancy": r.occupancy.occupancy if r.occupancy else None,
                     "limiting_factor": r.occupancy.limiting_factor if r.occupancy else None,
                     "error": r.error})
    return pd.DataFrame(rows)


def site_frame(res, sites: pd.DataFrame | None) -> pd.DataFrame:
    """Per-site table of one launch: memory columns from the replay, ALU and SIMD columns added."""
    scale = res.geometry.sample_scale
    width = res.simd.layout.width
    frames = []
    ps = res.simd.per_site
    if not ps.empty:
        top = ps.sort_values(["site", "issues", "opclass"], ascending=[True, False, True])
        simd = ps.groupby("site").agg(issues=("issues", "sum"), lane_executions=("lane_executions", "sum"))
        simd["utilization"] = simd["lane_executions"] / (simd["issues"] * width)
        simd[["issues", "lane_executions"]] = simd[["issues", "lane_executions"]] * scale
        simd["opclass"] = top.groupby("site")["opclass"].first()
        alu = res.alu.per_site.groupby("site")["alu_cycles"].sum()
        simd["alu_cycles"] = alu
        frames.append(simd)
    mem = res.memory.per_site if res.memory is not None else None
    if mem is not None and not mem.empty:
        frames.append(mem.set_index("site"))
    if not frames:
        return pd.DataFrame()
    out = frames[0]
    for f in frames[1:]:
        out = out.join(f, how="outer")
    out = out.reset_index().rename(columns={"index": "site"})
    counts = ["requests", "accesses", "transactions", "bytes_requested", "bytes_moved", "waves_issued"]
    for col in counts:
        if col in out.columns:
            out[col] = out[col].round().astype("Int64")
    if sites is not None and not sites.empty:
        keep = ["site", "file", "line", "column", "opcode"] + [
            c for c in ("role", "compiled") if c in sites and bool(sites[c].notna().any())]
        s = sites[sites["kernel"] == res.kernel][keep]
        out = out.merge(s, on="site", how="left")
    return out.sort_values("site", kind="stable").reset_index(drop=True)


def _fmt(x, unit="") -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    if isinstance(x, float):
        return f"{x:.3g}{unit}"
    return f"{x}{unit}"


def result_html(result) -> str:
    """Compact notebook view: one row per launch, then the hottest sites of each."""
    e = html.escape
    head = ("<tr><th>launch</th><th>kernel</th><th>bound</th><th>time</th><th>ALU</th><th>memory</th>"
            "<th>latency</th><th>SIMD util.</th><th>occupancy</th><th>limit</th></tr>")
    rows = []
    for r in result.summary.itertuples():
        if r.error:
            rows.append(f"<tr><td>{r.launch}</td><td>{e(str(r.kernel))}</td>"
                        f"<td colspan='8'>error: {e(str(r.error))}</td></tr>")
            continue
        rows.append(
            f"<tr><td>{r.launch}</td><td>{e(str(r.kernel))}</td><td><b>{e(str(r.bound))}</b></td>"
            f"<td>{_fmt(r.time_s, ' s')}</td><td>{_fmt(r.alu_s, ' s')}</td><td>{_fmt(r.memory_s, ' s')}</td>"
            f"<td>{_fmt(r.latency_s, ' s')}</td><td>{_fmt(r.simd_utilization)}</td>"
            f"<td>{_fmt(r.occupancy)}</td><td>{e(str(r.limiting_factor))}</td></tr>")
    warn = "".join(f"<li>{e(w)}</li>" for w in result.warnings)
    name = e(getattr(result.target, "name", str(result.target)))
    return (f"<div><b>tracekit analysis</b> of <code>{e(result.trace)}</code> on <b>{name}</b>"
            f"<table>{head}{''.join(rows)}</table>" + (f"<ul>{warn}</ul>" if warn else "") + "</div>")
