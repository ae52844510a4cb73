"""Constant loads served by a constant cache (``constant_loads``, ``[constant_cache]``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from analyzers.replay.memory import replay_memory
from tracekit.errors import TargetError
from tracekit.targets import load_target

BASE = 1 << 28
TABLE = BASE + (1 << 24)   # a 16 KiB __constant table, walked by every work-item
ITEMS, ENTRIES = 256, 1024


def _mri_like() -> pd.DataFrame:
    """MRI-Q's pattern on one work-group: each item loads its own x, then all 1024 float4 of a
    constant table in order (every lane the same address), then stores its own result."""
    rows = []
    item = np.arange(ITEMS)
    rows.append(pd.DataFrame({"item": item, "seq": 0, "site": 1, "space": "global", "op": "load",
                              "address": BASE + 4 * item, "size": 4}))
    k = np.arange(ENTRIES)
    rows.append(pd.DataFrame({"item": np.repeat(item, ENTRIES), "seq": 1 + np.tile(k, ITEMS), "site": 2,
                              "space": "constant", "op": "load",
                              "address": TABLE + 16 * np.tile(k, ITEMS), "size": 16}))
    rows.append(pd.DataFrame({"item": item, "seq": ENTRIES + 1, "site": 3, "space": "global", "op": "store",
                              "address": BASE + (1 << 20) + 4 * item, "size": 4}))
    df = pd.concat(rows).sort_values(["item", "seq"], kind="stable")
    df.insert(0, "group", 0)
    df.insert(0, "launch", 0)
    df.insert(0, "kernel", "computeQ")
    return df.astype({"address": np.uint64, "size": np.uint16}).reset_index(drop=True)


@pytest.fixture(scope="module")
def h200():
    return load_target("nvidia-h200")


def test_constant_loads_skip_the_l1_on_the_h200(h200):
    rep = replay_memory(_mri_like(), h200, group_sizes={0: ITEMS})
    l1, l2 = rep.caches
    # the L1 sees the global load and store only: 8 warps x 4 sectors each, every load a miss
    assert l1.load_hits + l1.load_misses == ITEMS * 4 // 32
    assert l1.load_hits == 0
    [const] = rep.constant_caches
    lines = ENTRIES * 16 // h200.constant_cache.line_bytes
    assert const.misses == lines  # the 16 KiB table fits: each line is missed once
    assert const.hits == 8 * ENTRIES - lines  # 8 warps x 1024 uniform loads, one line lookup each
    # a constant miss reads its whole 64-byte line (two sectors) from the L2, missing there once
    sectors = h200.constant_cache.line_bytes // 32
    assert l2.load_misses == lines * sectors + ITEMS * 4 // 32
    assert rep.dram_bytes_read == (lines * sectors + ITEMS * 4 // 32) * 32


def test_through_the_caches_the_same_loads_fill_the_l1(h200):
    plain = dataclasses.replace(h200, constant_loads="caches", constant_cache=None)
    rep = replay_memory(_mri_like(), plain, group_sizes={0: ITEMS})
    l1 = rep.caches[0]
    assert rep.constant_caches == []
    # the picture before the constant cache: the table's reuse counted as L1 hits (MRI-Q 98 %)
    assert l1.load_hits / (l1.load_hits + l1.load_misses) > 0.9


@pytest.mark.parametrize("edit,message", [
    (lambda s: s.replace('constant_loads = { value = "constant_cache"', 'constant_loads = { value = "caches"',
                         1),
     r"key 'constant_cache': a \[constant_cache\] section needs constant_loads"),
    (lambda s: s.replace('next = { value = "L2"', 'next = { value = "L3"', 1),
     r"key 'constant_cache\.next': must name a level of \[\[caches\]\]; got 'L3', levels: L1, L2"),
    (lambda s: s[:s.index("[constant_cache]")] + s[s.index("[local_memory]"):],
     r'constant_loads = "constant_cache" needs a \[constant_cache\] section'),
])
def test_constant_cache_errors_name_the_key(tmp_path, edit, message):
    src = (load_target.__globals__["TARGET_DIR"] / "nvidia-h200.toml").read_text()
    path = tmp_path / "bad.toml"
    path.write_text(edit(src))
    with pytest.raises(TargetError, match=message):
        load_target(path)


def test_a_second_run_starts_from_the_lines_the_first_left(h200):
    """A unit's constant cache keeps the table across the groups it runs (analyzers.replay.warm_sample)."""
    from analyzers.replay.constant_cache import ConstantCache

    first, second = ConstantCache(h200), ConstantCache(h200)
    lines = np.arange(0, 4096, 64, dtype=np.int64) + TABLE
    n = len(lines)
    args = (lines, np.zeros(n, np.int64), np.zeros(n, np.int64), np.ones(n, bool), 32)
    kept = first.filter(*args)[0]
    assert len(kept) == n and first.counts.tolist() == [0, n]  # cold: every line missed
    second.carry(first)
    assert second.counts.tolist() == [0, 0]
    assert len(second.filter(*args)[0]) == 0 and second.counts.tolist() == [n, 0]
