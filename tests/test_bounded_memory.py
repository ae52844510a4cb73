"""Memory bounded by the input's size whatever the launch's shape.

A round of work-groups cannot be cut, so a work-item that issues millions of accesses (or
a round of waves with few lanes) is one huge chunk; the replay then forms its requests
whole and replays them in windows of execution order.  The windowed replay must give the
same numbers as the replay in one piece, and the peak memory of such a launch must stay
close to that of a well-shaped launch with as many accesses.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import analyzers.replay.memory as memory
from analyzers.replay.memory import replay_memory
from tracekit.targets.loader import load_target
from tracekit.trace.store import conform

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "bench_hostile.py"


def _table(group, item, site, space, op, address, size=4, kernel="k") -> pa.Table:
    n = len(group)
    codes = lambda v: pa.array(np.broadcast_to(np.asarray(v), (n,))).dictionary_encode()  # noqa: E731
    buffer = np.where(np.broadcast_to(np.asarray(space), (n,)) == "local", -1, 0).astype(np.int32)
    return conform(pa.table({
        "kernel": codes(kernel), "launch": np.zeros(n, np.int32), "group": np.asarray(group, np.int64),
        "item": np.asarray(item, np.int32), "site": np.asarray(site, np.int32),
        "seq": np.zeros(n, np.int64), "space": codes(space), "op": codes(op),
        "address": np.asarray(address, np.uint64), "size": np.broadcast_to(np.uint16(size), (n,)).copy(),
        "buffer": pa.array(buffer, mask=buffer < 0)}), "accesses")


def one_item_loop(n: int = 6000) -> tuple[pa.Table, int]:
    """One work-item walking two buffers in a loop (two load sites), storing every fourth step."""
    k = np.arange(n)
    site = np.where(k % 4 == 3, 2, k % 2)
    op = np.where(site == 2, "store", "load")
    address = np.where(site == 0, 0x10000 + 4 * k,
                       np.where(site == 1, 0x400000 + 256 * (k % 700), 0x800000 + 4 * k))
    return _table(np.zeros(n), np.zeros(n), site, "global", op, address), 1


def divergent_groups(groups: int = 6, items: int = 20) -> tuple[pa.Table, int]:
    """Work-groups whose items issue different numbers of accesses (a data-dependent loop): the
    waves take the sort path of request forming; with local, constant and atomic accesses."""
    rng = np.random.default_rng(3)
    g, i, s, sp, op, a = [], [], [], [], [], []
    for grp in range(groups):
        for it in range(items):
            count = int(rng.integers(5, 60))
            for k in range(count):
                g.append(grp)
                i.append(it)
                if k % 5 == 4:    # local memory: bank conflicts
                    s.append(3), sp.append("local"), op.append("store" if k % 2 else "load")
                    a.append(4 * ((it * 7 + k) % 64))
                elif k % 7 == 6:  # constant loads (a constant cache where the target has one)
                    s.append(4), sp.append("constant"), op.append("load"), a.append(0x900000 + 4 * (k % 16))
                elif k % 11 == 10:  # atomics piling on a few words
                    s.append(5), sp.append("global"), op.append("atomic"), a.append(0xA00000 + 4 * (grp % 3))
                else:
                    s.append(k % 3), sp.append("global"), op.append("load")
                    a.append(0x10000 + 64 * ((grp * items + it) * 61 + 4 * k))
    return _table(g, i, s, np.array(sp), np.array(op), a), items


def _replay(table: pa.Table, target: str, group_size: int) -> memory.MemoryReplay:
    return replay_memory(table, load_target(target), group_sizes={0: group_size})


def _comparable(rep: memory.MemoryReplay) -> dict:
    pats = {k: p.sites.drop(columns=["max_items_one_address"]) for k, p in rep.patterns.items()}
    return {"per_site": rep.per_site, "per_launch": rep.per_launch, "caches": rep.caches,
            "texture": rep.texture_caches, "fills": rep.fills, "patterns": pats,
            "footprint": {k: p.launch.footprint_bytes for k, p in rep.patterns.items()},
            "dram": (rep.dram_bytes_read, rep.dram_bytes_written)}


def _assert_same(a, b, where=""):
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), obj=where)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same(x, y, f"{where}[{k}]")
    else:
        assert a == b, where


@pytest.mark.parametrize("target", ["adreno-640", "powervr-g6400", "nvidia-h200"])
@pytest.mark.parametrize("shape", [one_item_loop, divergent_groups])
def test_windowed_replay_gives_the_numbers_of_the_replay_in_one_piece(monkeypatch, target, shape):
    table, group_size = shape()
    whole = _replay(table, target, group_size)
    monkeypatch.setattr(memory, "WINDOWED_FROM", 500)
    monkeypatch.setattr(memory, "WINDOW_ROWS", 97)
    windowed = _replay(table, target, group_size)
    assert whole.per_launch["requests"].sum() > 97  # the replay really went window by window
    _assert_same(_comparable(whole), _comparable(windowed), target)


def _run_bench(*args: str):
    """Run the benchmark script with ``args``; its own peak resident memory (MB), from ``os.wait4``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(BENCH), *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert os.waitstatus_to_exitcode(status) == 0, err
    return usage.ru_maxrss / 1024


def _analysis_peak_mb(shape: str, accesses: int, tmp_path: Path) -> float:
    path = tmp_path / f"{shape}.parquet"
    _run_bench("--write", shape, str(accesses), str(path))
    return _run_bench("--child", str(path), "adreno-640")


def test_one_work_item_with_a_million_loads_peaks_like_a_well_shaped_launch(tmp_path):
    """One work-item's million loads used to peak at 1.6x a well-shaped launch of as many
    accesses (about 700 bytes per access, growing with the work-item); now within a fifth."""
    hostile = _analysis_peak_mb("one-item", 1_000_000, tmp_path)
    shaped = _analysis_peak_mb("well-shaped", 1_000_000, tmp_path)
    assert hostile < 1.2 * shaped, (hostile, shaped)


@pytest.mark.parametrize("items", [1, 7])
def test_a_what_if_head_stays_within_its_budget_inside_a_huge_work_group(tmp_path, items):
    """A what-if replays a head of whole work-groups; when the first one alone is over the
    budget, the head is its first whole work-items (or the first accesses of its first item),
    not the whole work-group copied into frames."""
    from analyzers.geometry import launch_geometries
    from analyzers.whatif.replay import head_of_launch
    from tracekit.formats import open_trace
    from tracekit.trace.store import write_trace

    n = 60_000
    per = n // items
    k = np.arange(n)
    table = _table(np.zeros(n), k // per, np.zeros(n), "global", "load", 0x10000 + 4 * k)
    table = table.set_column(table.schema.get_field_index("seq"), "seq", pa.array(k % per))
    launches = conform(pa.table({"kernel": ["k"], "launch": pa.array([0], pa.int32()),
                                 "global_size": [[items, 1, 1]], "local_size": [[items, 1, 1]],
                                 "local_mem_bytes": [0]}), "launches")
    trace = open_trace(write_trace(tmp_path / "t.parquet", table, launches=launches))
    (geo,), _ = launch_geometries(trace)
    head = head_of_launch(trace, geo, max_accesses=20_000)
    rows = len(head.accesses)
    assert 0 < rows <= 20_000
    assert rows == (20_000 if items == 1 else 2 * per)  # whole work-items where there are several
