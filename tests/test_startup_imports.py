"""The quick commands import only what they use (bench/bench_startup.py measures the time).

Each command runs in a fresh interpreter, which then reports the modules it loaded:
``--help`` and ``targets`` load no array library at all; ``validate`` and ``info``
load pyarrow (and what pyarrow itself pulls in) but no model, numba or report code.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TRACE = Path(__file__).resolve().parents[1] / "sample_traces" / "vector_add.tkt"
PROBE = """
import json, sys
from tracekit.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""
HEAVY = ("numba", "analyzers", "tracekit.report", "tracekit.pipeline", "jinja2", "weasyprint", "dask")


def loaded(*args: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), proc.stderr
    return {m.split(".")[0] if not m.startswith("tracekit.") else m for m in report["modules"]}


def _top(mods: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in mods)


@pytest.mark.parametrize("args", [["--help"], ["targets", "list"], ["targets", "show", "intel-hd530"]])
def test_help_and_targets_load_no_array_library(args):
    mods = loaded(*args)
    for name in ("pyarrow", "pandas", "numpy", *HEAVY):
        assert not _top(mods, name), f"`tracekit {' '.join(args)}` imported {name}"


@pytest.mark.parametrize("command", ["validate", "info"])
def test_validate_and_info_load_no_models(command):
    mods = loaded(command, str(TRACE))
    assert _top(mods, "pyarrow")
    for name in HEAVY:
        assert not _top(mods, name), f"`tracekit {command}` imported {name}"
