"""The first level priced per request (``cost_unit = "request"``) against the H200's L1 probes."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from analyzers.replay.coalescing import distinct_segments
from analyzers.replay.request_cost import request_cycles
from tracekit.errors import TargetError
from tracekit.targets import load_target

BASE = 1 << 20
LINE = 128

#: PROBES.md "L1 lines": (probe, lines) -> (tag lookups, data wavefronts, cycles per request) measured
PROBE = {
    ("l1_lines", 4): (3.99, 3.99, 4.07), ("l1_lines", 8): (7.97, 7.97, 8.06),
    ("l1_lines", 16): (15.9, 15.9, 16.0), ("l1_lines", 32): (31.9, 31.9, 32.0),
    ("l1_lines_spread", 16): (15.9, 1, 4.08), ("l1_lines_spread", 32): (31.9, 1, 8.06),
    ("l1_lines_v4", 4): (4, 16, 16.1), ("l1_lines_v4", 8): (8, 32, 32.1),
    ("l1_lines_v4", 16): (16, 32, 32.1), ("l1_lines_v4", 32): (32, 32, 32.1),
}


def _request(probe: str, k: int):
    """One warp request of probes.cu's L1 probes: lanes spread over k lines of an 8 KiB region."""
    lane = np.arange(32)
    if probe == "l1_lines":          # word l / k of line l % k: lanes in different lines share banks
        addr, size = BASE + (lane % k) * LINE + 4 * (lane // k), 4
    elif probe == "l1_lines_spread":  # word l of line l % k: no two lanes share a bank
        addr, size = BASE + (lane % k) * LINE + 4 * lane, 4
    else:                             # float4 l / k of line l % k
        addr, size = BASE + (lane % k) * LINE + 16 * (lane // k), 16
    return lane, addr.astype(np.int64), np.full(32, size, np.uint16)


def _cycles(level, probe: str, k: int) -> float:
    lane, addr, size = _request(probe, k)
    order, req_ptr, mask = np.arange(32), np.array([0, 32]), np.array([True])
    _, _, units, unit_ptr = distinct_segments(order, req_ptr, addr, size, 32, mask, 32)
    return float(request_cycles(level, order, req_ptr, lane.astype(np.int32), addr, size, mask, units,
                                unit_ptr, 32)[0])


@pytest.mark.parametrize("probe,k", sorted(PROBE))
def test_h200_l1_cost_per_request_matches_the_probes(probe, k):
    l1 = load_target("nvidia-h200").caches[0]
    tags, waves, measured = PROBE[(probe, k)]
    model = _cycles(l1, probe, k)
    assert model == max(math.ceil(round(tags) / 4), round(waves))  # the two stages, as measured
    assert model == pytest.approx(measured, rel=0.05)  # requests above the ~2.9-cycle issue floor


def test_bytes_do_not_count_lines_and_banks_do():
    """Eight lines in one wavefront cost 2 cycles (32 sectors); 32 lanes on one bank cost 32."""
    l1 = load_target("nvidia-h200").caches[0]
    assert _cycles(l1, "l1_lines_spread", 8) == 2
    assert _cycles(l1, "l1_lines", 32) == 32
    tags_only = dataclasses.replace(l1, data_banks=0)
    assert _cycles(tags_only, "l1_lines", 32) == 8


def test_request_pricing_needs_its_rate(tmp_path):
    src = (load_target.__globals__["TARGET_DIR"] / "nvidia-h200.toml").read_text()
    start = src.index("lines_per_cycle = {")
    bad = src[:start] + src[src.index("\n", start) + 1:]
    path = tmp_path / "no_rate.toml"
    path.write_text(bad)
    with pytest.raises(TargetError, match=r"caches\.L1\.lines_per_cycle.*cost_unit = request"):
        load_target(path)
