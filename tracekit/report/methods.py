"""The methods appendix: what the model assumes, stated plainly for the reader.

These are the assumptions that hold for every target; each target adds its own
(from its file's ``assumptions`` table and the analysis result).  The longer
account with derivations is docs/model.md.  The appendix also shows how well the
model agrees with the one GPU it was measured against (docs/calibration.md), read
from the summary committed as package data, never recomputed per report.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_BASE = (
    ("What is replayed",
     "Numbers come from replaying the recorded trace on a model of each GPU; nothing runs on the "
     "device. Behaviour that depends on data follows the inputs the trace was recorded with, and "
     "a sampled trace stands for the work-groups it kept."),
    ("Waves and requests",
     "Work-items of a work-group are cut into waves of the target's SIMD width in linear local-id "
     "order. One memory request is what a wave's lanes issue at one site on the same occurrence of "
     "that site."),
    ("Coalescing",
     "A request costs one transaction per distinct block of the target's transaction size that its "
     "lanes touch; transactions per request is the ratio over all requests of a site or launch."),
    ("Caches",
     "Each cache level is set-associative with LRU replacement and the write policy of the target "
     "file. Work-groups are placed on compute units round-robin and their requests interleaved in "
     "the order docs/model.md describes; DRAM bytes are the misses and write-backs of the last level."),
    ("Local memory",
     "A local-memory request takes as many cycles as its busiest bank needs after the target's "
     "broadcast rule; the conflict degree is that count relative to a conflict-free request."),
    ("Time and verdict",
     "The ALU term is the busiest compute unit's issue cycles; where the target file lists execution "
     "pipes, a unit is busy for the larger of its issue slots and its busiest pipe. Each memory "
     "level's term is its bytes over its bandwidth; the latency term follows the work-groups through "
     "their resident slots, each living as long as its chain of dependent loads. The estimate is the "
     "largest term. The verdict is a speed-of-light call: ALU or memory when the model predicts it "
     "busy for at least 60 % of that time, otherwise latency."),
    ("Roofline",
     "Ops are the arithmetic lane-operations counted in the trace. The flat roof is the rate the "
     "ALU model gives this kernel's own instruction mix, so it differs between kernels; slanted "
     "roofs are the bandwidths of the target file."),
    ("Estimated gains",
     "A checklist item's gain is the model's time with the fix applied, subtracted from its time "
     "now. It is an estimate to rank fixes by, not a measurement."),
    ("Not modelled",
     "Instruction caches, clock and thermal changes, contention with other work on the GPU, the ramp "
     "before a throughput-bound launch streams, compiler work the recorded instructions lack (loop "
     "unrolling, address arithmetic folded into loads), and register allocation where the target "
     "file gives no numbers. Launch overhead and work-group dispatch count only where the target "
     "file gives them."),
)


def base_assumptions() -> list[tuple[str, str]]:
    return list(_BASE)


def _fields(keys: list[str]) -> str:
    """``a.b.x, a.b.y, c`` shown as ``a.b.{x, y}, c``: short enough for a table cell."""
    groups: dict[str, list[str]] = {}
    for key in keys:
        prefix, _, leaf = key.rpartition(".")
        groups.setdefault(prefix, []).append(leaf)
    parts = []
    for prefix, leaves in groups.items():
        inner = leaves[0] if len(leaves) == 1 else "{" + ", ".join(leaves) + "}"
        parts.append(f"{prefix}.{inner}" if prefix else inner)
    return ", ".join(parts)


def target_assumptions(value: Any, target: Any = None) -> list[tuple[str, str]]:
    """A target's assumptions as (fields, text), fields sharing one text merged into one row.

    ``value`` is the analysis result's own list or mapping; ``target`` the Target
    whose file says what it assumed where its sources are silent.
    """
    by_text: dict[str, list[str]] = {}
    for src in (value, getattr(target, "assumptions", None)):
        if isinstance(src, Mapping):
            for key, text in src.items():
                keys = by_text.setdefault(str(text), [])
                if str(key) not in keys:
                    keys.append(str(key))
        elif isinstance(src, (list, tuple)):
            for text in src:
                by_text.setdefault(str(text), [])
    return [(_fields(keys), text) for text, keys in by_text.items()]


@dataclass(frozen=True)
class CalibrationRow:
    label: str
    launches: int
    agreeing: int
    agreement: str      # "97 %"
    mean_error: str
    max_error: str
    tolerance: str


@dataclass(frozen=True)
class CalibrationView:
    """How far the model is trusted: its agreement with one measured GPU, for the appendix."""

    target: str
    device: str
    driver: str
    ncu_version: str
    measured: str
    launches: int
    groups_recorded: int | None
    rows: list[CalibrationRow] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    #: What the launches are: "micro-kernel" (one effect each) or "real-kernel" (benchmark kernels).
    suite: str = "micro-kernel"
    #: For a published-probe suite (``suite = "probe"``): the tool whose numbers these are, and the
    #: published points no replay stands for (shown, not scored).
    tool: str = ""
    excluded: int = 0


@dataclass(frozen=True)
class SensitivityRow:
    """An assumed target number the answer depends on: the verdict or time with it halved or doubled."""

    target: str
    kernel: str
    launch: int
    field: str
    value: str           # "0.5x" / "2x" of the file's value
    verdict: str         # "memory -> alu" or the unchanged verdict
    time_change: str     # "+38 %"
    flips: bool


#: A number is listed when scaling it flips the verdict or moves the time by this share or more.
SENSITIVE_TIME = 0.25


def sensitivity_rows(frames) -> list[SensitivityRow]:
    """The rows of :func:`analyzers.sensitivity.sensitivity` (one frame per target, with a
    ``target`` column) that matter: a flipped verdict, or the time moved by a quarter."""
    out = []
    for df in frames:
        if df is None or not len(df):
            continue
        for r in df.itertuples():
            change = float(r.time_change) if r.time_change == r.time_change else 0.0
            if not (r.verdict_changed or abs(change) >= SENSITIVE_TIME):
                continue
            verdict = f"{r.base_verdict} -> {r.verdict}" if r.verdict_changed else str(r.verdict)
            out.append(SensitivityRow(target=str(r.target), kernel=str(r.kernel), launch=int(r.launch),
                                      field=str(r.field), value=f"{float(r.factor):g}x", verdict=verdict,
                                      time_change=f"{100 * change:+.0f} %", flips=bool(r.verdict_changed)))
    out.sort(key=lambda x: (not x.flips, x.target, x.kernel, x.launch, x.field, x.value))
    return out


def _err(v: Any, relative: bool) -> str:
    if v is None:
        return "–"
    return f"{float(v) * 100:.1f} %" if relative else f"{float(v):.3f}"


#: The calibration summary the report carries (package data, written by
#: ``python -m tracekit.calibration.summary --write-summary``).
CALIBRATION_FORMAT = "tracekit-calibration-summary/1"
DEFAULT_SUMMARY = Path(__file__).resolve().parent / "calibration_h200.json"
#: The same table for the real benchmark kernels of tests/data/h200_real (``--suite real-kernel``).
REAL_SUMMARY = Path(__file__).resolve().parent / "calibration_h200_real.json"
#: Where the published-probe suites' tables live (``calibration_probes_<suite>.json``, written by
#: ``python -m tracekit.calibration.probes --write-summary``).
PROBE_SUMMARY_DIR = Path(__file__).resolve().parent


def load_summary(path: str | os.PathLike | None = None) -> dict | None:
    """The committed summary (package data), or None when it is missing or unreadable."""
    p = Path(path) if path is not None else DEFAULT_SUMMARY
    try:
        doc = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("format") == CALIBRATION_FORMAT else None


def calibration_view(summary: Mapping | None = None) -> CalibrationView | None:
    """The committed calibration summary (package data) as table rows; None when it is absent."""
    if summary is None:
        summary = load_summary()
    if not summary:
        return None
    rows = []
    for q in summary.get("quantities", []):
        rel = q.get("error") == "relative"
        agreement = q.get("agreement")
        rows.append(CalibrationRow(
            label=str(q.get("label", q.get("quantity", ""))), launches=int(q.get("launches", 0)),
            agreeing=int(q.get("agreeing", 0)),
            agreement="–" if agreement is None else f"{float(agreement) * 100:.0f} %",
            mean_error=_err(q.get("mean_abs_error"), rel), max_error=_err(q.get("max_abs_error"), rel),
            tolerance=str(q.get("tolerance", ""))))
    misses = [f"{d.get('kernel')} (ncu ID {d.get('ncu_id')}): model {d.get('model')}, "
              f"device {d.get('measured')}" for d in summary.get("verdict_disagreements", [])]
    return CalibrationView(
        target=str(summary.get("target", "")), device=str(summary.get("device", "")),
        driver=str(summary.get("driver", "")), ncu_version=str(summary.get("ncu_version", "")),
        measured=str(summary.get("measured") or "date not recorded"),
        launches=int(summary.get("launches", 0)), groups_recorded=summary.get("groups_recorded"),
        rows=rows, disagreements=misses, suite=str(summary.get("suite") or "micro-kernel"),
        tool=str(summary.get("tool") or ""), excluded=int(summary.get("excluded_points") or 0))


def calibration_views() -> list[CalibrationView]:
    """Every committed calibration table the appendix shows: the micro-kernels, then the real kernels."""
    paths = [DEFAULT_SUMMARY, REAL_SUMMARY, *sorted(PROBE_SUMMARY_DIR.glob("calibration_probes_*.json"))]
    docs = (load_summary(p) for p in paths)
    return [calibration_view(doc) for doc in docs if doc]
