"""Derived views for charts and the hot-lines table, computed from per-site rows.

The analyzers give numbers per site; a reader wants the few sites that matter,
labelled by source line (and told apart when one line holds several accesses),
and the code around the hottest lines.  These helpers choose and label them; they
never compute a model quantity of their own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from tracekit.report.model import HotSite, RooflineView, SourceLine

MAX_SITES = 8
CONTEXT_LINES = 2
#: Per-site cost columns a hot-line ranking may use, with the words the report shows.
COST_LABELS = {"alu_cycles": "ALU cycles", "bytes_moved": "bytes moved", "transactions": "transactions",
               "local_cycles": "local-memory cycles", "lane_executions": "lane executions",
               "issues": "wave issues", "requests": "requests", "accesses": "accesses"}
#: Which cost ranks the lines, by verdict: the resource that limits the launch.
COST_ORDER = {
    "alu": ("alu_cycles", "lane_executions", "issues"),
    "memory": ("bytes_moved", "transactions", "local_cycles", "requests"),
    "latency": ("transactions", "requests", "alu_cycles"),
}
DEFAULT_ORDER = ("transactions", "alu_cycles", "lane_executions", "issues", "requests", "accesses")


def _num(v) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def site_labels(rows: list[dict]) -> dict[int, str]:
    """``file:line`` per site; where one line holds several sites, the column (or an ordinal) tells
    them apart, so a chart never shows the same label twice."""
    base = {}
    for r in rows:
        name = str(r.get("file") or "?").rsplit("/", 1)[-1]
        line = r.get("line")
        base[int(r["site"])] = f"{name}:{int(line)}" if line else f"site {int(r['site'])}"
    by_label: dict[str, list[dict]] = {}
    for r in rows:
        by_label.setdefault(base[int(r["site"])], []).append(r)
    out = dict(base)
    for label, group in by_label.items():
        if len(group) < 2:
            continue
        cols = [int(r.get("column") or 0) for r in group]
        distinct_cols = len(set(cols)) == len(cols) and all(cols)
        for k, r in enumerate(sorted(group, key=lambda x: (int(x.get("column") or 0), int(x["site"])))):
            tag = f"col {int(r['column'])}" if distinct_cols else f"#{k + 1}"
            op = r.get("op")
            out[int(r["site"])] = f"{label} ({tag}{', ' + str(op) if isinstance(op, str) else ''})"
    return out


def coalescing_rows(rows: list[dict]) -> list[tuple[str, float]]:
    """Sites with global requests, busiest first, as (label, transactions per request)."""
    labels = site_labels(rows)
    useful = [r for r in rows if _num(r.get("transactions_per_request")) is not None
              and (_num(r.get("requests")) or 0) > 0 and r.get("space") in ("global", "constant", "image")]
    useful.sort(key=lambda r: (-(_num(r.get("requests")) or 0), int(r["site"])))
    return [(labels[int(r["site"])], _num(r["transactions_per_request"])) for r in useful[:MAX_SITES]]


def conflict_rows(rows: list[dict]) -> list[tuple[str, float]]:
    """Local-memory sites as (label, mean bank-conflict degree), busiest first."""
    labels = site_labels(rows)
    useful = [r for r in rows
              if r.get("space") == "local" and _num(r.get("conflict_degree_mean")) is not None]
    useful.sort(key=lambda r: (-(_num(r.get("requests")) or 0), int(r["site"])))
    return [(labels[int(r["site"])], _num(r["conflict_degree_mean"])) for r in useful[:MAX_SITES]]


def histogram_rows(value: Mapping) -> list[tuple[str, float]]:
    """A conflict-degree distribution ({degree: requests}) as sorted chart rows."""
    return [(f"{int(k)}-way", float(v)) for k, v in sorted(value.items(), key=lambda kv: int(kv[0]))]


def _code(source: str | None, line: int) -> list[SourceLine]:
    if not source or line <= 0:
        return []
    lines = source.splitlines()
    if line > len(lines):
        return []
    lo, hi = max(1, line - CONTEXT_LINES), min(len(lines), line + CONTEXT_LINES)
    return [SourceLine(number=n, text=lines[n - 1], hot=(n == line)) for n in range(lo, hi + 1)]


def _detail(acc: dict) -> str:
    """What a line's accesses cost, global and local memory apart (their requests are not alike)."""
    parts = []
    if acc["global_requests"]:
        parts.append(f"{acc['global_requests']:,.0f} global requests, "
                     f"{acc['tx'] / acc['global_requests']:.2f} transactions each")
    if acc["local_requests"]:
        degree = acc["degree"] / acc["local_requests"]
        parts.append(f"{acc['local_requests']:,.0f} local requests, bank-conflict degree {degree:.2f}")
    return "; ".join(parts)


def hot_sites(rows: list[dict], source: str | None, verdict: str = "", limit: int = 5) -> list[HotSite]:
    """The source lines carrying most of the limiting resource's cost, with the code around each."""
    if not rows:
        return []
    order = COST_ORDER.get(verdict, ()) + DEFAULT_ORDER
    column = next((c for c in order if any(_num(r.get(c)) for r in rows)), None)
    if column is None:
        return []
    per_line: dict[tuple[str, int], dict] = {}
    for r in rows:
        line = r.get("line")
        if not line:
            continue
        acc = per_line.setdefault((str(r.get("file") or "?"), int(line)), {
            "cost": 0.0, "global_requests": 0.0, "tx": 0.0, "local_requests": 0.0, "degree": 0.0})
        acc["cost"] += _num(r.get(column)) or 0.0
        req = _num(r.get("requests")) or 0.0
        if r.get("space") == "local":
            acc["local_requests"] += req
            acc["degree"] += req * (_num(r.get("conflict_degree_mean")) or 1.0)
        elif r.get("space") in ("global", "constant", "image"):
            acc["global_requests"] += req
            acc["tx"] += _num(r.get("transactions")) or 0.0
    total = sum(a["cost"] for a in per_line.values()) or 1.0
    ranked = sorted(per_line.items(), key=lambda kv: (-kv[1]["cost"], kv[0]))[:limit]
    return [HotSite(file=file, line=line, share=acc["cost"] / total, cost_label=COST_LABELS[column],
                    detail=_detail(acc), code=_code(source, line))
            for (file, line), acc in ranked if acc["cost"] > 0]


def level_roofs(target) -> list[tuple[str, float]]:
    """(level, bytes/s) for every cache level with a bandwidth, then DRAM."""
    roofs = []
    clock_hz = float(target.clock_mhz) * 1e6
    for c in target.caches:
        if c.bandwidth_bytes_per_cycle and clock_hz:
            copies = target.compute_units if c.scope == "compute_unit" else 1
            roofs.append((c.name, c.bandwidth_bytes_per_cycle * clock_hz * copies))
    if target.dram.bandwidth_gb_per_s:
        roofs.append(("DRAM", target.dram.bandwidth_gb_per_s * 1e9))
    return roofs


def roofline_view(ops: float | None, alu_s: float | None, total_s: float | None, dram_bytes: int | None,
                  target) -> RooflineView | None:
    """Roofline inputs: the ALU roof is the rate the model gives this kernel's mix (ops / ALU time)."""
    if not ops or not (alu_s or total_s):
        return None
    return RooflineView(peak_ops_per_s=ops / alu_s if alu_s else None, roofs=level_roofs(target),
                        intensity=(ops / dram_bytes) if dram_bytes else None,
                        achieved_ops_per_s=(ops / total_s) if total_s else None, ops=ops)
