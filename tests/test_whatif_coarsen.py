"""The coarsen what-if (several neighbouring elements per work-item) and GEN-ITEM-COARSEN, which it prices.

The kernel is OpenCV's RGBA-to-gray conversion as recorded for the mobile expert suite
(tests/data/expert/mobile/opencv): one pixel per work-item, a 3-byte load (the colour, the
alpha byte skipped) and a 1-byte store.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzers.analyze import resolve_trace
from analyzers.geometry import launch_geometries
from analyzers.whatif import parse_change, what_if
from analyzers.whatif.coarsen import Coarsen, _merge
from analyzers.whatif.replay import head_of_launch
from tracekit.errors import TracekitError

GRAY = Path(__file__).resolve().parent / "data" / "expert" / "mobile" / "opencv" / "traces" / \
    "cvtcolor_rgba2gray_720p.tkt"


@pytest.fixture(scope="module")
def head():
    trace = resolve_trace(GRAY)
    (geo,), _ = launch_geometries(trace)
    return head_of_launch(trace, geo, 40_000)


def test_four_pixels_per_item_read_as_one_vector_and_written_as_one_word(head):
    changed = Coarsen(4).apply(head, None)
    # 40 work-groups of 32 x 8 become 10 of the same shape: the grid's x shrinks four times
    assert changed.row["global_size"][:2] == [320, 720] and changed.row["local_size"][:2] == [32, 8]
    sampling = changed.row["metadata"]["sampling"]
    assert sampling == {"mode": "first", "total_groups": 900, "groups_recorded": 10}
    before, after = head.accesses, changed.accesses
    assert sorted(set(zip(before["op"], before["size"], strict=True))) == [("load", 3), ("store", 1)]
    # four 3-byte colours 4 bytes apart: one 15-byte read (the alpha bytes between them read along);
    # four gray bytes: one 4-byte store
    assert sorted(set(zip(after["op"], after["size"], strict=True))) == [("load", 15), ("store", 4)]
    assert len(after) * 4 == len(before)
    # the bytes the new items read and write cover what the old ones did
    lo = lambda a, op: a.loc[a["op"] == op, "address"].astype(np.int64)  # noqa: E731
    for op in ("load", "store"):
        assert lo(after, op).min() == lo(before, op).min()
    ops = lambda L: L.per_item().instructions.groupby("opclass")["count"].sum()  # noqa: E731
    assert ops(changed)["load"] * 4 == ops(head)["load"]
    # index arithmetic runs once per item: fewer integer multiplies, the same compares (per pixel)
    assert ops(changed)["int_mul"] < ops(head)["int_mul"] and ops(changed)["compare"] == ops(head)["compare"]


def test_windows_merge_a_site_within_one_vector_and_stop_at_its_width():
    acc = pd.DataFrame({"group": [0] * 6, "item": [0] * 6, "site": [1] * 6, "op": ["load"] * 6,
                        "space": ["global"] * 6, "size": [4] * 6, "seq": [0] * 6, "_old_seq": [0] * 6,
                        "_lane": range(6), "address": np.array([0, 4, 8, 8, 16, 40], np.uint64)})
    out, per_site = _merge(acc, 16)
    # 0, 4, 8 and the repeated 8 share one 16-byte window with 12; 16 starts the next; 40 is too far
    assert list(out["address"]) == [0, 16, 40] and list(out["size"]) == [12, 4, 4]
    assert per_site.loc[(1, "load")].tolist() == [6, 3]


def test_the_replay_prices_it_and_the_rule_proposes_it():
    (w,) = what_if(GRAY, "adreno-640", "coarsen=4")
    assert w.after.time_s < w.before.time_s
    from analyzers.rules import run_rules
    from analyzers.rules.gains import price_by_replay
    from tracekit.pipeline import analyze

    analysis = analyze(resolve_trace(GRAY), ["adreno-640", "nvidia-h200"], checklist=False)
    found = price_by_replay(run_rules(analysis.results), analysis.results, analysis.trace,
                            max_accesses=40_000)
    (f,) = [x for x in found if x.rule_id == "GEN-ITEM-COARSEN"]     # a mobile rule: not on the H200
    assert f.target == "adreno-640" and f.gain_method == "replay" and f.estimated_gain_fraction > 0.05
    assert f.evidence["elements_per_item"] == 4 and f.what_if["change"] == "coarsen=4"


def test_bad_values_are_refused():
    for text in ("coarsen=3", "coarsen=x", "coarsen=1"):
        with pytest.raises(TracekitError, match="coarsen"):
            parse_change(text)
    assert parse_change("coarsen") == Coarsen(4)


def test_work_groups_that_do_not_split_are_refused(head):
    odd = head.with_(row={**head.row, "local_size": [6, 8, 1]})
    with pytest.raises(TracekitError, match="do not split"):
        Coarsen(4).apply(odd, None)


def test_a_stream_at_the_dram_rate_gains_nothing_whatever_groups_were_sampled():
    # vector_add's 64 work-groups were drawn at random from 65,536: no run of four neighbours is
    # whole, so each group keeps its place with a quarter of the items; DRAM bytes stay the launch's
    (w,) = what_if(Path(__file__).resolve().parents[1] / "sample_traces" / "vector_add.tkt", "adreno-640",
                   "coarsen=4")
    assert w.before.verdict == w.after.verdict == "memory"
    assert w.after.time_s == pytest.approx(w.before.time_s, rel=1e-6)
    assert w.after.alu.time_s < w.before.alu.time_s


def test_the_what_if_starts_from_the_time_the_analysis_gives():
    # the replay runs the recorded head without the sampled launch's warm-up, so its own "before"
    # can differ from `tracekit analyze`; the document shows the analysis' time and scales the change
    from tracekit import pipeline

    doc = pipeline.what_if_document(GRAY, ["intel-hd530"], "coarsen=4")
    (row,) = doc["targets"]["intel-hd530"]
    (lr,) = pipeline.analyze(GRAY, ["intel-hd530"], checklist=False).results[0].launches
    assert row["time_before_s"] == pytest.approx(lr.time_s, rel=1e-5)
    assert row["verdict_before"] == lr.verdict
    replayed = 1 - row["replayed_after_s"] / row["replayed_before_s"]
    assert 1 - row["time_after_s"] / row["time_before_s"] == pytest.approx(replayed, rel=1e-4)
