"""stage-local: a gather's window copied into local memory by its work-group (analyzers/whatif/stage.py).

The change is what a programmer writes: a cooperative copy of the window each work-group
gathers from, a barrier, then the gathers read the local copy.  The replay weighs the copy
against the gathers it serves: a 256-entry table read 1,024 times per group gains on every
mobile target, the same table read once per item costs more than it saves, and a window
larger than the target's local memory cannot be staged at all.
"""

from __future__ import annotations

import numpy as np
import pytest
import recorded_kernels as rk

from analyzers.rules import run_rules
from analyzers.rules.gains import price_by_replay
from analyzers.whatif import what_if
from analyzers.whatif.changes import Launch
from analyzers.whatif.replay import head_of_launch
from analyzers.whatif.stage import StageLocal
from tracekit.errors import TracekitError
from tracekit.formats import open_trace
from tracekit.pipeline import analyze
from tracekit.targets import load_target

LOOKUP_SITE = 18   # table[src[...]] in table_lookup.cl
GATHER_SITE = 7    # src[idx[i]] in gather_index.cl
MOBILE = ("powervr-g6400", "adreno-640", "intel-hd530")


def _site(path, text_op="load"):
    import pyarrow.parquet as pq
    acc = pq.read_table(path / "accesses.parquet").to_pandas()
    loads = acc[(acc["space"] == "global") & (acc["op"] == text_op)]
    # the gather: the load site with the fewest distinct addresses per access
    return int(loads.groupby("site")["address"].nunique().idxmin())


def test_sites_are_the_gathers():
    assert _site(rk.table_lookup()) == LOOKUP_SITE
    assert _site(rk.gather_index(256)) == GATHER_SITE


@pytest.mark.parametrize("target", MOBILE)
def test_a_table_gathered_again_and_again_gains_from_staging(target):
    (w,) = what_if(open_trace(rk.table_lookup()), load_target(target), f"stage-local={LOOKUP_SITE}")
    assert w.gain_fraction > 0.25, w.gain_fraction
    assert w.after.memory.per_site.query("site == @LOOKUP_SITE")["space"].tolist() == ["local"]


def test_a_window_read_once_per_item_costs_more_than_it_saves():
    """64 items gather 64 elements of a 256-float window: copying the window moves four times what
    the gathers read, and the replay says the launch gets slower."""
    (w,) = what_if(open_trace(rk.gather_index(256)), load_target("powervr-g6400"),
                   f"stage-local={GATHER_SITE}")
    assert w.gain_fraction < 0


def test_a_window_larger_than_local_memory_is_refused():
    with pytest.raises(TracekitError, match=r"window of \d+ bytes .* more than the 32768 bytes of local"):
        what_if(open_trace(rk.gather_index(65536)), load_target("adreno-640"), f"stage-local={GATHER_SITE}")


def test_the_staged_launch_is_the_copy_the_barrier_and_local_gathers():
    """Counts of the rewritten launch checked against each other: per group one copy load and one
    local store per window element, split over the items in turn; the gathers keep their count and
    read inside the window; one barrier per item; local memory grows by the window."""
    trace = open_trace(rk.table_lookup())
    from analyzers.geometry import launch_geometries
    (geo,), _ = launch_geometries(trace)
    launch = head_of_launch(trace, geo)
    target = load_target("intel-hd530")
    out = StageLocal(LOOKUP_SITE).apply(launch, target)
    acc, new = launch.accesses, out.accesses
    groups = acc["group"].nunique()
    gathers = acc[acc["site"] == LOOKUP_SITE]
    span = gathers.groupby("group")["address"].agg(lambda a: int(a.max()) - int(a.min()) + 4)
    elements = int((span // 4).sum())
    copy_sites = sorted(set(new["site"]) - set(acc["site"]))
    assert len(copy_sites) == 2
    loads = new[new["site"] == copy_sites[0]]
    stores = new[new["site"] == copy_sites[1]]
    assert len(loads) == len(stores) == elements
    assert set(loads["space"]) == {"global"} and set(stores["space"]) == {"local"}
    assert len(new) == len(acc) + 2 * elements
    staged = new[new["site"] == LOOKUP_SITE]
    assert len(staged) == len(gathers) and set(staged["space"]) == {"local"}
    assert int(staged["address"].max()) < int(span.max())
    # each item copies its share first: its own accesses come after its copy rows
    first = new.groupby(["group", "item"], sort=False).head(1)
    assert set(first["site"]) == {copy_sites[0]}
    per_item = loads.groupby(["group", "item"]).size()
    assert per_item.max() - per_item.min() <= 1
    ins = out.instructions
    barriers = ins[ins["opclass"] == "barrier"]
    assert len(barriers) == groups * 64 and set(barriers["count"]) == {1}
    copied = ins[(ins["site"] == copy_sites[0]) & (ins["opclass"] == "load")]["count"].sum()
    assert copied == elements
    assert out.row["local_mem_bytes"] == int(launch.row.get("local_mem_bytes") or 0) + int(span.max())
    assert np.all(new.groupby(["group", "item"])["seq"].diff().dropna() == 1)
    assert isinstance(out, Launch)


def test_the_checklist_keeps_staging_only_where_the_replay_confirms_it():
    def staged(path, target):
        a = analyze(open_trace(path), [target], checklist=False)
        return [f for f in price_by_replay(run_rules(a.results), a.results, a.trace)
                if f.rule_id == "GEN-GATHER-LOCAL"]

    (hot,) = staged(rk.table_lookup(), "intel-hd530")
    assert hot.gain_method == "replay" and hot.what_if["change"] == f"stage-local={LOOKUP_SITE}"
    assert hot.estimated_gain_fraction > 0.25
    assert staged(rk.gather_index(256), "powervr-g6400") == []     # slower: dropped
    assert staged(rk.gather_index(65536), "adreno-640") == []      # does not fit: dropped
