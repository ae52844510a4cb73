"""The regroup what-if: items that take the same path share a wave, each keeping its own work.

On the bundled ``divergent_branch`` sample odd and even items take different paths, so
every wave of PowerVR (32 lanes) and Intel (16) runs both; regrouped inside the
work-group of 64, each wave runs one.  A wave of Adreno (64 lanes here) holds the whole
work-group, so there is nothing to regroup; a kernel without divergence is left as it is.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analyzers.whatif import parse_change, what_if
from analyzers.whatif.regroup import Regroup
from analyzers.whatif.replay import Replays
from tracekit.formats import open_trace

SAMPLES = Path(__file__).resolve().parents[1] / "sample_traces"


def _divergent_sites(launch) -> list[int]:
    ins = launch.per_item().instructions
    per_item = ins.groupby(["group", "item", "site"])["count"].sum().unstack(fill_value=0)
    varies = per_item.columns[per_item.nunique() > 1]
    return [int(s) for s in varies]


def test_every_item_keeps_its_work_and_addresses_and_waves_run_one_path():
    launch = Replays(open_trace(SAMPLES / "divergent_branch.tkt")).head(0).per_item()   # one row an item
    sites = _divergent_sites(launch)
    assert sites
    after = Regroup(tuple(sites)).apply(launch, None)
    # the same accesses and counts, handed to other local ids inside the same work-groups
    for col in ("group", "address", "site", "op"):
        assert sorted(after.accesses[col].tolist()) == sorted(launch.accesses[col].tolist())
    before_items = launch.instructions.groupby(["group", "item"])["count"].sum()
    after_items = after.instructions.groupby(["group", "item"])["count"].sum()
    assert sorted(before_items) == sorted(after_items)
    assert set(after_items.index) == set(before_items.index)
    # each item's address moves with it
    pairs = launch.accesses.groupby(["group", "item"])["address"].apply(tuple)
    assert sorted(pairs) == sorted(after.accesses.groupby(["group", "item"])["address"].apply(tuple))

    def paths_per_wave(ins, width):
        """Distinct paths (each item's counts at the divergent sites) in each wave of ``width`` lanes."""
        counts = ins[ins["site"].isin(sites)].groupby(["group", "item", "site"])["count"].sum()
        path = counts.unstack(fill_value=0).astype(str).agg(",".join, axis=1).rename("path").reset_index()
        path["wave"] = path["item"] // width
        return path.groupby(["group", "wave"])["path"].nunique()

    assert paths_per_wave(launch.instructions, 32).max() == 2
    assert paths_per_wave(after.instructions, 32).max() == 1


@pytest.mark.parametrize(("target", "gains"), [("powervr-g6400", True), ("intel-hd530", True),
                                               ("adreno-640", False)])
def test_regrouping_gains_where_a_wave_is_narrower_than_the_work_group(target, gains):
    trace = open_trace(SAMPLES / "divergent_branch.tkt")
    sites = _divergent_sites(Replays(trace).head(0))
    (w,) = what_if(trace, target, Regroup(tuple(sites)))
    if gains:
        assert w.gain_fraction > 0.3 and w.after.alu.time_s < w.before.alu.time_s
    else:
        assert w.gain_fraction == pytest.approx(0.0, abs=1e-9)


def test_no_divergence_is_no_change():
    trace = open_trace(SAMPLES / "all_lanes_branch.tkt")
    launch = Replays(trace).head(0)
    assert Regroup().apply(launch, None) is launch
    (w,) = what_if(trace, "powervr-g6400", "regroup")
    assert w.gain_fraction == 0


def test_text_form():
    assert parse_change("regroup=9,4") == Regroup((9, 4))
    assert parse_change("regroup").spec == "regroup"
    assert Regroup((3, 5)).spec == "regroup=3,5"
    assert np.all(np.asarray(Regroup((3,)).sites) == 3)
