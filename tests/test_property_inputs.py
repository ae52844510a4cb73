"""Generated launch metadata and mutated target files through `validate` and `analyze`.

Whatever the numbers, a run ends with exit 0 and consistent results (finite, non-negative
times; the sampling counts the analysis used agree with the grid) or exit 2 and a message,
never exit 1 or a traceback; and `analyze` accepts a trace exactly when `validate` does.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pyarrow as pa
from conftest import access_pattern, sites_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracekit.trace.store import conform, write_trace

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
SHIPPED = Path(__file__).resolve().parent.parent / "tracekit" / "targets" / "adreno-640.toml"

# -- values a hand-edited or damaged file may hold -----------------------------------------------
ODD_INTS = st.sampled_from([0, 1, 2, 3, 4, 8, 16, 1000, -1, -4, 2**31, 2**62, 2**63 - 1])
ODD_VALUES = st.one_of(ODD_INTS, st.sampled_from([0.5, 4.0, math.nan, math.inf, -math.inf, 1e300]),
                       st.sampled_from(["4", "", None, True, [4], {"n": 4}]))


@st.composite
def launch_rows(draw):
    """Sizes and a metadata object: sometimes consistent with the rows (4 groups of 64), often not."""
    groups = draw(st.sampled_from([4, 4, 8, 1, 1024]))
    global_size = [draw(st.sampled_from([64 * groups, 64 * groups, 256, 2**40, 2**62])), 1,
                   draw(st.sampled_from([1, 1, 3, 2**40]))]
    local_size = [draw(st.sampled_from([64, 64, 32, 128, 2**20])), 1, 1]
    sampling = {}
    for key in ("mode", "total_groups", "groups_recorded", "n", "k", "seed", "scale"):
        if draw(st.booleans()):
            sampling[key] = (draw(st.sampled_from(["all", "first", "every", "random", "subset", 3]))
                             if key == "mode" else draw(ODD_VALUES))
    meta = {}
    if draw(st.booleans()):
        meta["sampling"] = sampling if draw(st.integers(0, 9)) else draw(ODD_VALUES)
    if draw(st.booleans()):
        meta["num_groups"] = draw(st.lists(ODD_INTS, min_size=0, max_size=4))
    return global_size, local_size, meta


def _write(path: Path, global_size, local_size, meta) -> Path:
    acc = access_pattern("vector_add", global_size=256, local_size=64)
    rows = conform(pa.table({
        "kernel": ["vector_add"], "launch": pa.array([0], pa.int32()), "global_size": [global_size],
        "local_size": [local_size], "local_mem_bytes": [0], "metadata": [json.dumps(meta)]}), "launches")
    write_trace(path, acc, launches=rows, sites=sites_for(acc), layout="tkt")
    return path


def _no_traceback(r) -> None:
    assert r.code in (0, 2), r.text
    assert "Traceback" not in r.text, r.text
    if r.code == 2:
        assert "error" in r.text.lower(), r.text


def _consistent(doc: dict) -> None:
    """Every launch result of an analysis document: finite, non-negative, counts agreeing."""
    for target in doc["targets"].values():
        for launch in target["launches"]:
            if launch["error"]:
                continue
            total = launch["time_estimates"]["total_s"]
            assert math.isfinite(total) and total >= 0, launch["time_estimates"]
            for key, value in launch["time_estimates"].items():
                if isinstance(value, float):
                    assert math.isfinite(value) and value >= 0, (key, value)
            geo = launch["geometry"]
            s = geo["sampling"]
            assert 1 <= s["groups_recorded"] <= s["total_groups"] == geo["work_groups"], geo
            assert math.isclose(s["scale"], s["total_groups"] / s["groups_recorded"]), geo


@SETTINGS
@given(row=launch_rows())
def test_generated_launch_metadata(tmp_path, run_cli, row):
    trace = _write(tmp_path / "t.tkt", *row)
    v = run_cli("validate", trace)
    _no_traceback(v)
    a = run_cli("analyze", trace, "-t", "adreno-640", "-f", "json")
    _no_traceback(a)
    assert (v.code == 0) == (a.code == 0), (v.text, a.text)
    if a.code == 0:
        _consistent(json.loads(a.out))


# -- target files --------------------------------------------------------------------------------
TOML_VALUES = ["0", "-1", "nan", "inf", "-inf", "1e300", "1e-300", "9223372036854775807",
               "99999999999999999999", "0.5", "3", '"text"', "true", "[1]", "{}", "1_000_000_000_000"]
#: ``key = { value = X`` at the start of a line: the key's name and where its value is.
VALUE_RE = re.compile(r"^\s*(\w+) = \{ value = ([^,}]+)", re.M)
#: Keys that size what the models allocate or divide by: drawn as often as all the others.
SIZING = ("compute_units", "clock_mhz", "size_bytes", "line_bytes", "ways", "width", "banks",
          "bandwidth_gb_per_s", "latency_ns", "max_waves_per_cu", "max_work_group_size", "transaction_bytes")


@st.composite
def target_texts(draw):
    """The shipped adreno-640 file with one to three sourced values replaced or their line removed."""
    text = SHIPPED.read_text()
    for _ in range(draw(st.integers(1, 3))):
        spots = list(VALUE_RE.finditer(text))
        sizing = [m for m in spots if m.group(1) in SIZING]
        m = draw(st.sampled_from(sizing if sizing and draw(st.booleans()) else spots))
        if draw(st.integers(0, 5)) == 0:   # a missing key: drop the line
            start, end = text.rfind("\n", 0, m.start(2)) + 1, text.find("\n", m.end(2))
            text = text[:start] + text[end + 1:]
        else:
            text = text[:m.start(2)] + draw(st.sampled_from(TOML_VALUES)) + text[m.end(2):]
    return text


@SETTINGS
@given(text=target_texts())
def test_mutated_target_files(tmp_path, run_cli, make_trace, text):
    path = tmp_path / "mine.toml"
    path.write_text(text)
    trace = tmp_path / "vector_add.tkt"
    if not trace.exists():
        trace = make_trace("vector_add")
    r = run_cli("analyze", trace, "-t", path, "-f", "json")
    _no_traceback(r)
    if r.code == 0:
        _consistent(json.loads(r.out))
