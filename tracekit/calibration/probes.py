"""Model against published probe measurements of GPUs tracekit cannot run itself.

The mobile targets have no device here to profile, but public probe suites publish
both their kernels and what those kernels measured on real devices (ArchProbe on an
Adreno 640, clpeak on an Intel HD 530).  A *probe suite* (tests/data/mobile/<tool>/)
holds the probe kernels as tracekit recorded them at the probe's own sizes, the
published numbers for the same points, and a ``suite.json`` naming the target, the
device and the configuration the device reported while it was measured.

Every recorded launch carries a ``probe`` record in its metadata (name, swept value
``x``, ``unit`` and ``count``).  The model's number for the launch comes from its
launch time alone, the way the probe derives its own from a timer:

* ``ns/step``: time x 1e9 / count (a dependent chase of ``count`` steps);
* ``GB/s`` and ``GFLOPS`` (or ``GIOPS``): count / time / 1e9.

A point agrees when the model is within ``tolerance`` (relative) of the device.
Points a replay cannot stand for (the ``excluded`` column of the measured table says
why) are shown but not scored.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from tracekit.errors import TracekitError

#: Relative error within which a probe point agrees.
TOLERANCE = 0.20

PER_SECOND = {"GB/s", "GFLOPS", "GIOPS"}
UNITS = PER_SECOND | {"ns/step"}
POINT_COLUMNS = ["probe", "x", "measured", "unit", "excluded", "source"]

#: How each probe is named in tables.
LABELS = {
    "buffer_chase": "buffer load latency by footprint",
    "image_chase": "image read latency by footprint",
    "buffer_bandwidth": "buffer read bandwidth by footprint",
    "image_bandwidth": "image read bandwidth by footprint",
    "constant_bandwidth": "constant read bandwidth by footprint",
    "local_bandwidth": "local-memory read bandwidth by footprint",
    "global_bandwidth": "global read bandwidth by vector width",
    "gflops_fp32": "FP32 multiply-add rate by vector width",
    "gflops_fp16": "FP16 multiply-add rate by vector width",
    "compute_sp": "FP32 multiply-add rate by vector width",
    "compute_int": "int32 multiply-add rate by vector width",
}


@dataclass(frozen=True)
class ProbeSuite:
    """One published probe run: the device, its numbers and tracekit's recording of the probes."""

    name: str
    target: str
    device: str
    driver: str
    tool: str
    measured: str
    source: str
    trace: Path
    points: Path
    #: What the device reported while it was measured (compute_units, clock_mhz); the model runs at it.
    device_config: dict = field(default_factory=dict)
    #: Probes compared by shape only, with why: their level rests on something of the measured machine
    #: that is not published (its memory, say), so the model's curve is scaled to the device's mean.
    shape_only: dict = field(default_factory=dict)


def load_suite(path: str | os.PathLike) -> ProbeSuite:
    """Read a suite.json (paths in it are relative to its folder)."""
    p = Path(path)
    try:
        doc = json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise TracekitError(f"{p}: not a readable probe suite ({exc})") from exc
    need = ("suite", "target", "device", "tool", "trace", "points")
    missing = [k for k in need if not isinstance(doc.get(k), str) or not doc.get(k)]
    if missing:
        raise TracekitError(f"{p}: probe suite lacks {', '.join(missing)}")
    config = doc.get("device_config") or {}
    bad = sorted(set(config) - {"compute_units", "clock_mhz"})
    if bad:
        raise TracekitError(f"{p}: device_config may set compute_units and clock_mhz, not {', '.join(bad)}")
    for k, v in config.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise TracekitError(f"{p}: device_config {k} must be a positive number, not {v!r}")
    shape = doc.get("shape_only") or {}
    if not isinstance(shape, dict) or not all(isinstance(v, str) and v for v in shape.values()):
        raise TracekitError(f"{p}: shape_only must map probe names to the reason their level is not compared")
    return ProbeSuite(
        name=doc["suite"],
        target=doc["target"],
        device=doc["device"],
        driver=str(doc.get("driver", "")),
        tool=doc["tool"],
        measured=str(doc.get("measured", "")),
        source=str(doc.get("source", "")),
        trace=p.parent / doc["trace"],
        points=p.parent / doc["points"],
        device_config=dict(config),
        shape_only=dict(shape),
    )


def read_points(path: str | os.PathLike) -> pd.DataFrame:
    """The published numbers: one row per probe and swept value."""
    try:
        df = pd.read_csv(path, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise TracekitError(f"{path}: not a readable table of probe points ({exc})") from exc
    missing = [c for c in POINT_COLUMNS if c not in df.columns]
    if missing:
        raise TracekitError(f"{path}: missing column(s) {', '.join(missing)}")
    bad = sorted(set(df.unit[df.excluded.astype(str) == ""]) - UNITS)  # excluded points keep their own units
    if bad:
        raise TracekitError(
            f"{path}: unknown unit(s) {', '.join(map(str, bad))}; use one of {', '.join(sorted(UNITS))}"
        )
    df["x"] = pd.to_numeric(df["x"], errors="raise").astype("int64")
    df["measured"] = pd.to_numeric(df["measured"], errors="raise").astype(float)
    return df[POINT_COLUMNS]


def device_target(target, config: dict):
    """``target`` at the configuration the measured device reported (its clock and compute units)."""
    changes = {}
    if "compute_units" in config:
        changes["compute_units"] = int(config["compute_units"])
    if "clock_mhz" in config:
        changes["clock_mhz"] = float(config["clock_mhz"])
    return replace(target, **changes) if changes else target


def launch_probes(trace) -> pd.DataFrame:
    """Each launch's probe record: launch, probe, x, unit, count."""
    rows = []
    for r in trace.launches.select(["launch", "metadata"]).to_pylist():
        try:
            meta = json.loads(r["metadata"] or "{}")
        except ValueError:
            meta = {}
        p = meta.get("probe") if isinstance(meta, dict) else None
        if isinstance(p, dict) and {"name", "x", "unit", "count"} <= set(p):
            rows.append(
                {
                    "launch": int(r["launch"]),
                    "probe": str(p["name"]),
                    "x": int(p["x"]),
                    "model_unit": str(p["unit"]),
                    "count": float(p["count"]),
                }
            )
    return pd.DataFrame(rows, columns=["launch", "probe", "x", "model_unit", "count"])


def model_value(unit: str, count: float, time_s: float | None) -> float:
    if time_s is None or not time_s > 0:
        return math.nan
    return time_s * 1e9 / count if unit == "ns/step" else count / time_s / 1e9


@dataclass
class ProbeAgreement:
    """A suite's points, model beside device."""

    suite: ProbeSuite
    frame: pd.DataFrame
    tolerance: float = TOLERANCE

    @property
    def scored(self) -> pd.DataFrame:
        return self.frame[(self.frame.excluded == "") & self.frame.model.notna()]

    @property
    def stats(self) -> pd.DataFrame:
        """Per probe: points compared, agreeing, mean and max relative error (|model - device| / device)."""
        rows = []
        for probe, g in self.scored.groupby("probe", sort=False):
            err = g.error.abs()
            rows.append(
                {
                    "probe": probe,
                    "label": LABELS.get(probe, probe),
                    "points": len(g),
                    "agreeing": int(g.agree.sum()),
                    "mean_abs_error": float(err.mean()),
                    "max_abs_error": float(err.max()),
                }
            )
        return pd.DataFrame(
            rows, columns=["probe", "label", "points", "agreeing", "mean_abs_error", "max_abs_error"]
        )


def compare_probes(
    suite: ProbeSuite | str | os.PathLike, *, target=None, analysis=None, tolerance: float = TOLERANCE
) -> ProbeAgreement:
    """Replay the suite's trace on its target (at the device's configuration) and set it beside the device.

    ``target`` replaces the suite's (a Target, a name or a path: to try a changed model);
    ``analysis`` reuses an :func:`analyzers.analyze` result of the suite's trace.
    """
    from analyzers.analyze import analyze
    from tracekit.formats import open_trace
    from tracekit.targets import load_target

    if not isinstance(suite, ProbeSuite):
        suite = load_suite(suite)
    points = read_points(suite.points)
    trace = open_trace(suite.trace)
    probes = launch_probes(trace)
    if probes.empty:
        raise TracekitError(f"{suite.trace}: no launch carries a probe record")
    if analysis is None:
        t = target if target is not None else suite.target
        t = load_target(t) if isinstance(t, (str, os.PathLike)) else t
        analysis = analyze(trace, device_target(t, suite.device_config))
    time_of = {r.launch: r.time_s for r in analysis.launches}
    bound_of = {r.launch: getattr(r.bound, "verdict", None) for r in analysis.launches}
    probes["model"] = [
        model_value(u, c, time_of.get(i))
        for i, u, c in zip(probes.launch, probes.model_unit, probes["count"], strict=True)
    ]
    probes["bound"] = probes.launch.map(bound_of)
    # a probe that times several variants of a point reports its best (clpeak's two walks)
    best = probes.model.where(probes.model_unit == "ns/step", -probes.model)
    probes = probes.assign(_rank=best).sort_values(["probe", "x", "_rank"], na_position="last")
    probes = probes.drop_duplicates(["probe", "x"]).drop(columns="_rank")
    df = points.merge(probes, on=["probe", "x"], how="left")
    wrong = df[
        df.model_unit.notna()
        & (df.model_unit != df.unit)
        & ~(df.unit.isin(PER_SECOND) & df.model_unit.isin(PER_SECOND))
    ]
    if not wrong.empty:
        r = wrong.iloc[0]
        raise TracekitError(
            f"{suite.points}: {r.probe} at {r.x} is in {r.unit} but launch {int(r.launch)} "
            f"reports {r.model_unit}"
        )
    unrecorded = (df.excluded == "") & df.launch.isna()
    df.loc[unrecorded, "excluded"] = "not recorded"
    df["compared"] = "level"
    for probe in suite.shape_only:
        on = (df.probe == probe) & (df.excluded == "") & df.model.notna()
        if on.any():  # the model's curve scaled to the device's mean: only its shape is compared
            level = df.loc[on, "measured"].mean() / df.loc[on, "model"].mean()
            df.loc[on, "model"] = df.loc[on, "model"] * level
            df.loc[on, "compared"] = "shape"
    df["error"] = (df.model - df.measured) / df.measured
    df["agree"] = df.error.abs() <= tolerance
    return ProbeAgreement(suite, df.drop(columns=["model_unit"]), tolerance)


def summary(agreement: ProbeAgreement) -> dict:
    """The suite's agreement as the report's calibration summary (package data, like the H200's)."""
    from tracekit.report.methods import CALIBRATION_FORMAT

    s = agreement.suite
    stats = agreement.stats
    frame = agreement.frame
    return {
        "format": CALIBRATION_FORMAT,
        "suite": "probe",
        "probe_suite": s.name,
        "target": s.target,
        "device": s.device,
        "driver": s.driver,
        "tool": s.tool,
        "measured": s.measured,
        "source": s.source,
        "device_config": s.device_config,
        "launches": int(stats.points.sum()),
        "excluded_points": int((frame.excluded != "").sum()),
        "quantities": [
            {
                "quantity": r.probe,
                "label": r.label + (" (shape: scaled to the device's mean)" if r.probe in s.shape_only
                                    else ""),
                "launches": int(r.points),
                "agreeing": int(r.agreeing),
                "agreement": r.agreeing / r.points if r.points else None,
                "mean_abs_error": round(r.mean_abs_error, 4),
                "max_abs_error": round(r.max_abs_error, 4),
                "error": "relative",
                "tolerance": f"within {agreement.tolerance:.0%}",
            }
            for r in stats.itertuples()
        ],
        "points": [
            {
                "probe": r.probe,
                "x": int(r.x),
                "unit": r.unit,
                "measured": r.measured,
                "model": None if r.model != r.model else round(float(r.model), 3),
                "excluded": r.excluded,
            }
            for r in frame.itertuples()
        ],
    }


def curve_tables(doc: dict) -> str:
    """Markdown: every recorded point of a suite's summary, device beside model, one table per probe
    (docs/calibration.md carries them; tests/test_mobile_probes.py keeps the two the same)."""
    labels = {q["quantity"]: q["label"] for q in doc.get("quantities", [])}
    points = [p for p in doc.get("points", []) if p.get("model") is not None]
    out = [f"#### {doc['target']} ({doc['tool']}, {doc['device']})", ""]
    for probe in dict.fromkeys(p["probe"] for p in points):
        rows = [p for p in points if p["probe"] == probe]
        out += [f"{labels.get(probe, LABELS.get(probe, probe))} ({rows[0]['unit']}):", "",
                "| x | device | model | error |", "| ---: | ---: | ---: | --- |"]
        for p in rows:
            why = p["excluded"].split(":")[0]
            off = (p["model"] - p["measured"]) / p["measured"] * 100
            err = f"excluded: {why}" if why else f"{off:+.1f} %"
            out.append(f"| {p['x']} | {p['measured']:g} | {p['model']:.4g} | {err} |")
        out.append("")
    return "\n".join(out)


SUITES = Path(__file__).resolve().parents[2] / "tests" / "data" / "mobile"


def main(argv: list[str] | None = None) -> None:
    """Print every suite's agreement, or write the report's summaries (``--write-summary``)."""
    import argparse

    from tracekit.report.methods import PROBE_SUMMARY_DIR

    ap = argparse.ArgumentParser(description="the mobile probe suites, model beside device")
    ap.add_argument(
        "suites", nargs="*", type=Path, help="suite.json files (default: tests/data/mobile/*/suite.json)"
    )
    ap.add_argument(
        "--write-summary", action="store_true", help="write tracekit/report/calibration_probes_*.json"
    )
    opts = ap.parse_args(argv)
    for path in opts.suites or sorted(SUITES.glob("*/suite.json")):
        a = compare_probes(path)
        print(f"{a.suite.name} on {a.suite.target}:")
        print(a.stats.to_string(index=False))
        if opts.write_summary:
            out = PROBE_SUMMARY_DIR / f"calibration_probes_{a.suite.name}.json"
            out.write_text(json.dumps(summary(a), indent=1, sort_keys=True) + "\n")
            print(f"wrote {out}")


if __name__ == "__main__":
    main()
