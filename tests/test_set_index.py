"""Cache set indexing: modulo against the XOR-folded hash (``caches[].index``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from analyzers.replay.cache import CacheHierarchy
from analyzers.replay.cache_kernels import set_index
from analyzers.replay.memory import replay_memory
from tracekit.errors import TargetError
from tracekit.targets import load_target
from tracekit.targets.model import CacheLevel

BASE = 1 << 28


def _sets_of(expr_sets: int, index: str, lines: np.ndarray) -> np.ndarray:
    """Evaluate the generated set expression on ``lines`` (the same text the kernels compile)."""
    expr = set_index(expr_sets, index, 7, "line")
    return np.array([eval(expr, {}, {"line": int(x)}) for x in lines])


@pytest.mark.parametrize("sets", [384, 512])
def test_xor_spreads_power_of_two_pitches_that_modulo_piles_up(sets):
    # lines 16 KiB apart (a 4096-float row pitch, 128-byte lines): modulo uses a handful of sets
    lines = np.arange(512) * (16384 // 128)
    assert len(set(_sets_of(sets, "modulo", lines))) <= 4
    assert len(set(_sets_of(sets, "xor", lines))) >= min(sets, 512) // 2
    # consecutive lines still take consecutive sets' worth of variety under both
    seq = np.arange(sets)
    assert len(set(_sets_of(sets, "modulo", seq))) == sets
    assert len(set(_sets_of(sets, "xor", seq))) > sets // 2


def _row_walk(levels, lanes=512, pitch=16384, row_bytes=1024, passes=4):
    """Lanes each read their own row at ``pitch`` four times, in lock step (one CU)."""
    h = CacheHierarchy(levels, 1)
    words = np.arange(row_bytes // 4)
    addr = (BASE + np.arange(lanes)[None, None, :] * pitch + 4 * words[None, :, None]
            + np.zeros((passes, 1, 1), np.int64)).reshape(-1)
    h.access(addr, lengths=4)
    return {s.level: s.hit_rate for s in h.stats()}


def test_power_of_two_row_walk_thrashes_under_modulo_not_under_xor():
    l1 = CacheLevel("L1", "compute_unit", 196608, 128, 4, sector_bytes=32, write_policy="write_through",
                    write_allocate=False)
    l2 = CacheLevel("L2", "shared", 1 << 22, 128, 16, sector_bytes=32)
    modulo = _row_walk([l1, l2])
    hashed = _row_walk([dataclasses.replace(l1, index="xor"), dataclasses.replace(l2, index="xor")])
    # modulo: the 512 rows' lines fall into 3 of 384 L1 sets, each line is lost before its next word
    assert modulo["L1"] < 0.05
    # the hash keeps every line until its eight words are read: 7 of 8 sector reads hit
    assert hashed["L1"] == pytest.approx(7 / 8, abs=0.005)
    # a 512-line working set fits the 1536-line L1 when its sets are used: under modulo only with
    # a pitch that is an odd number of lines
    assert _row_walk([l1, l2], pitch=16384 + 128)["L1"] == pytest.approx(7 / 8, abs=0.005)


def _pitch_probe(pitch_floats: int, lanes=512, cols=256, reps=4) -> pd.DataFrame:
    """probes.cu pitch_walk for one block of ``lanes``: lane l sums row l (cols floats) reps times."""
    item = np.repeat(np.arange(lanes), reps * cols)
    seq = np.tile(np.arange(reps * cols), lanes)
    col = seq % cols
    n = len(item)
    return pd.DataFrame({
        "kernel": "pitch_walk", "launch": 0, "group": np.zeros(n, np.int64), "item": item, "site": 1,
        "seq": seq, "space": "global", "op": "load",
        "address": (BASE + (item * pitch_floats + col) * 4).astype(np.uint64), "size": np.uint16(4)})


#: PROBES.md, pitch sweep table: measured L1 sector hit rate and L2 read hit rate per pitch (floats)
PROBE = {4096: (0.875, 0.778), 4097: (0.862, 0.785)}


@pytest.mark.parametrize("pitch", sorted(PROBE))
def test_h200_model_reproduces_the_pitch_probe(pitch):
    """One 512-lane block of the probe on the H200 model: its hit rates within a point or a few."""
    from tracekit.calibration.calibrate import counted_load_hit_rate

    h200 = load_target("nvidia-h200")
    rep = replay_memory(_pitch_probe(pitch), h200, group_sizes={0: 512})
    levels = {c.level: c for c in rep.caches}
    l1 = levels["L1"].load_hits / (levels["L1"].load_hits + levels["L1"].load_misses)
    # the L2 as ncu counts reads: the first pass hits half its sectors (64-byte fetches), the
    # other three all, and half the sectors fetched are looked up again in the other partition
    l2 = counted_load_hit_rate({"level": "L2", "load_hits": levels["L2"].load_hits,
                                "load_misses": levels["L2"].load_misses}, h200, rep.dram_bytes_read)
    assert l1 == pytest.approx(PROBE[pitch][0], abs=0.01)
    assert l2 == pytest.approx(PROBE[pitch][1], abs=0.05)  # the model: 3.5 of 4.5 lookups, 0.778


def test_h200_model_under_modulo_would_thrash_the_probe():
    t = load_target("nvidia-h200")
    mod = dataclasses.replace(t, caches=tuple(dataclasses.replace(c, index="modulo") for c in t.caches))
    rep = replay_memory(_pitch_probe(4096), mod, group_sizes={0: 512})
    l1 = next(c for c in rep.caches if c.level == "L1")
    assert l1.load_hits / (l1.load_hits + l1.load_misses) < 0.1


def test_unknown_index_is_refused(tmp_path):
    src = (load_target.__globals__["TARGET_DIR"] / "nvidia-h200.toml").read_text()
    bad = src.replace('index = { value = "xor"', 'index = { value = "prime"', 1)
    path = tmp_path / "bad.toml"
    path.write_text(bad)
    with pytest.raises(TargetError, match=r"caches\.L1\.index.*modulo, xor"):
        load_target(path)
    with pytest.raises(TargetError, match="index must be one of"):
        CacheHierarchy([CacheLevel("L1", "shared", 4096, 64, 4, index="prime")])


def test_every_shipped_cache_level_states_its_index():
    from tracekit.targets import list_targets
    for name in list_targets():
        t = load_target(name)
        for c in t.caches:
            key = f"caches.{c.name}.index"
            assert key in t.sources, key  # a citation or an assumption, never a silent default
        assert all(c.index in ("modulo", "xor") for c in t.caches)
    h200 = load_target("nvidia-h200")
    assert [c.index for c in h200.caches] == ["xor", "xor"]
    assert "PROBES.md" in h200.sources["caches.L1.index"]
