"""What-if heads keep the trace's instruction runs: a change applied to the runs gives the rows it
gives applied to one row per work-item.

The kernels are recorded OpenCV image filters of the mobile expert suite
(tests/data/expert/mobile/opencv), whose instruction rows are runs of up to a whole work-group
(medianBlur: 13 K runs for 3.4 M per-item rows).  Coarsening cuts runs at blocks of ``n`` items
(runs that start or end inside a block are merged there as per-item rows are); a new work-group
size cuts them at rows and at the new work-groups' columns; regrouping and staging expand them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzers.geometry import launch_geometries
from analyzers.whatif.changes import WorkGroupSize
from analyzers.whatif.coarsen import Coarsen
from analyzers.whatif.replay import head_of_launch
from tracekit.errors import TracekitError
from tracekit.formats import open_trace
from tracekit.targets import load_target

TRACES = Path(__file__).resolve().parent / "data" / "expert" / "mobile" / "opencv" / "traces"
KEYS = ["group", "item", "site", "opclass"]


@pytest.fixture(scope="module", params=["medianblur_5x5_8uc1_vga", "erode_3x3_8uc1_720p",
                                        "cvtcolor_rgba2gray_720p"])
def head(request):
    trace = open_trace(TRACES / f"{request.param}.tkt")
    (geo,), _ = launch_geometries(trace)
    return head_of_launch(trace, geo, 20_000)


def _rows(launch) -> pd.DataFrame:
    ins = launch.per_item().instructions
    return ins.sort_values(KEYS, kind="stable").reset_index(drop=True)


def _plain(col: pd.Series) -> np.ndarray:
    if isinstance(col.dtype, pd.CategoricalDtype):
        return np.asarray(col.cat.categories.astype(str), dtype=object)[col.cat.codes.to_numpy()]
    return col.to_numpy()


def _same(a: pd.DataFrame, b: pd.DataFrame, what: str) -> None:
    """Column by column, as plain arrays (pandas' own frame comparison boxes every categorical value)."""
    assert list(a.columns) == list(b.columns), what
    assert len(a) == len(b), what
    for c in a.columns:
        x, y = _plain(a[c]), _plain(b[c])
        nan = x.dtype.kind == "f"   # absent values (a buffer-less row) compare equal
        assert np.array_equal(x, y, equal_nan=nan), f"{what}: column {c}"


def test_the_head_keeps_runs(head):
    assert "items" in head.instructions.columns
    assert len(head.per_item().instructions) > 4 * len(head.instructions)


def _changes(head):
    local = [max(int(x), 1) for x in head.row["local_size"]]
    out = [Coarsen(2), Coarsen(4), Coarsen(8)]
    if local[1] % 2 == 0:
        out.append(WorkGroupSize((local[0] * 2, local[1] // 2, 1)))
    if local[0] % 2 == 0:
        out.append(WorkGroupSize((local[0] // 2, local[1] * 2, 1)))
    out.append(WorkGroupSize((local[0] * local[1] // 4 if local[0] * local[1] >= 4 else 1, 4, 1)))
    return list({c.spec: c for c in out}.values())


def test_changes_on_runs_give_the_per_item_rows(head):
    target = load_target("adreno-640")
    tried = 0
    for change in _changes(head):
        if change.name == "coarsen" and int(head.row["local_size"][0]) % change.n:
            continue
        try:
            items = change.apply(head.per_item(), target)
        except TracekitError as e:   # the head holds no whole new work-group: the same refusal
            with pytest.raises(TracekitError, match=str(e)[:30]):
                change.apply(head, target)
            continue
        runs = change.apply(head, target)
        assert "items" in runs.instructions.columns, change.spec           # still runs
        assert len(runs.instructions) < len(items.instructions), change.spec
        _same(_rows(runs), _rows(items), change.spec)
        _same(runs.accesses, items.accesses, change.spec)
        assert runs.row == items.row
        tried += 1
    assert tried >= 3


def test_whole_groups_count_the_items_runs_stand_for():
    """A work-group is whole when every one of its items has a row: a run covers its items, rows of
    accesses and of instructions add up, and a group missing one item is left out."""
    from analyzers.whatif.changes import _whole_groups

    acc = pd.DataFrame({"group": [1, 1, 1, 2, 2, 3], "item": [0, 1, 3, 2, 3, 0]})
    ins = pd.DataFrame({"group": [0, 1, 2, 3], "item": [0, 0, 0, 1], "items": [4, 1, 2, 2]})
    assert _whole_groups([acc, ins], 4).tolist() == [0, 2]
    assert _whole_groups([acc.iloc[0:0], ins.iloc[0:0]], 4).tolist() == []
    assert _whole_groups([ins], 1).tolist() == [0, 1, 2]   # group 3 has no item 0
