"""Gathers get changes a programmer can make: the work sorted by what it gathers, or the texture path.

``gather_index`` (tests/data/kernels) reads ``src[idx[i]]`` with random indices: no
layout of ``src`` can put those reads in wave order, so GEN-UNCOALESCED-LOAD prices
``sort-work`` (the items ordered by the address they gather) instead of ``coalesce``;
a strided copy, whose layout a programmer chooses, keeps ``coalesce``.
"""

from __future__ import annotations

from pathlib import Path

import recorded_kernels as rk

from analyzers.rules import run_rules
from analyzers.rules.gains import price_by_replay
from analyzers.whatif import parse_change
from analyzers.whatif.regroup import SortWork
from analyzers.whatif.replay import Replays
from tracekit.formats import open_trace
from tracekit.pipeline import analyze

SAMPLES = Path(__file__).resolve().parents[1] / "sample_traces"


def _gather_site(trace) -> int:
    acc = next(iter(trace.iter_batches("accesses"))).to_pandas()
    loads = acc[(acc["op"].astype(str) == "load") & (acc["buffer"] == 1)]
    (site,) = loads["site"].unique()
    return int(site)


def test_sorting_hands_the_gathered_addresses_out_in_order_and_leaves_the_rest():
    trace = open_trace(rk.gather_index())
    site = _gather_site(trace)
    launch = Replays(trace).head(0)
    after = SortWork(site).apply(launch, None)
    mine = (launch.accesses["site"] == site).to_numpy()
    assert sorted(after.accesses["address"][mine]) == sorted(launch.accesses["address"][mine])
    assert after.accesses["address"][mine].is_monotonic_increasing      # in (group, item) order
    assert after.accesses[~mine].equals(launch.accesses[~mine])         # the index reads and stores stay
    assert SortWork(site).apply(after, None) is after                   # already sorted: nothing to do
    assert parse_change(f"sort-work={site}") == SortWork(site)


def test_the_gather_is_priced_by_sorting_the_work_and_a_strided_copy_by_its_layout():
    for path, change in ((rk.gather_index(), "sort-work="), (SAMPLES / "strided_copy.tkt", "coalesce=")):
        a = analyze(open_trace(path), ["powervr-g6400", "adreno-640"], checklist=False)
        found = [f for f in price_by_replay(run_rules(a.results), a.results, a.trace)
                 if f.rule_id == "GEN-UNCOALESCED-LOAD"]
        assert found, path
        for f in found:
            assert f.what_if is not None and f.what_if["change"].startswith(change), (path, f.what_if)
            assert f.gain_method == "replay"
            assert f.evidence.get("gather", False) == (change == "sort-work=")
        if change == "sort-work=":
            gains = {f.target: f.estimated_gain_fraction for f in found}
            # sorted, lanes 64 bytes apart: PowerVR's wider lines are shared by two lanes, Adreno's are not;
            # laying the buffer out in wave order (which no programmer can do) claimed 75-85 %
            assert 0.1 < gains["powervr-g6400"] < 0.5 and gains["adreno-640"] < 0.05


def test_the_texture_path_is_advised_for_a_gather_only_where_neighbours_share_elements():
    """GEN-GATHER-IMAGE is a candidate the replay must confirm: 4096 items gathering among 256
    elements hit the texture caches again and again (PowerVR's TPU cache keeps them), among 64 Ki
    they share nothing and the item is dropped."""
    def gather_items(path):
        a = analyze(open_trace(path), ["powervr-g6400"], checklist=False)
        return [f for f in price_by_replay(run_rules(a.results), a.results, a.trace)
                if f.rule_id == "GEN-GATHER-IMAGE"]

    (hot,) = gather_items(rk.gather_index(256))
    assert hot.gain_method == "replay" and hot.what_if["change"] == "gather-image=1"
    assert hot.estimated_gain_fraction > 0.2
    assert gather_items(rk.gather_index(65536)) == []
