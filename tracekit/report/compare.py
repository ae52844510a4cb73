"""What changed between two traces of the same kernel on one target.

:func:`tracekit.pipeline.compare` analyses both traces, runs the rules on both and
hands the two report models to :func:`compare_models`, which pairs their launches
(same kernel name, in launch order).  The result says, per kernel, how each
metric moved (and whether that is better or worse), whether the verdict changed,
and which checklist items were resolved, which are new and which remain.  A
notebook or a test can call :func:`compare_models` on report models it already has.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from tracekit import __version__
from tracekit.report.fmt import fmt_delta
from tracekit.report.methods import base_assumptions, calibration_views
from tracekit.report.model import FindingView, LaunchOnTarget, ReportModel, sort_findings

#: (label, attribute, format kind, lower is better)
METRICS = (
    ("estimated time", "time_s", "time", True),
    ("global requests", "requests", "num", True),
    ("transactions", "transactions", "num", True),
    ("transactions per request", "transactions_per_request", "num", True),
    ("DRAM traffic", "dram_bytes", "bytes", True),
    ("local-memory cycles", "local_cycles", "num", True),
    ("mean bank-conflict degree", "conflict_degree_mean", "num", True),
    ("SIMD utilisation", "simd_utilization", "pct", False),
    ("occupancy", "occupancy", "pct", False),
)
#: Relative change below which a metric counts as unchanged.
SAME_WITHIN = 1e-3


@dataclass
class MetricDelta:
    metric: str
    kind: str
    before: float | None
    after: float | None
    lower_is_better: bool
    change: str = "same"   # "better" | "worse" | "same" | "n/a"
    text: str = ""


@dataclass
class KernelChange:
    kernel: str
    launch_before: int
    launch_after: int
    verdict_before: str
    verdict_after: str
    error_before: str | None = None
    error_after: str | None = None
    metrics: list[MetricDelta] = field(default_factory=list)
    resolved: list[FindingView] = field(default_factory=list)
    new: list[FindingView] = field(default_factory=list)
    remaining: list[FindingView] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return f"change-{self.launch_before}-{self.launch_after}"

    @property
    def verdict_changed(self) -> bool:
        return self.verdict_before != self.verdict_after

    @property
    def time(self) -> MetricDelta:
        return self.metrics[0]

    @property
    def speedup(self) -> float | None:
        t = self.time
        return (t.before / t.after) if t.before and t.after else None


@dataclass
class Comparison:
    target: str
    before_path: str
    after_path: str
    tool_version: str
    kernels: list[KernelChange]
    only_before: list[str] = field(default_factory=list)
    only_after: list[str] = field(default_factory=list)
    assumptions: list[tuple[str, str]] = field(default_factory=list)
    title: str = "tracekit comparison"
    calibration: list = field(default_factory=list)  # the appendix's tables (methods.CalibrationView)

    def _repr_html_(self) -> str:
        """A compact table for notebooks: one row per paired launch."""
        import html as _html
        rows = []
        for k in self.kernels:
            sp = "" if k.speedup is None else f"{k.speedup:.2f}x"
            rows.append(
                f"<tr><td>{_html.escape(k.kernel)}</td><td>{_html.escape(k.verdict_before)}"
                f" &rarr; {_html.escape(k.verdict_after)}</td><td>{sp}</td>"
                f"<td>{len(k.resolved)}</td><td>{len(k.new)}</td><td>{len(k.remaining)}</td></tr>")
        return (f"<div><b>{_html.escape(self.title)}</b> on <code>{_html.escape(self.target)}</code>"
                "<table><tr><th>kernel</th><th>verdict</th><th>speed-up</th><th>resolved</th>"
                f"<th>new</th><th>remaining</th></tr>{''.join(rows)}</table></div>")

    def to_dict(self) -> dict:
        d = asdict(self)
        for k, kc in zip(d["kernels"], self.kernels, strict=True):
            k["verdict_changed"] = kc.verdict_changed
            k["speedup"] = kc.speedup
        d.pop("assumptions")
        d.pop("calibration")
        return _plain(d)


def _plain(v: Any) -> Any:
    """JSON-shaped copy: tuples become lists, so the dict equals its JSON round trip."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def metric_delta(label: str, kind: str, before: Any, after: Any, lower_is_better: bool) -> MetricDelta:
    b, a = _num(before), _num(after)
    change = "n/a"
    if b is not None and a is not None:
        scale = max(abs(b), abs(a), 1e-300)
        if abs(a - b) / scale <= SAME_WITHIN:
            change = "same"
        else:
            change = "better" if (a < b) == lower_is_better else "worse"
    text = "unchanged" if change == "same" else fmt_delta(b, a, kind)
    return MetricDelta(metric=label, kind=kind, before=b, after=a, lower_is_better=lower_is_better,
                       change=change, text=text)


def _num(v: Any) -> float | None:
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def _cache_deltas(b: LaunchOnTarget, a: LaunchOnTarget) -> list[MetricDelta]:
    after = {c.level: c.hit_rate for c in a.caches}
    return [metric_delta(f"{c.level} hit rate", "pct", c.hit_rate, after.get(c.level), False)
            for c in b.caches if c.level in after]


def _finding_key(f: FindingView) -> str:
    return f.rule_id


def kernel_change(b: LaunchOnTarget, a: LaunchOnTarget, kernel: str, lb: int, la: int) -> KernelChange:
    metrics = [metric_delta(label, kind, getattr(b, attr), getattr(a, attr), lower)
               for label, attr, kind, lower in METRICS]
    metrics[len(METRICS) - 2:len(METRICS) - 2] = _cache_deltas(b, a)
    fb = [f for f in b.findings if not f.is_note]     # notes carry no gain: not checklist items
    fa = [f for f in a.findings if not f.is_note]
    metrics.append(metric_delta("checklist items", "num", len(fb), len(fa), True))
    before_ids = {_finding_key(f) for f in fb}
    after_ids = {_finding_key(f) for f in fa}
    return KernelChange(
        kernel=kernel, launch_before=lb, launch_after=la, verdict_before=b.verdict, verdict_after=a.verdict,
        error_before=b.error, error_after=a.error, metrics=metrics,
        resolved=sort_findings([f for f in fb if _finding_key(f) not in after_ids]),
        new=sort_findings([f for f in fa if _finding_key(f) not in before_ids]),
        remaining=sort_findings([f for f in fa if _finding_key(f) in before_ids]))


def _cells(model: ReportModel, target: str) -> list[tuple[str, int, LaunchOnTarget]]:
    out = []
    for sec in model.kernels:
        for r in sec.results:
            if r.target == target:
                out.append((sec.kernel, sec.launch, r))
    return out


def compare_models(before: ReportModel, after: ReportModel, target: str) -> Comparison:
    """Pair the launches of two report models by kernel name (in launch order) and diff them.

    When each side is left with launches of a single kernel whose names differ
    (``transpose_naive`` against ``transpose_tiled``), that is a rewrite of the
    same kernel under a new name, and those launches are paired in order too.
    """
    cb, ca = _cells(before, target), _cells(after, target)
    queue: dict[str, list[tuple[int, LaunchOnTarget]]] = {}
    for kernel, launch, r in ca:
        queue.setdefault(kernel, []).append((launch, r))
    changes, left_b = [], []
    for kernel, launch, r in cb:
        if queue.get(kernel):
            la, ra = queue[kernel].pop(0)
            changes.append(kernel_change(r, ra, kernel, launch, la))
        else:
            left_b.append((kernel, launch, r))
    left_a = [(k, la, ra) for k, rest in queue.items() for la, ra in rest]
    if len({k for k, _, _ in left_b}) == 1 and len({k for k, _, _ in left_a}) == 1:
        n = min(len(left_b), len(left_a))
        for (kb, lb, rb), (ka, la, ra) in zip(left_b[:n], left_a[:n], strict=True):
            changes.append(kernel_change(rb, ra, f"{kb} \u2192 {ka}", lb, la))
        left_b, left_a = left_b[n:], left_a[n:]
    return Comparison(target=target, before_path=before.trace_path, after_path=after.trace_path,
                      tool_version=__version__, kernels=changes,
                      only_before=[f"{k} (launch {lb})" for k, lb, _ in left_b],
                      only_after=[f"{k} (launch {la})" for k, la, _ in left_a],
                      assumptions=base_assumptions(), calibration=calibration_views())
