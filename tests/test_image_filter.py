"""Bilinear interpolation by hand: the data-flow slice, the filtered-image what-if and GEN-IMAGE-FILTER.

Two kernels of tests/data/images recorded on Oclgrind (``recorded_kernels.interpolation``)
read the same 2x2 block of a float buffer per item: ``bilinear`` weights the four texels
by the fraction of a scaled coordinate (what a sampler with CLK_FILTER_LINEAR does in
the texture unit), ``box`` averages them with constant weights (a fixed 2x2 box, which
no sampler filter replaces).  The recorder's ``operands`` column must let the slice find
the first and not the second, and the replay of the filtered image must remove the
weights and the blend but keep the coordinate both derive from.
"""

from __future__ import annotations

import pandas as pd
import pytest
import recorded_kernels as rk

from analyzers.dataflow import forward, graph, interpolation, only_feeding
from tracekit.errors import TracekitError
from tracekit.formats import open_trace

#: Source lines of tests/data/images/bilinear.cl
LINES = {"coordinate": 5, "weights": 8, "blend": 11, "store": 13}
TARGETS = ("powervr-g6400", "adreno-640", "intel-hd530")


@pytest.fixture(scope="module")
def traces():
    return {name: open_trace(rk.interpolation(name)) for name in ("bilinear", "box")}


def _graph(trace):
    sites = trace.sites.to_pandas()
    return sites, graph(sites, sites["kernel"].iloc[0])


def _loads(sites):
    return sites.loc[sites["opcode"] == "load", "site"].astype(int).tolist()


def test_the_recorder_writes_each_instructions_operand_sites(traces):
    sites, g = _graph(traces["bilinear"])
    assert "operands" in sites.columns and g is not None
    by_site = sites.set_index("site")
    for site in _loads(sites):
        (pointer,) = g.operands[site]      # a load takes its address, computed by an instruction
        assert by_site.loc[pointer, "opcode"] in ("getelementptr", "bitcast")
    store = int(sites.loc[sites["opcode"] == "store", "site"].iloc[0])
    assert len(g.operands[store]) == 2    # the value and the address


def test_the_slice_finds_the_weights_the_blend_and_keeps_the_coordinate(traces):
    sites, g = _graph(traces["bilinear"])
    found = interpolation(g, _loads(sites))
    assert found is not None and len(found.loads) == 4
    line = sites.set_index("site")["line"]
    assert {int(line[s]) for s in found.weights} >= {LINES["weights"]}
    assert {int(line[s]) for s in found.blend} >= {LINES["blend"]}
    assert not [s for s in found.removed if line[s] == LINES["coordinate"]], "the coordinate stays"
    assert found.outputs and all(line[s] == LINES["store"] for s in found.outputs)
    assert not found.tables


def test_a_box_of_constant_weights_is_not_an_interpolation(traces):
    sites, g = _graph(traces["box"])
    assert interpolation(g, _loads(sites)) is None


def test_the_rule_fires_on_the_interpolation_priced_by_replay(traces):
    from analyzers.rules import run_rules
    from analyzers.rules.gains import price_by_replay
    from tracekit.pipeline import analyze

    for name, fires in (("bilinear", True), ("box", False)):
        a = analyze(traces[name], list(TARGETS), checklist=False)
        found = [f for f in price_by_replay(run_rules(a.results), a.results, a.trace)
                 if f.rule_id == "GEN-IMAGE-FILTER"]
        assert bool(found) == fires, name
        for f in found:
            assert f.gain_method == "replay" and f.estimated_gain_fraction > 0.05, (f.target, f)
            assert f.what_if["change"].startswith("filter-image=0:")
            assert f.evidence["gathers_per_item"] == 4


def test_the_filtered_replay_reads_the_same_texels_through_one_image_read(traces):
    from analyzers.whatif import parse_change
    from analyzers.whatif.replay import Replays

    sites, g = _graph(traces["bilinear"])
    found = interpolation(g, _loads(sites))
    change = parse_change(f"filter-image=0:{','.join(map(str, found.removed))}")
    assert change.spec == f"filter-image=0:{','.join(map(str, found.removed))}"
    replays = Replays(traces["bilinear"])
    launch = replays.head(0)
    after = change.apply(launch, None)
    acc = after.accesses
    image = acc[acc["space"].astype(str) == "image"]
    assert len(image) == (launch.accesses["op"].astype(str) == "load").sum()   # every texel still read
    assert set(image["sampler_filter"]) == {"linear"}
    ins = after.instructions
    loads = ins[ins["opclass"].astype(str) == "load"]
    assert loads["site"].nunique() == 1             # one read per pixel
    assert not ins["site"].isin(found.weights).any()
    w = replays.run("adreno-640", change, 0)
    assert w.time_after_s < w.time_before_s
    assert w.after.alu.time_s < w.before.alu.time_s


def test_filter_image_text_is_checked():
    from analyzers.whatif import parse_change

    assert parse_change("filter-image=2:5,6:9").tables == (9,)
    with pytest.raises(TracekitError, match="filter-image=BUFFER"):
        parse_change("filter-image=1,2")
    with pytest.raises(TracekitError, match="whole numbers"):
        parse_change("filter-image=a")


def _frame(rows):
    return pd.DataFrame([{"kernel": "k", "site": s, "opcode": op, "operands": ops} for s, op, ops in rows])


def test_slices_on_a_small_graph():
    # 0 coordinate; 1 floor (address and weight meet); 2 fraction; 3 weight; 4 address; 5, 6 loads;
    # 7, 8 weighted texels; 9 sum (output); 10 store
    g = graph(_frame([(0, "fmul", []), (1, "call floor", [0]), (2, "fsub", [0, 1]), (3, "fsub", [2]),
                      (4, "getelementptr", [1]), (5, "load", [4]), (6, "load", [4]), (7, "fmul", [5, 3]),
                      (8, "fmul", [6, 2]), (9, "fadd", [7, 8]), (10, "store", [9, 4])]), "k")
    assert forward(g, [5, 6]) == {7, 8, 9}
    assert only_feeding(g, {7, 8}) == {2, 3}
    found = interpolation(g, [5, 6])
    assert found.blend == (7, 8) and found.outputs == (9,) and found.weights == (2, 3)
    assert 0 not in found.removed and 1 not in found.removed     # the coordinate and its floor stay
    assert found.address == ()     # the address also feeds the store: it stays
    assert graph(_frame([(0, "fadd", [])]).drop(columns="operands"), "k") is None
