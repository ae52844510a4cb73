"""Numbers of a user's target file outside their plausible range, and files too deep or too big,
are refused on load naming the key and the bound (exit 2), never a traceback or a memory blow-up."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SHIPPED = Path(__file__).resolve().parent.parent / "tracekit" / "targets" / "adreno-640.toml"


def with_value(text: str, key_pattern: str, value: str) -> str:
    """``text`` with the first sourced value of the key matching ``key_pattern`` set to ``value``."""
    new, n = re.subn(rf"^({key_pattern} = \{{ value = )[^,]+", rf"\g<1>{value}", text, count=1, flags=re.M)
    assert n == 1, key_pattern
    return new


CASES = {
    "clock-huge": (("clock_mhz", "1e300"), "key 'clock_mhz': must be from 1 to 100,000, got 1e+300"),
    "clock-tiny": (("clock_mhz", "1e-300"), "key 'clock_mhz': must be from 1 to 100,000, got 1e-300"),
    "compute-units": (("compute_units", "1000000000000"), "key 'compute_units': must be at most 65,536"),
    "cache-pib": (("size_bytes", str(2**50)), "size_bytes': must be at most 268,435,456"),
    "dram-latency-tiny": (("latency_ns", "1e-300"), "latency_ns': must be from"),
    "bandwidth-huge": (("bandwidth_gb_per_s", "1e30"), "bandwidth_gb_per_s': must be from"),
    "cycles-huge": (("latency_cycles", "1e200"), "latency_cycles': must be"),
    "alu-price-huge": (("fp32_add", "1e300"), "key 'alu_cycles.fp32_add': must be"),
    "simd-width": (("width", "1048576"), "key 'simd.width': must be at most 1,024"),
    "line-bytes": (("line_bytes", "1"), "line_bytes': must be from 4 to 4,096"),
}


@pytest.fixture
def target_file(tmp_path):
    def make(text: str) -> Path:
        p = tmp_path / "mine.toml"
        p.write_text(text)
        return p
    return make


@pytest.mark.parametrize("case", sorted(CASES))
def test_out_of_range_numbers_are_refused_naming_key_and_bound(run_cli, make_trace, target_file, case):
    (key, value), message = CASES[case]
    path = target_file(with_value(SHIPPED.read_text(), key, value))
    r = run_cli("targets", "show", path)
    assert r.code == 2 and message in r.text, r.text
    r = run_cli("analyze", make_trace("vector_add"), "-t", path, "-f", "json")
    assert r.code == 2 and message in r.text and "Traceback" not in r.text, r.text


def test_many_compute_units_with_big_caches_are_refused_by_total_lines(run_cli, target_file):
    # the Adreno 740's file: a 16 KiB texture L1 per compute unit (the 640's measured one is 1 KiB)
    text = with_value(SHIPPED.with_name("adreno-740.toml").read_text(), "compute_units", "65536")
    r = run_cli("targets", "show", target_file(text))
    assert r.code == 2 and "lines over all their instances" in r.text, r.text


@pytest.mark.parametrize("tail", [
    "assumptions = " + "[" * 5000 + "]" * 5000,           # the TOML parser recursion
    "[rule_thresholds]\nx = " + "{a = " * 50 + "1" + "}" * 50,     # parses, but absurdly deep
])
def test_deep_nesting_is_refused(run_cli, target_file, tail):
    r = run_cli("targets", "show", target_file(SHIPPED.read_text() + "\n" + tail + "\n"))
    assert r.code == 2 and "deep" in r.text and "Traceback" not in r.text, r.text


def test_an_oversized_file_is_refused(run_cli, target_file):
    r = run_cli("targets", "show", target_file(SHIPPED.read_text() + "\n#" + "x" * (1 << 20) + "\n"))
    assert r.code == 2 and "larger than 1,048,576 bytes" in r.text, r.text


def test_shipped_targets_stay_inside_the_bounds(run_cli):
    from tracekit.targets import list_targets

    for name in list_targets():
        r = run_cli("targets", "show", name)
        assert r.code == 0, r.text
