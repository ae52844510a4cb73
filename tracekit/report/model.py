"""The report model: the small, explicit data a report template reads.

Templates never see analyzer objects.  :func:`tracekit.report.build.build_report_model`
turns a trace summary, per-target analysis results and rule findings into these
dataclasses; the templates only format them.  Keeping this layer thin and flat
means an analyzer can change its internals without touching a template, and a
test can build a report from a hand-written fixture.

Every string in here may come from an untrusted trace (kernel names, source
text, file names); the templates escape all of it (autoescape is on everywhere).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: Verdict words the model produces; anything else is shown as "unknown".
VERDICTS = ("alu", "memory", "latency")
#: Severity order used to sort findings, most urgent first (``note``: no measurable gain).
SEVERITIES = ("high", "medium", "low", "note")


@dataclass
class TargetInfo:
    """One target GPU, as named in the report header and comparison."""

    name: str
    vendor: str = ""
    family: str = ""
    description: str = ""
    compute_units: int | None = None
    clock_mhz: float | None = None
    simd_width: int | None = None
    dram_gb_per_s: float | None = None


@dataclass
class CacheView:
    level: str
    hit_rate: float | None
    hits: int | None = None
    misses: int | None = None


@dataclass
class SourceLine:
    number: int
    text: str
    hot: bool = False


@dataclass
class HotSite:
    """One source line the model spends time on, with the code around it."""

    file: str
    line: int
    share: float                 # fraction of the launch's cost attributed to the line
    cost_label: str              # what ``share`` measures ("transactions", "lane executions")
    detail: str = ""             # short per-line evidence (requests, transactions per request)
    code: list[SourceLine] = field(default_factory=list)


@dataclass
class FindingView:
    """One checklist item (a rule that fired on one kernel launch on one target)."""

    rule_id: str
    title: str
    severity: str
    target: str
    kernel: str
    launch: int
    evidence: list[tuple[str, str]]
    sites: list[tuple[str, int]]
    fix: str
    citation: str
    gain_s: float | None = None        # estimated time saved, seconds
    gain_fraction: float | None = None  # of the launch's estimated time
    gain_method: str = ""              # "replay" (what-if replay) or "model" (the rule's estimate)
    replay: str = ""                   # the what-if replay in words, when one priced the gain

    @property
    def is_note(self) -> bool:
        return self.severity == "note"


@dataclass
class ChecklistItem:
    """One rule that fired on a kernel launch, with its evidence on each target it fired for."""

    rule_id: str
    title: str
    severity: str
    fix: str
    findings: list[FindingView]

    @property
    def targets(self) -> list[str]:
        return [f.target for f in self.findings]

    @property
    def citations(self) -> list[str]:
        return list(dict.fromkeys(f.citation for f in self.findings if f.citation))

    @property
    def best_gain_s(self) -> float | None:
        gains = [f.gain_s for f in self.findings if f.gain_s is not None]
        return max(gains) if gains else None


@dataclass
class RooflineView:
    """Inputs of one roofline chart (all rates per second)."""

    peak_ops_per_s: float | None
    roofs: list[tuple[str, float]]     # (level, bytes per second), nearest level first
    intensity: float | None            # ops per DRAM byte
    achieved_ops_per_s: float | None
    ops: float | None


@dataclass
class LaunchOnTarget:
    """The analysis of one kernel launch on one target, as the report shows it."""

    target: str
    verdict: str = "unknown"
    error: str | None = None
    time_s: float | None = None
    times: list[tuple[str, float]] = field(default_factory=list)   # (component, seconds)
    requests: int | None = None
    transactions: int | None = None
    transactions_per_request: float | None = None
    caches: list[CacheView] = field(default_factory=list)
    dram_bytes: int | None = None
    local_requests: int | None = None
    local_cycles: float | None = None
    conflict_degree_mean: float | None = None
    conflict_histogram: list[tuple[str, float]] = field(default_factory=list)
    simd_utilization: float | None = None
    occupancy: float | None = None          # resident waves / maximum
    resident_waves: float | None = None
    max_waves: float | None = None
    occupancy_limiter: str = ""
    coalescing_sites: list[tuple[str, float]] = field(default_factory=list)   # (file:line, tx/request)
    ideal_transactions_per_request: float | None = None
    bank_sites: list[tuple[str, float]] = field(default_factory=list)         # (file:line, degree)
    roofline: RooflineView | None = None
    hot_sites: list[HotSite] = field(default_factory=list)
    evidence: list[tuple[str, str]] = field(default_factory=list)
    findings: list[FindingView] = field(default_factory=list)
    #: The verdict's term over the largest other term, and that term (how clear the call is).
    verdict_margin: float | None = None
    runner_up: str = ""
    #: The texture path and the compiler's machine code (tracekit.report.sections), where they apply.
    texture: Any = None
    machine_code: Any = None
    #: The code the ALU time prices (tracekit.report.sections.alu_priced_by).
    alu_priced_by: str = ""

    @property
    def top_finding(self) -> FindingView | None:
        real = [f for f in self.findings if not f.is_note]
        return real[0] if real else None

    @property
    def close_call(self) -> bool:
        """The verdict's term is within a quarter of the next: read the verdict as tentative."""
        return self.verdict_margin is not None and self.verdict_margin < 1.25


@dataclass
class KernelSection:
    """One kernel launch and its analysis on every target."""

    kernel: str
    launch: int
    global_size: str = ""
    local_size: str = ""
    local_mem_bytes: int | None = None
    build_options: str = ""
    device: str = ""
    results: list[LaunchOnTarget] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        """A fragment id made only of safe characters (the kernel name is untrusted)."""
        return f"launch-{self.launch}"

    @property
    def time_by_target(self) -> list[tuple[str, float]]:
        return [(r.target, r.time_s) for r in self.results if r.time_s is not None]

    @property
    def checklist(self) -> list[ChecklistItem]:
        """Findings grouped by rule (one checkbox per fix), largest estimated gain first.

        Within a rule, findings keep the report's target order.  Notes (no measurable
        gain) are listed apart: :attr:`notes`.
        """
        return self._grouped(lambda f: not f.is_note)

    @property
    def notes(self) -> list[ChecklistItem]:
        """Rules that fired without a gain the model can measure, grouped like the checklist."""
        return self._grouped(lambda f: f.is_note)

    def _grouped(self, keep) -> list[ChecklistItem]:
        groups: dict[str, list[FindingView]] = {}
        for f in (f for r in self.results for f in r.findings if keep(f)):
            groups.setdefault(f.rule_id, []).append(f)
        ordered = sorted(groups.values(), key=lambda fs: min(_finding_order(f) for f in fs))
        tops = [min(fs, key=_finding_order) for fs in ordered]
        return [ChecklistItem(rule_id=t.rule_id, title=t.title, severity=t.severity, fix=t.fix, findings=fs)
                for t, fs in zip(tops, ordered, strict=True)]


@dataclass
class ReportModel:
    title: str
    trace_path: str
    tool_version: str
    targets: list[TargetInfo]
    kernels: list[KernelSection]
    assumptions: list[tuple[str, str]]
    #: Per target: (fields, what its file assumed where the sources are silent).
    target_assumptions: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: The calibration agreement tables (tracekit.report.methods.CalibrationView), one per suite.
    calibration: list = field(default_factory=list)
    #: Assumed target numbers the verdict or time depends on (tracekit.report.methods.SensitivityRow).
    sensitivity: list = field(default_factory=list)

    def top_findings(self, limit: int = 3) -> list[tuple[str, list[FindingView]]]:
        """Per target, its largest-gain findings over every launch: what the report leads with."""
        out = []
        for t in self.targets:
            found = [f for k in self.kernels for r in k.results if r.target == t.name
                     for f in r.findings if not f.is_note]
            out.append((t.name, sorted(found, key=_finding_order)[:limit]))
        return out

    def to_dict(self) -> dict:
        return asdict(self)


def _finding_order(f: FindingView) -> tuple:
    return (f.is_note, -(f.gain_fraction or 0.0), -(f.gain_s or 0.0), f.rule_id, f.target)


def sort_findings(findings: list[FindingView]) -> list[FindingView]:
    """Largest estimated gain first, notes last; stable and deterministic."""
    return sorted(findings, key=_finding_order)
