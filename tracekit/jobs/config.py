"""The jobs file: which traces to turn into reports, on which targets, and where.

A jobs file is TOML (docs/jobs.md).  It is read strictly: an unknown key, a
wrong type or an input folder that does not exist is an error naming the line,
because the person reading the message is looking at a cron job that stopped
working and wants the line to fix.  ``tomllib`` reports line numbers only for
syntax errors, so :class:`KeyLines` finds a key's line in the text itself.
"""

from __future__ import annotations

import glob
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from tracekit.errors import TracekitError

FORMATS = ("json", "html", "pdf")
DEFAULT_LEDGER = "tracekit-ledger.sqlite"
DEFAULT_THRESHOLD = 0.10
TOP_KEYS = {"ledger": str, "jobs": dict}
#: key -> (expected type(s), required)
JOB_KEYS: dict[str, tuple[type | tuple[type, ...], bool]] = {
    "inputs": (list, True),
    "targets": (list, True),
    "output": (str, True),
    "formats": (list, False),
    "regression_threshold": ((int, float), False),
    "metrics": (list, False),
    "baseline": (str, False),
}
#: Numeric keys of a job -> (smallest, largest, what the number means).  Every numeric value
#: is checked against its range on load: a NaN or infinity would compare false with
#: everything and so switch a check off without a word.
NUMBER_RANGES: dict[str, tuple[float, float, str]] = {
    "regression_threshold": (0.0, 100.0, "a fraction of the baseline: 0.1 is 10 %"),
}
BASELINES = ("kernel", "trace")
_GLOB_CHARS = re.compile(r"[*?\[]")
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_PART = r"""(?:[A-Za-z0-9_\-]+|"[^"]*"|'[^']*')"""
_KEY = re.compile(rf"^\s*({_PART}(?:\s*\.\s*{_PART})*)\s*=")


class JobsFileError(TracekitError):
    """A jobs file that cannot be used as written."""


def _split_dotted(text: str) -> tuple[str, ...]:
    parts = re.findall(r"\"[^\"]*\"|'[^']*'|[^.\s]+", text)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


class KeyLines:
    """Maps a dotted key path (``("jobs", "nightly", "inputs")``) to its line in the text.

    A line-oriented scan that understands table headers, dotted keys and
    multi-line strings; good enough to point at a key, which is all it is for.
    """

    def __init__(self, text: str):
        self.lines: dict[tuple[str, ...], int] = {}
        table: tuple[str, ...] = ()
        in_string = None
        for no, line in enumerate(text.splitlines(), start=1):
            if in_string:
                if in_string in line:
                    in_string = None
                continue
            m = _HEADER.match(line)
            if m and "=" not in m.group(1):
                table = _split_dotted(m.group(1))
                self.lines.setdefault(table, no)
                continue
            m = _KEY.match(line)
            if m:
                key = table + _split_dotted(m.group(1))
                self.lines.setdefault(key, no)
                for i in range(len(table) + 1, len(key)):
                    self.lines.setdefault(key[:i], no)
                rest = line[m.end():]
                for quote in ('"""', "'''"):
                    if rest.count(quote) % 2 == 1:
                        in_string = quote

    def line(self, *key: str) -> int | None:
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return None


@dataclass(frozen=True)
class Job:
    """One job: input folders or globs, targets, report formats, output folder."""

    name: str
    inputs: tuple[str, ...]
    targets: tuple[str, ...]
    output: Path
    formats: tuple[str, ...] = ("json",)
    regression_threshold: float = DEFAULT_THRESHOLD
    metrics: tuple[str, ...] = ()
    baseline: str = "kernel"
    base_dir: Path = field(default=Path("."))

    def discover(self) -> list[Path]:
        """The traces this job covers right now, sorted, each listed once.

        A folder contributes its ``*.tkt`` directories and ``*.parquet`` files
        (not recursively: use a ``**`` glob for that); a glob contributes its
        matches that look like traces; a path to a trace is itself.
        """
        found: dict[Path, None] = {}
        for spec in self.inputs:
            path = self.base_dir / spec
            if _GLOB_CHARS.search(spec):
                matches = sorted(Path(p) for p in glob.glob(str(path), recursive=True))
                for p in matches:
                    if _is_trace_path(p):
                        found[p.resolve()] = None
            elif _is_trace_path(path):
                found[path.resolve()] = None
            elif not path.is_dir():
                raise JobsFileError(f"input '{spec}' of job '{self.name}' is gone (looked for {path})")
            else:
                for p in sorted(path.iterdir()):
                    if _is_trace_path(p) and not p.name.startswith("."):
                        found[p.resolve()] = None
        return sorted(found)


@dataclass(frozen=True)
class JobsFile:
    path: Path
    ledger: Path
    jobs: tuple[Job, ...]

    def job(self, name: str) -> Job:
        for j in self.jobs:
            if j.name == name:
                return j
        raise JobsFileError(f"no job named '{name}' (jobs: {', '.join(j.name for j in self.jobs)})",
                            path=str(self.path))


def _is_trace_path(p: Path) -> bool:
    return (p.suffix == ".tkt" and p.is_dir()) or (p.suffix == ".parquet" and p.is_file())


def load_jobs(path: str | Path, *, check_targets: bool = True) -> JobsFile:
    """Read and check a jobs file; every problem names the file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise JobsFileError(f"cannot read the jobs file ({exc.strerror})", path=str(path)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise JobsFileError(f"not valid TOML: {exc}", path=str(path)) from None
    lines = KeyLines(text)
    # Everything in the file is relative to the file's own folder, made absolute here so
    # that nothing a run stores depends on the folder it was started from.
    base = path.absolute().parent

    def fail(message: str, *key: str) -> JobsFileError:
        no = lines.line(*key)
        where = f"{path}:{no}" if no else str(path)
        return JobsFileError(f"{where}: {message}")

    for key, value in data.items():
        if key not in TOP_KEYS:
            raise fail(f"unknown key '{key}' (expected one of: {', '.join(TOP_KEYS)})", key)
        if not isinstance(value, TOP_KEYS[key]):
            raise fail(f"'{key}' must be a {_type_name(TOP_KEYS[key])}", key)
    jobs_table = data.get("jobs")
    if not jobs_table:
        raise JobsFileError("no jobs: add at least one [jobs.NAME] table", path=str(path))
    ledger = base / data.get("ledger", DEFAULT_LEDGER)
    jobs = [_parse_job(name, table, base, fail, check_targets) for name, table in jobs_table.items()]
    return JobsFile(path=path, ledger=ledger, jobs=tuple(jobs))


def _type_name(t) -> str:
    names = {str: "string", dict: "table", list: "list", int: "number", float: "number", bool: "boolean"}
    if isinstance(t, tuple):
        return " or ".join(dict.fromkeys(names[x] for x in t))
    return names[t]


def _parse_job(name: str, table, base: Path, fail, check_targets: bool) -> Job:
    from tracekit.jobs.metrics import KEY_METRICS

    if not isinstance(table, dict):
        raise fail(f"job '{name}' must be a table ([jobs.{name}])", "jobs", name)
    for key, value in table.items():
        if key not in JOB_KEYS:
            raise fail(f"unknown key '{key}' in job '{name}' (expected one of: {', '.join(JOB_KEYS)})",
                       "jobs", name, key)
        kind = JOB_KEYS[key][0]
        if key in NUMBER_RANGES:
            check_number(key, value, name, fail)
        elif not isinstance(value, kind) or isinstance(value, bool):
            raise fail(f"'{key}' in job '{name}' must be a {_type_name(kind)}", "jobs", name, key)
        if kind is list and not all(isinstance(v, str) for v in value):
            raise fail(f"'{key}' in job '{name}' must be a list of strings", "jobs", name, key)
    for key, (_, required) in JOB_KEYS.items():
        if required and key not in table:
            raise fail(f"job '{name}' has no '{key}'", "jobs", name)
    if not table["inputs"]:
        raise fail(f"'inputs' in job '{name}' is empty", "jobs", name, "inputs")
    for spec in table["inputs"]:
        if not _GLOB_CHARS.search(spec) and not (base / spec).exists():
            raise fail(f"input folder '{spec}' of job '{name}' does not exist (looked for {base / spec})",
                       "jobs", name, "inputs")
        if not _GLOB_CHARS.search(spec) and not (base / spec).is_dir() and not _is_trace_path(base / spec):
            raise fail(f"input '{spec}' of job '{name}' is neither a folder nor a trace",
                       "jobs", name, "inputs")
    targets = tuple(table["targets"])
    if not targets:
        raise fail(f"'targets' in job '{name}' is empty", "jobs", name, "targets")
    if check_targets:
        for t in targets:
            try:
                resolve_target(t, base)
            except TracekitError as exc:
                raise fail(f"target '{t}' of job '{name}': {exc}", "jobs", name, "targets") from None
    formats = tuple(table.get("formats", ["json"]))
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise fail(f"'formats' in job '{name}' must name some of {', '.join(FORMATS)} (got {bad or 'none'})",
                   "jobs", name, "formats")
    threshold = float(table.get("regression_threshold", DEFAULT_THRESHOLD))
    metrics = tuple(table.get("metrics", ()))
    unknown = [m for m in metrics if m not in KEY_METRICS]
    if unknown:
        raise fail(f"unknown metric(s) {', '.join(unknown)} in job '{name}' "
                   f"(known: {', '.join(KEY_METRICS)})", "jobs", name, "metrics")
    baseline = table.get("baseline", "kernel")
    if baseline not in BASELINES:
        raise fail(f"'baseline' in job '{name}' must be one of {', '.join(BASELINES)} (got '{baseline}')",
                   "jobs", name, "baseline")
    output = base / table["output"]
    if (output.exists() or output.is_symlink()) and not output.is_dir():
        raise fail(f"'output' of job '{name}' must be a folder, but {output} is a file "
                   "(or a link to nothing); name a folder for the reports", "jobs", name, "output")
    return Job(name=name, baseline=baseline, inputs=tuple(table["inputs"]), targets=targets,
               output=output,
               formats=formats, regression_threshold=threshold, metrics=metrics or tuple(KEY_METRICS),
               base_dir=base)


def check_number(key: str, value, job: str, fail) -> None:
    """Refuse a numeric value that is not a finite number inside the key's documented range."""
    lo, hi, meaning = NUMBER_RANGES[key]
    # The value as TOML spells it: true, "0.1" (a string), nan, 1e+400 -> inf.
    got = json.dumps(value) if isinstance(value, bool | str) else repr(value)
    message = f"'{key}' in job '{job}' must be a finite number from {lo:g} to {hi:g} ({meaning}); got {got}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(message, "jobs", job, key)
    try:
        number = float(value)
    except OverflowError:   # an integer too large for a float
        number = math.inf
    if not math.isfinite(number) or not lo <= number <= hi:
        raise fail(message, "jobs", job, key)


def resolve_target(spec: str, base: Path):
    """A target by shipped name, or by a TOML path relative to the jobs file."""
    from tracekit.targets import load_target

    if spec.endswith(".toml") or "/" in spec:
        return load_target(str(base / spec))
    return load_target(spec)
