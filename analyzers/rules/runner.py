"""Run the registered rules over contexts and collect findings in a stable order."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd

from analyzers.rules.base import SEVERITIES, Finding, registry
from analyzers.rules.context import RuleContext

_SEV_RANK = {s: i for i, s in enumerate(SEVERITIES)}
FINDING_COLUMNS = ["target", "kernel", "launch", "severity", "rule_id", "title", "estimated_gain_s",
                   "estimated_gain_fraction", "sites", "evidence", "fix", "citation"]


def _clean(v):
    """Evidence values made JSON-stable: floats rounded to 6 significant digits, NaN to None."""
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return None
        return float(f"{v:.6g}")
    return v


def run_rules(context: RuleContext | Iterable[RuleContext], *, only: Iterable[str]
        | None = None) -> list[Finding]:
    """Findings of every rule that applies to each context's target, in a deterministic order.

    Order: target, kernel, launch, then severity (high first), estimated gain (largest
    first, unknown last) and rule id.  ``only`` restricts the run to the given rule ids.
    """
    contexts = [context] if isinstance(context, RuleContext) else list(context)
    rules = sorted(registry().values(), key=lambda r: r.id)
    if only is not None:
        wanted = set(only)
        unknown = wanted - {r.id for r in rules}
        if unknown:
            raise KeyError(f"unknown rule id(s): {', '.join(sorted(unknown))}")
        rules = [r for r in rules if r.id in wanted]
    out: list[Finding] = []
    for ctx in contexts:
        total = float(ctx.times.get("total_s", 0.0) or 0.0)
        for r in rules:
            if not r.applies_to(ctx.target):
                continue
            hit = r.check(ctx)
            if hit is None:
                continue
            lines, seen = [], set()
            for s in hit.sites:
                ln = ctx.line(s)
                if ln not in seen:
                    seen.add(ln)
                    lines.append(ln)
            gain = None if hit.gain_s is None else float(f"{max(0.0, hit.gain_s):.6g}")
            frac = None if gain is None or not total else float(f"{min(1.0, gain / total):.6g}")
            out.append(Finding(
                rule_id=r.id, title=r.title, severity=hit.severity or r.severity, target=ctx.target.name,
                kernel=ctx.launch.kernel, launch=ctx.launch.launch, evidence=_clean(hit.evidence),
                sites=tuple(lines), fix=r.fix, citation=str(r.citation_for(ctx.target)),
                estimated_gain_s=gain, estimated_gain_fraction=frac))
    out.sort(key=lambda f: (f.target, f.kernel, f.launch, _SEV_RANK[f.severity],
                            -(f.estimated_gain_s if f.estimated_gain_s is not None else -1.0), f.rule_id))
    return out


def findings_frame(findings: Iterable[Finding]) -> pd.DataFrame:
    """Findings as a DataFrame, one row each, columns :data:`FINDING_COLUMNS`, order kept."""
    rows = [f.to_dict() for f in findings]
    df = pd.DataFrame(rows, columns=FINDING_COLUMNS)
    df["sites"] = df["sites"].map(lambda s: [tuple(x) for x in s] if isinstance(s, list) else s)
    return df
