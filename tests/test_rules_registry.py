"""The rule set as a whole: coverage by tests, citations that exist, docs in step, stable output."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import test_rules_images
import test_rules_local_exec
import test_rules_machine_code
import test_rules_memory
import test_rules_workgroup
from rules_helpers import KernelBuilder, context_for

from analyzers.rules import FINDING_COLUMNS, GUIDES, findings_frame, registry, run_rules
from analyzers.rules.doc import render

ROOT = Path(__file__).resolve().parents[1]
# The vendor guides live in shared/guides beside the repository checkout.
GUIDE_DIR = Path(os.environ.get("TRACEKIT_GUIDES", Path(__file__).resolve().parents[2] / "shared" / "guides"))
ALL_CASES = {**test_rules_workgroup.CASES, **test_rules_memory.CASES, **test_rules_local_exec.CASES,
             **test_rules_images.CASES, **test_rules_machine_code.CASES}


def test_at_least_forty_rules_each_with_a_firing_and_quiet_case():
    rules = registry()
    assert len(rules) >= 40
    assert sorted(rules) == sorted(ALL_CASES), "every rule needs a fire/quiet case and every case a rule"
    for rid, (vendors, _, _) in ALL_CASES.items():
        assert set(vendors) == set(rules[rid].vendors), f"{rid}: test every vendor the rule applies to"


def test_rules_cover_the_three_guides():
    guides = {c.guide for r in registry().values() for c in r.citations()}
    assert {"pvr", "adreno", "intel"} <= {g.split("-")[0] for g in guides}


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("[™]", "").replace("™", "")).strip().lower()


@pytest.mark.skipif(not GUIDE_DIR.is_dir(), reason="guides folder not present")
def test_every_citation_names_a_section_of_its_guide():
    heads = {}
    for short, fname in GUIDES.items():
        p = GUIDE_DIR / fname
        if p.is_file():
            heads[short] = {_normalise(line.split("..")[0].split("#")[0])
                    for line in p.read_text().splitlines()}
    for r in registry().values():
        for c in r.citations():
            if c.guide not in heads:
                continue  # a named public document outside the guides folder
            assert _normalise(c.section) in heads[c.guide], f"{r.id}: no section '{c.section}' in {c.guide}"


def test_fix_text_is_not_pasted_from_the_guides():
    guides = " ".join(_normalise(p.read_text())
            for p in GUIDE_DIR.glob("*.txt")) if GUIDE_DIR.is_dir() else ""
    for r in registry().values():
        words = _normalise(r.fix).split()
        for i in range(len(words) - 8):
            chunk = " ".join(words[i:i + 9])
            assert chunk not in guides, f"{r.id}: fix repeats guide text: '{chunk}'"


def test_thresholds_say_why_they_have_their_value():
    for r in registry().values():
        for name, th in r.thresholds.items():
            assert th.why and len(th.why) > 20, f"{r.id}.{name}"


def test_docs_table_matches_registry():
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert render(page) == page, "docs/rules.md is stale: run python -m analyzers.rules.doc docs/rules.md"
    for rid in registry():
        assert f"| {rid} |" in page


def test_threshold_override_from_the_target_file(tmp_path):
    from rules_helpers import get_target

    from tracekit.errors import TargetError
    from tracekit.targets import load_target, target_path
    k = KernelBuilder(2048, 64)
    k.load(1, lambda i: 8 * i.gid)          # two lines where one would do: ratio 2
    t = get_target("powervr")
    assert run_rules(context_for(k, "powervr", t), only=["GEN-UNCOALESCED-LOAD"])
    text = target_path(t.name).read_text()
    strict = tmp_path / "strict.toml"
    strict.write_text(text + '\n[rule_thresholds]\n"GEN-UNCOALESCED-LOAD.ratio" = 3.0\n')
    assert not run_rules(context_for(k, "powervr", load_target(strict)), only=["GEN-UNCOALESCED-LOAD"])
    typo = tmp_path / "typo.toml"
    typo.write_text(text + '\n[rule_thresholds]\n"GEN-UNCOALESCED-LOAD.ration" = 3.0\n')
    with pytest.raises(TargetError, match="GEN-UNCOALESCED-LOAD.ratio"):
        run_rules(context_for(k, "powervr", load_target(typo)))


def _messy():
    k = KernelBuilder(960, 48)
    k.load(1, lambda i: 128 * i.gid)
    k.ops(2, "int_div", count=3)
    k.ops(3, "math_sin", count=5, mask=lambda i: i.lid % 3 == 0)
    k.store(4, lambda i: 4 * i.gid, buffer=1)
    return k


def test_output_is_deterministic_and_ordered():
    a = run_rules(context_for(_messy(), "powervr"))
    b = run_rules(context_for(_messy(), "powervr"))
    assert [f.to_dict() for f in a] == [f.to_dict() for f in b]
    gains = [f.estimated_gain_fraction or 0.0 for f in a if f.kind == "finding"]
    assert gains == sorted(gains, reverse=True)
    kinds = [f.kind for f in a]
    assert kinds == sorted(kinds)            # findings first, then notes
    assert {"GEN-UNCOALESCED-LOAD", "GEN-INT-DIV", "GEN-DIVERGENCE", "PVR-WG-MULTIPLE"} <= {f.rule_id
            for f in a}


def test_findings_frame_columns_and_rows():
    found = run_rules([context_for(_messy(), "powervr"), context_for(_messy(), "nvidia")])
    df = findings_frame(found)
    assert list(df.columns) == FINDING_COLUMNS
    assert len(df) == len(found) and set(df["target"]) == {"powervr-g6400", "nvidia-h200"}
    assert not df["rule_id"].str.startswith(("PVR-", "ADR-", "INTEL-")).any() or \
        set(df.loc[df["target"] == "nvidia-h200", "rule_id"]).isdisjoint({"PVR-WG-MULTIPLE"})


def test_vendor_rules_stay_on_their_vendor():
    found = run_rules(context_for(_messy(), "nvidia"))
    assert not [f.rule_id for f in found if f.rule_id.startswith(("PVR-", "ADR-", "INTEL-"))]


def test_unknown_rule_id_is_an_error():
    with pytest.raises(KeyError):
        run_rules(context_for(_messy(), "powervr"), only=["NO-SUCH-RULE"])


@pytest.mark.parametrize("rule_id", sorted(r.id for r in registry().values() if r.what_if))
def test_rules_priced_by_replay_propose_their_change(rule_id):
    """A rule that says its gain comes from a what-if replay hands the runner that change when it
    fires (on its firing case, for its first vendor)."""
    from rules_helpers import fired, get_target

    vendors, fire, _ = ALL_CASES[rule_id]
    vendor = vendors[0]
    f = fired(fire(get_target(vendor)), vendor, rule_id)
    rule = registry()[rule_id]
    assert f is not None and f.change is not None, f"{rule_id} fired without a change to replay"
    # a change of several parts (a multiply fused and its add removed) is one kind of change
    assert {c.name for c in getattr(f.change, "changes", (f.change,))} == {rule.what_if}


def test_covering_rules_exist_and_drop_the_covered_finding():
    from analyzers.rules.rule import Finding
    from analyzers.rules.runner import drop_covered

    rules = registry()
    for r in rules.values():
        for c in r.covered_by:
            assert c in rules and c != r.id, f"{r.id} covered by unknown rule {c}"

    def finding(rid, target="t", launch=0):
        return Finding(rule_id=rid, title="", severity="low", target=target, kernel="k", launch=launch,
                       evidence={}, sites=(), fix="", citation="", estimated_gain_s=None,
                       estimated_gain_fraction=None)

    both = [finding("GEN-IMAGE-2D"), finding("GEN-BUFFER-AS-IMAGE"), finding("GEN-IMAGE-2D", launch=1)]
    kept = [(x.rule_id, x.launch) for x in drop_covered(both, rules)]
    # the covered rule leaves the launch where its covering rule fired, and stays where it did not
    assert kept == [("GEN-BUFFER-AS-IMAGE", 0), ("GEN-IMAGE-2D", 1)]
    assert [x.rule_id for x in drop_covered([finding("GEN-INT64-INDEX"), finding("INTEL-INT64-ADDRESS")],
                                            rules)] == ["INTEL-INT64-ADDRESS"]


def test_a_new_vendors_target_gets_the_generic_rules_unchanged():
    """A target file of a vendor no rule names (here an Adreno model renamed as another vendor's
    GPU) is checked by every rule that names all vendors, each citing a guide section, and by no
    vendor's own rule."""
    from dataclasses import replace

    from rules_helpers import get_target

    from analyzers.rules.rule import vendor_key

    other = replace(get_target("adreno"), name="other-gpu", vendor="Example Silicon", family="Example G1")
    assert vendor_key(other) == "other"
    generic = {r.id for r in registry().values() if r.generic}
    assert generic and all(rid.startswith("GEN-") for rid in generic)
    assert {r.id for r in registry().values() if r.applies_to(other)} == generic
    found = run_rules(context_for(_messy(), "adreno", target=other))
    assert found, "the messy kernel fires generic rules on the new vendor's target too"
    assert all(f.rule_id in generic and f.citation for f in found)
    on_adreno = {f.rule_id for f in run_rules(context_for(_messy(), "adreno")) if f.rule_id in generic}
    assert {f.rule_id for f in found} == on_adreno
