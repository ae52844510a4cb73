"""Run the registered rules over analysis results and collect findings in a stable order."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd

from analyzers.rules.facts import Facts, facts_for
from analyzers.rules.rule import Finding, overrides, registry, severity_of
from tracekit.arguments import ArgumentTypeError
from tracekit.errors import TargetError

FINDING_COLUMNS = ["target", "kernel", "launch", "severity", "kind", "rule_id", "title", "estimated_gain_s",
                   "estimated_gain_fraction", "gain_method", "sites", "evidence", "fix", "citation",
                   "what_if"]


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


def launch_facts(results) -> list[Facts]:
    """:class:`Facts` of every launch that ran, from an ``AnalysisResult``, several, or Facts."""
    if isinstance(results, Facts):
        return [results]
    if hasattr(results, "launches") and hasattr(results, "target"):
        results = [results]
    if not isinstance(results, (list, tuple)):
        raise ArgumentTypeError(f"results must be an AnalysisResult (from analyzers.analyze), a list of them "
                                f"or Facts, got {type(results).__name__}")
    out: list[Facts] = []
    for i, r in enumerate(results):
        if isinstance(r, Facts):
            out.append(r)
            continue
        if not (hasattr(r, "launches") and hasattr(r, "target")):
            raise ArgumentTypeError(f"results[{i}] must be an AnalysisResult (from analyzers.analyze) or "
                                    f"Facts, got {type(r).__name__}")
        for lr in sorted(r.launches, key=lambda x: x.launch):
            f = facts_for(lr, r.target)
            if f is not None:
                out.append(f)
    return out


def check_overrides(target) -> None:
    """Every ``rule_thresholds`` key of a target names a rule and one of its thresholds."""
    rules = registry()
    for key in overrides(target):
        rid, _, name = key.partition(".")
        rule = rules.get(rid)
        if rule is None or name not in rule.thresholds:
            known = ", ".join(f"{rid}.{n}" for n in rule.thresholds) if rule else "see docs/rules.md"
            raise TargetError(f"rule_thresholds: '{key}' names no threshold of a rule (known for this "
                              f"rule: {known or 'none'})", path=getattr(target, "name", None))


def run_rules(results, *, only: Iterable[str] | None = None) -> list[Finding]:
    """Findings of every rule that applies to each launch's target, in a deterministic order.

    ``results``: an :class:`~analyzers.analyze.AnalysisResult`, a list of them, or
    :class:`Facts`.  Gains here are the rules' own estimates from the analysis' terms;
    :func:`analyzers.rules.gains.price_by_replay` replaces them, for fixes a replay can
    apply, by the what-if replay's.  Order: :func:`checklist_order`.  ``only`` restricts
    the run to the given rule ids.  Findings another finding covers (:func:`drop_covered`)
    are left out, whatever the covering fix's replay later finds: when the replay of the
    better-evidenced fix finds it slower, the same advice from weaker evidence would be
    wrong too.
    """
    rules = sorted(registry().values(), key=lambda r: r.id)
    if only is not None:
        wanted = set(only)
        unknown = wanted - {r.id for r in rules}
        if unknown:
            raise KeyError(f"unknown rule id(s): {', '.join(sorted(unknown))}")
        rules = [r for r in rules if r.id in wanted]
    out: list[Finding] = []
    checked = set()
    for f in launch_facts(results):
        if id(f.target) not in checked:
            check_overrides(f.target)
            checked.add(id(f.target))
        total = f.times["total_s"]
        for r in rules:
            if not r.applies_to(f.target):
                continue
            hit = r.check(f, r.limits(f.target))
            if hit is None:
                continue
            lines, seen = [], set()
            for s in hit.sites:
                ln = f.line(s)
                if ln not in seen and ln[1] > 0:     # a site without a source line names nothing
                    seen.add(ln)
                    lines.append(ln)
            gain = None if hit.gain_s is None else float(f"{max(0.0, hit.gain_s):.6g}")
            frac = None if gain is None or not total else float(f"{min(1.0, gain / total):.6g}")
            out.append(Finding(
                rule_id=r.id, title=r.title, severity=severity_of(frac), target=f.target.name,
                kernel=f.launch.kernel, launch=f.launch.launch, evidence=_clean(hit.evidence),
                sites=tuple(lines), fix=r.fix, citation=str(r.citation_for(f.target)),
                estimated_gain_s=gain, estimated_gain_fraction=frac,
                gain_method=None if gain is None else "model", change=hit.change))
    return checklist_order(drop_covered(out))


def drop_covered(findings: list[Finding], rules: dict | None = None) -> list[Finding]:
    """Findings less those whose advice a covering rule (``Rule.covered_by``) gives on the same
    launch and target: one checklist item per fix, the one with the better evidence."""
    rules = registry() if rules is None else rules
    fired = {(x.target, x.launch, x.rule_id) for x in findings}
    def covered(x: Finding) -> bool:
        return any((x.target, x.launch, c) in fired for c in getattr(rules.get(x.rule_id), "covered_by", ()))
    return [x for x in findings if not covered(x)]


def checklist_order(findings: Iterable[Finding]) -> list[Finding]:
    """Target, kernel, launch; then findings before notes, largest estimated gain first, rule id."""
    return sorted(findings, key=lambda x: (x.target, x.kernel, x.launch, x.kind == "note",
                                           -(x.estimated_gain_s if x.estimated_gain_s is not None else -1.0),
                                           x.rule_id))


def findings_frame(findings: Iterable[Finding]) -> pd.DataFrame:
    """Findings as a DataFrame, one row each, columns :data:`FINDING_COLUMNS`, order kept."""
    if isinstance(findings, (str, bytes)) or not hasattr(findings, "__iter__"):
        raise ArgumentTypeError(f"findings must be a list of findings (from run_rules), got "
                                f"{type(findings).__name__}")
    findings = list(findings)
    bad = next((i for i, f in enumerate(findings) if not hasattr(f, "to_dict")), None)
    if bad is not None:
        raise ArgumentTypeError(f"findings[{bad}] must be a finding (from run_rules), got "
                                f"{type(findings[bad]).__name__}")
    rows = [f.to_dict() for f in findings]
    df = pd.DataFrame(rows, columns=FINDING_COLUMNS)
    df["sites"] = df["sites"].map(lambda s: [tuple(x) for x in s] if isinstance(s, list) else s)
    return df
