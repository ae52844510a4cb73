"""The retype what-if: instructions of one class done as others, priced by the same execution models.

On the bundled integer-division sample (one ``%`` per item at one site), the division done
through float must move exactly that site's cycles, by the target's own prices, and leave
every other site and the memory replay alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzers.alu import cost_of, cycles_table
from analyzers.whatif import parse_change
from analyzers.whatif.replay import Replays
from analyzers.whatif.retype import Retype, retypes
from tracekit.errors import TracekitError
from tracekit.formats import open_trace
from tracekit.targets import load_target

SAMPLE = Path(__file__).resolve().parents[1] / "sample_traces" / "int_division.tkt"
VIA_FLOAT = "retype=int_div>convert.convert.fp32_div"


def _site_cycles(result, site: int) -> float:
    ps = result.alu.per_site
    return float(ps.loc[ps["site"] == site, "alu_cycles"].sum())


def _division_site(trace) -> int:
    ins = next(iter(trace.iter_batches("instructions"))).to_pandas()
    (site,) = ins.loc[ins["opclass"].astype(str) == "int_div", "site"].unique()
    return int(site)


def test_text_form_round_trips_and_bad_text_is_refused():
    c = parse_change("retype=int64_add>int_add@3,7")
    assert c == Retype("int64_add", ("int_add",), (3, 7)) and c.spec == "retype=int64_add>int_add@3,7"
    assert parse_change("retype=fp32_add>none").into == ()
    assert parse_change(VIA_FLOAT).spec == VIA_FLOAT
    for bad, why in (("retype=int_div", "FROM>TO"), ("retype=int_div>fp32_div@x", "whole numbers"),
                     ("retype=>int_add", "FROM>TO")):
        with pytest.raises(TracekitError, match=why):
            parse_change(bad)
    both = retypes({"int_add": ("fp32_add",), "int_mul": ("fp32_mul",)}, [5, 2])
    assert both.spec == "retype=int_add>fp32_add@2,5+retype=int_mul>fp32_mul@2,5"
    assert retypes({}) is None


@pytest.mark.parametrize("target", ["powervr-g6400", "adreno-640", "intel-hd530"])
def test_division_through_float_moves_the_sites_cycles_by_the_targets_prices(target):
    trace = open_trace(SAMPLE)
    site = _division_site(trace)
    t = load_target(target)
    w = Replays(trace).run(t, parse_change(VIA_FLOAT), 0)
    table = cycles_table(t, False)
    ratio = (2 * cost_of("convert", table)[0] + cost_of("fp32_div", table)[0]) / cost_of("int_div", table)[0]
    before, after = _site_cycles(w.before, site), _site_cycles(w.after, site)
    assert before > 0 and after == pytest.approx(before * ratio, rel=1e-6)
    other = w.before.alu.per_site["site"] != site
    assert w.after.alu.per_site.loc[w.after.alu.per_site["site"] != site, "alu_cycles"].sum() == \
        pytest.approx(w.before.alu.per_site.loc[other, "alu_cycles"].sum())
    assert w.after.memory is w.before.memory or w.after.memory.traffic == w.before.memory.traffic


def test_a_class_the_target_does_not_price_is_refused():
    trace = open_trace(SAMPLE)
    with pytest.raises(TracekitError, match="prices no int_bogus"):
        Replays(trace).run("nvidia-h200", parse_change("retype=int_div>int_bogus"), 0)
