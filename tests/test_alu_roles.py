"""Role factors in the ALU model (analyzers/roles.py): address arithmetic and loop control priced
at machine level, on synthetic traces whose sites carry known roles."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pyarrow as pa
import pytest
from exec_model_helpers import KernelBuilder, make_target

from analyzers import analyze
from analyzers.alu import AluPricing, alu_cost
from analyzers.geometry import launch_geometries
from analyzers.roles import role_pricing, site_classes
from analyzers.simd import wave_issues, wave_layout
from tracekit.targets import load_target
from tracekit.trace.reader import Trace
from tracekit.trace.store import conform

FACTORS = {"address": 0.5, "loop_address": 0.25, "indirect": 0.5, "loop": 0.125}


def loop_kernel(iterations: int = 8) -> KernelBuilder:
    """A row walk: per iteration one load, its index add and getelementptr, a float add, and the
    counter's compare, add and branch; before the loop a once-per-item index."""
    b = KernelBuilder("row_walk", 256, 64)
    return (b.count(0, "int_mul", 1)                    # i * n, once (address)
            .count(1, "int_add", iterations)            # i * n + j (address, repeated)
            .count(2, "int_add", iterations)            # getelementptr (address, repeated)
            .count(3, "load", iterations)
            .count(4, "fp32_add", iterations)
            .count(5, "compare", iterations + 1)        # j < n (loop)
            .count(6, "int_add", iterations)            # j++ (loop)
            .count(7, "branch", 2 * iterations + 1)     # exit test and back edge (loop)
            .count(8, "int_div", 1))                    # an address-only division keeps its price


ROLES = {0: "address", 1: "address", 2: "address", 5: "loop", 6: "loop", 7: "loop", 8: "address"}


def with_roles(builder: KernelBuilder, roles: dict[int, str]) -> Trace:
    tables = builder.tables()
    sites = sorted(set(tables["instructions"]["site"].to_pylist()))
    tables["sites"] = conform(pa.table({"kernel": [builder.kernel] * len(sites),
                                        "site": pa.array(sites, pa.int32()),
                                        "role": [roles.get(s) for s in sites]}), "sites")
    return Trace(f"<synthetic {builder.kernel}>", _tables=tables)


def toy(**kw):
    return replace(make_target(), ir_role_factors=dict(kw.get("factors", FACTORS)))


def issues_of(trace, target):
    (g,), _ = launch_geometries(trace)
    lay = wave_layout(g, target)
    return g, lay, wave_issues(trace.instructions, lay)


def test_classes_split_address_by_repetition_and_leave_divisions_alone():
    trace = with_roles(loop_kernel(), ROLES)
    _, _, iss = issues_of(trace, toy())
    classes = site_classes(iss, ROLES, int(iss["wave"].nunique()))
    assert classes == {0: "address", 1: "loop_address", 2: "loop_address", 5: "loop", 6: "loop", 7: "loop"}


def test_role_factors_scale_issues_and_cycles_of_their_sites_only():
    target = toy()
    trace = with_roles(loop_kernel(8), ROLES)
    g, lay, iss = issues_of(trace, target)
    plain = alu_cost(iss, g, lay, target)
    rp = role_pricing(iss, trace.sites.to_pandas(), "row_walk", target)
    priced = alu_cost(iss, g, lay, target, pricing=AluPricing(site_scale=rp.site_scale, roles=rp.to_dict()))
    waves = 256 // 32
    # per wave: once 1 x 0.5, repeated address 16 x 0.25, loop (9 + 8 + 17) x 0.125, the rest as is
    work = 8 + 8 + 1  # load, fadd, div
    assert plain.instructions == waves * (1 + 16 + 34 + work)
    assert priced.instructions == pytest.approx(waves * (0.5 + 16 * 0.25 + 34 * 0.125 + work))
    # toy prices: every class 1 cycle (math_default 8), so cycles follow the instructions
    assert priced.cycles == pytest.approx(plain.cycles - waves * (0.5 + 12 + 29.75))
    assert priced.roles["factors"] == FACTORS
    assert priced.roles["ir_issues"]["loop"] == waves * 34
    per_site = priced.per_site.set_index("site")
    assert per_site.at[6, "cycles_per_issue"] == pytest.approx(0.125)
    assert per_site.at[8, "cycles_per_issue"] == 1.0  # the division: its class's price


def test_analysis_applies_the_targets_factors_and_reports_them():
    trace = with_roles(loop_kernel(8), ROLES)
    base = analyze(trace, make_target()).launches[0]
    scaled = analyze(trace, toy()).launches[0]
    assert base.alu.roles == {} and base.alu.instructions == 8 * 68
    assert scaled.alu.instructions < base.alu.instructions
    assert scaled.to_dict()["alu"]["roles"]["factors"]["loop"] == 0.125


def test_traces_without_roles_and_targets_without_factors_price_as_before():
    b = loop_kernel(8)
    no_roles = Trace("<synthetic>", _tables=b.tables())
    a = analyze(no_roles, toy()).launches[0]
    c = analyze(with_roles(b, ROLES), make_target()).launches[0]
    ref = analyze(no_roles, make_target()).launches[0]
    assert a.alu.cycles == c.alu.cycles == ref.alu.cycles
    assert a.alu.instructions == ref.alu.instructions


def test_role_factor_replaces_the_group_factor():
    """A target with both tables: a role site is scaled by its role's factor, not its group's too."""
    from analyzers.machine_code import ir_group

    target = toy()
    trace = with_roles(loop_kernel(8), ROLES)
    g, lay, iss = issues_of(trace, target)
    rp = role_pricing(iss, trace.sites.to_pandas(), "row_walk", target)
    group = {"int": 3.0}
    both = alu_cost(iss, g, lay, target, pricing=AluPricing(group_scale=group, group_of=ir_group,
                                                            site_scale=rp.site_scale))
    ps = both.per_site.set_index("site")
    assert ps.at[1, "cycles_per_issue"] == pytest.approx(0.25)   # int_add address in the loop: role only
    assert ps.at[8, "cycles_per_issue"] == pytest.approx(3.0)    # int_div: its group's factor


def test_h200_factors_are_sourced():
    h200 = load_target("nvidia-h200")
    assert set(h200.ir_role_factors) == {"address", "loop_address", "indirect", "loop"}
    for k in h200.ir_role_factors:
        assert "measured" in h200.sources[f"ir_role_factors.{k}"]


def test_role_pricing_needs_roles():
    iss = pd.DataFrame({"wave": [0], "site": [1], "opclass": ["int_add"], "issues": [4]})
    assert role_pricing(iss, None, "k", toy()) is None
    sites = pd.DataFrame({"kernel": ["k"], "site": [1], "role": ["address"]})
    assert role_pricing(iss, sites, "k", make_target()) is None
    assert role_pricing(iss, sites, "k", toy()).site_scale == {1: 0.25}
