"""The pieces every rule is made of: citations, thresholds, the rule record, hits and findings.

A rule is one file (the Nsight Compute rule-file habit): an id, a title, the
vendors it applies to, the inputs it reads, its thresholds each with the reason
for its value, a severity, the fix in our words, the guide section it comes from,
and one small check function.  The check reads the launch's
:class:`~analyzers.rules.facts.Facts` and its resolved thresholds only and returns
``None`` (quiet) or a :class:`Hit` with the evidence and the model's estimate of
the gain; the runner turns hits into :class:`Finding` rows.  Keeping a rule on one
screen is what lets a reader check it against its guide section in a minute.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

#: Guide files (under the shared guides folder) rules cite by short name.
GUIDES = {
    "pvr": "powervr-rogue-compute-recommendations.txt",
    "pvr-it": "powervr-maximise-instruction-throughput.txt",
    "pvr-uo": "powervr-maximise-utilisation-and-occupancy.txt",
    "adreno": "qualcomm-adreno-opencl-optimization.txt",
    "intel": "intel-processor-graphics-opencl-guide.txt",
    # No NVIDIA guide ships with the project: NVIDIA-side citations name the public document.
    "cuda": "NVIDIA CUDA C++ Best Practices Guide",
}

#: Vendor keys a rule may name, and the words that identify them in a target's vendor/family/name.
VENDOR_WORDS = {
    "powervr": ("powervr", "imagination", "rogue"),
    "adreno": ("adreno", "qualcomm"),
    "intel": ("intel",),
    "nvidia": ("nvidia",),
}
ALL_VENDORS = tuple(VENDOR_WORDS)

#: Severity is the estimated gain, as a share of the launch's estimated time: a fix worth a
#: quarter of the time is high, one worth 5 % medium, anything measurable (half a percent,
#: below which the model's own rounding lives) low; the rest is a note, listed apart.
SEVERITIES = ("high", "medium", "low", "note")
GAIN_HIGH, GAIN_MEDIUM, GAIN_LOW = 0.25, 0.05, 0.005


def severity_of(gain_fraction: float | None) -> str:
    """The severity a finding's estimated gain earns (``note`` when there is none to measure)."""
    if gain_fraction is None or gain_fraction < GAIN_LOW:
        return "note"
    if gain_fraction >= GAIN_HIGH:
        return "high"
    return "medium" if gain_fraction >= GAIN_MEDIUM else "low"


def vendor_key(target) -> str:
    """The vendor key of a target (``powervr``/``adreno``/``intel``/``nvidia``), or ``other``."""
    text = " ".join(str(getattr(target, a, "") or "") for a in ("vendor", "family", "name")).lower()
    for key, words in VENDOR_WORDS.items():
        if any(w in text for w in words):
            return key
    return "other"


@dataclass(frozen=True)
class Citation:
    """A guide file (short name from :data:`GUIDES`) and a section title as the guide spells it."""

    guide: str
    section: str

    def __post_init__(self):
        if self.guide not in GUIDES:
            raise ValueError(f"unknown guide '{self.guide}' (known: {', '.join(GUIDES)})")

    def __str__(self) -> str:
        return f"{GUIDES[self.guide]} §{self.section}"


@dataclass(frozen=True)
class Threshold:
    """A value a rule compares against, and why it has that value (a guide section, or a
    team choice with its reason).  A target file may override it (``rule_thresholds``)."""

    value: float
    why: str


class Limits:
    """A rule's thresholds resolved for one target: ``t.ratio`` reads threshold ``ratio``."""

    def __init__(self, rule_id: str, values: Mapping[str, float]):
        self._id = rule_id
        self._values = dict(values)

    def __getattr__(self, name: str) -> float:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"rule {self._id} declares no threshold '{name}'") from None


@dataclass
class Hit:
    """What a check returns when its condition holds.

    ``evidence`` holds plain numbers and strings (JSON-able); ``sites`` the site
    ids involved (the runner maps them to source lines); ``gain_s`` the model's
    estimate of the time saved by the fix, ``None`` when the model cannot say;
    ``change`` the fix as a what-if (:mod:`analyzers.whatif`), which, when given,
    prices the finding by replaying the changed launch instead of ``gain_s``.
    """

    evidence: dict
    sites: list[int] = field(default_factory=list)
    gain_s: float | None = None
    change: object | None = None


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    vendors: tuple[str, ...]
    #: What the check reads (names of result fields), for the docs and the reader.
    inputs: tuple[str, ...]
    fix: str
    #: One citation for every vendor, or one per vendor key.
    citation: Citation | Mapping[str, Citation]
    check: Callable
    thresholds: Mapping[str, Threshold] = field(default_factory=dict)
    #: The kind of what-if change (:data:`analyzers.whatif.CHANGES`) that prices the fix by
    #: replay; None when the gain is the rule's own estimate from the analysis' terms.
    what_if: str | None = None
    module: str = ""
    #: Rules that give the same advice with better evidence: where one of them fires on a
    #: launch, this one stays out of its checklist (one item per fix).
    covered_by: tuple[str, ...] = ()

    @property
    def generic(self) -> bool:
        """Advice every guide gives (the rule names every vendor): it applies to a target of a
        vendor no rule names as well, so a new vendor's target file gets it unchanged."""
        return set(self.vendors) == set(ALL_VENDORS)

    def applies_to(self, target) -> bool:
        key = vendor_key(target)
        return key in self.vendors or (key == "other" and self.generic)

    def limits(self, target) -> Limits:
        """The thresholds with the target's overrides (``RULE-ID.name`` keys) applied."""
        values = {k: v.value for k, v in self.thresholds.items()}
        for key, value in overrides(target).items():
            rid, _, name = key.partition(".")
            if rid == self.id:
                values[name] = float(value)
        return Limits(self.id, values)

    def citation_for(self, target_or_vendor) -> Citation:
        """The guide section the advice comes from on this vendor; on a vendor without a guide of
        its own (a generic rule on an ``other`` target), the first section the rule names."""
        if isinstance(self.citation, Citation):
            return self.citation
        key = target_or_vendor if isinstance(target_or_vendor, str) else vendor_key(target_or_vendor)
        return self.citation.get(key) or next(iter(self.citation.values()))

    def citations(self) -> list[Citation]:
        if isinstance(self.citation, Citation):
            return [self.citation]
        seen = []
        for c in self.citation.values():
            if c not in seen:
                seen.append(c)
        return seen


@dataclass(frozen=True)
class Finding:
    """One fired rule for one (kernel launch, target): the row a checklist shows.

    ``severity`` follows the estimated gain (:func:`severity_of`); a ``note`` has no
    measurable gain.  ``gain_method`` says where the gain came from: ``replay`` (the
    launch replayed with the fix applied, ``what_if`` holding both sides) or ``model``
    (the rule's estimate from the analysis' own terms).
    """

    rule_id: str
    title: str
    severity: str
    target: str
    kernel: str
    launch: int
    evidence: dict
    sites: tuple[tuple[str, int], ...]     # (file, line) of the sites involved, hottest first
    fix: str
    citation: str
    estimated_gain_s: float | None
    estimated_gain_fraction: float | None  # of the launch's estimated time
    gain_method: str | None = None
    what_if: dict | None = None
    change: object | None = field(default=None, compare=False, repr=False)

    @property
    def kind(self) -> str:
        return "note" if self.severity == "note" else "finding"

    def to_dict(self) -> dict:
        return {
            "rule_id": self.rule_id, "title": self.title, "severity": self.severity, "kind": self.kind,
            "target": self.target, "kernel": self.kernel, "launch": self.launch,
            "evidence": dict(self.evidence), "sites": [list(s) for s in self.sites],
            "fix": self.fix, "citation": self.citation,
            "estimated_gain_s": self.estimated_gain_s,
            "estimated_gain_fraction": self.estimated_gain_fraction,
            "gain_method": self.gain_method, "what_if": self.what_if,
        }


_REGISTRY: dict[str, Rule] = {}


def overrides(target) -> dict[str, float]:
    """The target's threshold overrides, ``{"RULE-ID.name": value}``."""
    return dict(getattr(target, "rule_thresholds", None) or {})


def rule(*, id: str, title: str, vendors: tuple[str, ...] = ALL_VENDORS, inputs: tuple[str, ...],
         fix: str, citation, thresholds: Mapping[str, Threshold] | None = None, what_if: str | None = None,
         covered_by: tuple[str, ...] = ()):
    """Register the decorated check function ``check(facts, limits) -> Hit | None`` as a rule."""
    unknown = set(vendors) - set(VENDOR_WORDS)
    if unknown:
        raise ValueError(f"rule {id}: unknown vendor key(s) {sorted(unknown)}")
    if not isinstance(citation, Citation):
        missing = set(vendors) - set(citation)
        if missing:
            raise ValueError(f"rule {id}: no citation for vendor(s) {sorted(missing)}")

    def wrap(fn):
        if id in _REGISTRY:
            raise ValueError(f"rule id {id} registered twice")
        _REGISTRY[id] = Rule(id=id, title=title, vendors=tuple(vendors), inputs=tuple(inputs),
                             fix=" ".join(fix.split()), citation=citation,
                             check=fn, thresholds=dict(thresholds or {}), what_if=what_if,
                             module=fn.__module__, covered_by=tuple(covered_by))
        return fn
    return wrap


def registry() -> dict[str, Rule]:
    """All registered rules by id (importing :mod:`analyzers.rules` registers them)."""
    return _REGISTRY
