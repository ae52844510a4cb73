"""What-ifs about how the launch is handed out: tiles of work-groups (swizzle), a declared size.

``swizzle`` relabels the work-groups of a 2-D grid so they start tile by tile, each group
keeping its own accesses; a 1-D grid has no such order and is refused.  ``declare-size``
records the launch's local size as ``reqd_work_group_size``, which lets PowerVR pack small
work-groups with barriers into one task (the SIMD model's packing).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analyzers.simd import wave_layout
from analyzers.whatif import parse_change, what_if
from analyzers.whatif.changes import Launch
from analyzers.whatif.declare import DeclareSize
from analyzers.whatif.swizzle import Swizzle
from tracekit.errors import TracekitError


def small_launch(groups=(4, 1), local=8, barrier=False) -> Launch:
    """A launch of ``groups`` work-groups (x, y) of ``local`` items: each item loads one float of its
    own (group-major addresses) and adds; with ``barrier`` every item also passes a barrier."""
    gx, gy = groups
    rows, ins = [], []
    for g in range(gx * gy):
        for i in range(local):
            rows.append({"kernel": "k", "launch": 0, "group": g, "item": i, "site": 0, "seq": 0,
                         "space": "global", "op": "load", "address": np.uint64(4096 + 4 * (g * local + i)),
                         "size": 4, "buffer": 0})
            ins.append({"kernel": "k", "launch": 0, "group": g, "item": i, "site": 0, "opclass": "load",
                        "count": 1})
            ins.append({"kernel": "k", "launch": 0, "group": g, "item": i, "site": 1, "opclass": "fp32_add",
                        "count": 1})
            if barrier:
                ins.append({"kernel": "k", "launch": 0, "group": g, "item": i, "site": 2,
                            "opclass": "barrier", "count": 1})
    acc = pd.DataFrame(rows)
    acc["address"] = acc["address"].astype(np.uint64)
    row = {"kernel": "k", "launch": 0, "global_size": [gx * local, gy, 1], "local_size": [local, 1, 1],
           "local_mem_bytes": 0, "build_options": "", "device": None, "source": None,
           "registers_per_item": None, "metadata": {}}
    return Launch(acc, pd.DataFrame(ins), row)


def test_swizzle_starts_groups_tile_by_tile_and_keeps_their_work():
    launch = small_launch(groups=(4, 4))
    after = Swizzle(2).apply(launch, None)
    # the group that now starts second is the one right of the first, then the two below them
    first = after.accesses.groupby("group")["address"].min().sort_index()
    before = launch.accesses.groupby("group")["address"].min().sort_index()
    assert list(first.iloc[:4]) == [before[0], before[1], before[4], before[5]]
    assert first.is_unique
    assert sorted(after.accesses["address"]) == sorted(launch.accesses["address"])
    assert set(after.instructions["group"]) == set(launch.instructions["group"])
    assert Swizzle(4).apply(launch, None) is launch       # one tile is the whole grid: same order


def test_swizzle_needs_a_2d_grid_and_a_tile():
    with pytest.raises(TracekitError, match="one row or column"):
        Swizzle(4).apply(small_launch(groups=(8, 1)), None)
    with pytest.raises(TracekitError, match="2 work-groups or more"):
        parse_change("swizzle=1")
    assert parse_change("swizzle=8") == Swizzle(8) and parse_change("swizzle").spec == "swizzle=4"


def test_declared_size_lets_small_groups_with_barriers_share_a_task():
    from analyzers.geometry import launch_geometries
    from analyzers.whatif.replay import launch_trace
    from tracekit.targets import load_target

    target = load_target("powervr-g6400")
    launch = small_launch(groups=(16, 1), local=8, barrier=True)
    layouts = []
    for ln in (launch, DeclareSize().apply(launch, target)):
        (geo,), _ = launch_geometries(launch_trace(ln, _sites()))
        layouts.append(wave_layout(geo, target))
    assert not layouts[0].packed and layouts[0].packing_blocked_by_barrier
    assert layouts[1].packed
    assert DeclareSize().apply(DeclareSize().apply(launch, target), target).row == \
        DeclareSize().apply(launch, target).row


def _sites():
    import pyarrow as pa

    from tracekit.trace import store
    return store.conform(pa.table({"kernel": ["k"], "site": pa.array([0], pa.int32())}), "sites")


def test_what_if_text_reaches_the_new_changes():
    assert isinstance(parse_change("declare-size"), DeclareSize)
    assert parse_change("swizzle=2+declare-size").spec == "swizzle=2+declare-size"
    assert callable(what_if) and isinstance(small_launch(), Launch)
    assert np.array_equal(pd.unique(small_launch(groups=(2, 2)).accesses["group"]), [0, 1, 2, 3])
