"""Derived views for charts and the hot-lines table, computed from per-site rows.

The analyzers give numbers per site; a reader wants the few sites that matter,
labelled ``file:line``, and the code around the hottest lines.  These helpers
choose and label them; they never compute a model quantity of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracekit.report.inputs import first, integer, num
from tracekit.report.model import HotSite, RooflineView, SourceLine

MAX_SITES = 8
CONTEXT_LINES = 2
#: Per-site cost columns a hot-line ranking may use, with the words the report shows.
COST_LABELS = {"time_s": "estimated time", "alu_cycles": "ALU cycles", "bytes_moved": "bytes moved",
               "transactions": "transactions", "local_cycles": "local-memory cycles",
               "lane_executions": "lane executions", "issues": "wave issues", "requests": "requests",
               "accesses": "accesses"}
#: Which cost ranks the lines, by verdict: the resource that limits the launch.
COST_ORDER = {
    "alu": ("time_s", "alu_cycles", "lane_executions", "issues"),
    "memory": ("time_s", "bytes_moved", "transactions", "local_cycles", "requests"),
    "latency": ("time_s", "transactions", "requests", "alu_cycles"),
}
DEFAULT_ORDER = ("time_s", "transactions", "alu_cycles", "lane_executions", "issues", "requests", "accesses")


def site_label(row: Mapping, sites_by_id: Mapping[int, Mapping] | None = None) -> str:
    file, line = row.get("file"), row.get("line")
    if (file is None or line is None) and sites_by_id is not None:
        s = sites_by_id.get(integer(row.get("site")), {})
        file, line = file or s.get("file"), line if line is not None else s.get("line")
    if line is None:
        return f"site {row.get('site', '?')}"
    name = str(file or "?").rsplit("/", 1)[-1]
    return f"{name}:{integer(line)}"


def coalescing_rows(rows: list[dict]) -> list[tuple[str, float]]:
    """Sites with global requests, busiest first, as (file:line, transactions per request)."""
    useful = [r for r in rows if num(r.get("transactions_per_request")) is not None
              and (num(r.get("requests")) or 0) > 0
              and r.get("space", "global") in ("global", "constant", None)]
    useful.sort(key=lambda r: (-(num(r.get("requests")) or 0), integer(r.get("site")) or 0))
    return [(site_label(r), num(r["transactions_per_request"])) for r in useful[:MAX_SITES]]


def conflict_rows(rows: list[dict]) -> list[tuple[str, float]]:
    """Local-memory sites as (file:line, mean bank-conflict degree)."""
    useful = [r for r in rows if num(first(r, "conflict_degree_mean", "bank_conflict_degree")) is not None]
    useful.sort(key=lambda r: (-(num(first(r, "local_requests", "requests")) or 0),
                               integer(r.get("site")) or 0))
    return [(site_label(r), num(first(r, "conflict_degree_mean", "bank_conflict_degree")))
            for r in useful[:MAX_SITES]]


def histogram_rows(value: Any) -> list[tuple[str, float]]:
    """A conflict-degree distribution ({degree: requests}) as sorted chart rows."""
    if not isinstance(value, Mapping):
        return []
    items = [(integer(k), num(v)) for k, v in value.items()]
    return [(f"{k}-way", v) for k, v in sorted(i for i in items if i[0] is not None and i[1] is not None)]


def _code(source: str | None, line: int) -> list[SourceLine]:
    if not source or line <= 0:
        return []
    lines = source.splitlines()
    if line > len(lines):
        return []
    lo, hi = max(1, line - CONTEXT_LINES), min(len(lines), line + CONTEXT_LINES)
    return [SourceLine(number=n, text=lines[n - 1], hot=(n == line)) for n in range(lo, hi + 1)]


def hot_sites(rows: list[dict], sites: list[dict], source: str | None, verdict: str = "",
              limit: int = 5) -> list[HotSite]:
    """The source lines carrying most of the limiting resource's cost, with the code around each."""
    if not rows:
        return []
    order = COST_ORDER.get(verdict, ()) + DEFAULT_ORDER
    column = next((c for c in order if any(num(r.get(c)) for r in rows)), None)
    if column is None:
        return []
    label = COST_LABELS[column]
    by_id = {integer(s.get("site")): s for s in sites}
    per_line: dict[tuple[str, int], dict] = {}
    for r in rows:
        s = by_id.get(integer(r.get("site")), {})
        file, line = r.get("file") or s.get("file"), integer(r.get("line") or s.get("line"))
        if line is None:
            continue
        acc = per_line.setdefault((str(file or "?"), line), {"cost": 0.0, "requests": 0.0, "tx": 0.0})
        acc["cost"] += num(r.get(column)) or 0.0
        acc["requests"] += num(r.get("requests")) or 0.0
        acc["tx"] += num(r.get("transactions")) or 0.0
    total = sum(a["cost"] for a in per_line.values()) or 1.0
    ranked = sorted(per_line.items(), key=lambda kv: (-kv[1]["cost"], kv[0]))[:limit]
    out = []
    for (file, line), acc in ranked:
        if acc["cost"] <= 0:
            continue
        detail = ""
        if acc["requests"]:
            per = acc["tx"] / acc["requests"]
            detail = f"{acc['requests']:,.0f} requests, {per:.2f} transactions/request"
        out.append(HotSite(file=file, line=line, share=acc["cost"] / total, cost_label=label,
                           detail=detail, code=_code(source, line)))
    return out


def _level_roofs(tobj: Any) -> list[tuple[str, float]]:
    """(level, bytes/s) for every cache level with a bandwidth, then DRAM, from a Target."""
    if tobj is None or isinstance(tobj, Mapping):
        return []
    roofs = []
    clock_hz = (getattr(tobj, "clock_mhz", 0) or 0) * 1e6
    for c in getattr(tobj, "caches", ()):
        if c.bandwidth_bytes_per_cycle and clock_hz:
            copies = tobj.compute_units if c.scope == "compute_unit" else 1
            roofs.append((c.name, c.bandwidth_bytes_per_cycle * clock_hz * copies))
    dram = getattr(tobj, "dram", None)
    if dram is not None and dram.bandwidth_gb_per_s:
        roofs.append(("DRAM", dram.bandwidth_gb_per_s * 1e9))
    return roofs


def roofline_view(ops: float | None, alu_s: float | None, total_s: float | None, dram_bytes: int | None,
                  tobj: Any, given: Mapping | None = None) -> RooflineView | None:
    """Roofline inputs: the ALU roof is the rate the model gives this kernel's mix (ops / ALU time)."""
    if isinstance(given, Mapping):
        roofs = [(str(k), num(v)) for k, v in (given.get("roofs") or {}).items() if num(v)]
        return RooflineView(peak_ops_per_s=num(given.get("peak_ops_per_s")), roofs=roofs,
                            intensity=num(given.get("intensity")),
                            achieved_ops_per_s=num(given.get("achieved_ops_per_s")),
                            ops=num(given.get("ops")))
    if not ops or not (alu_s or total_s):
        return None
    roofs = _level_roofs(tobj)
    if not roofs and isinstance(tobj, Mapping):
        bw = num(first(tobj.get("dram") or {}, "bandwidth_gb_per_s"))
        roofs = [("DRAM", bw * 1e9)] if bw else []
    peak = ops / alu_s if alu_s else None
    return RooflineView(peak_ops_per_s=peak, roofs=roofs,
                        intensity=(ops / dram_bytes) if dram_bytes else None,
                        achieved_ops_per_s=(ops / total_s) if total_s else None, ops=ops)
