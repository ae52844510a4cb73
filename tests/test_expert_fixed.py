"""The top item's gain against the expert's own fixed kernel, both replayed by the model.

A checklist's first item claims a gain; the expert's fix for the same problem exists as a
real kernel: the tiled transpose of the CUDA samples for the naive one, SHOC's warp-per-row
SpMV for its row-per-thread one (both in the H200 twins trace), and the variants OpenCV
itself ships as the faster form of an operation (pyrDown with four columns per work-item,
erode with 16 x 2 pixels per work-item, filter2D's small-kernel path; recorded in
tests/data/expert/mobile/opencv).  Each pair is analysed as a whole launch; the model's
gain for the fixed kernel is ``1 - t_fixed / t_original``.  The claimed gain must lie within
a factor :data:`FACTOR` of it: an item that promises far more than the expert's rewrite
delivers, or far less, misleads the reader about what the change is worth.  Pairs where it does
not hold are strict xfails with the reason (:data:`DISAGREE`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tracekit.formats import open_trace
from tracekit.trace.cut import cut_trace

HERE = Path(__file__).resolve().parent
TWINS = HERE / "data" / "h200_real" / "twins" / "twins.tkt"
OPENCV = HERE / "data" / "expert" / "mobile" / "opencv" / "traces"
PVR, ADR, INTEL, NV = "powervr-g6400", "adreno-640", "intel-hd530", "nvidia-h200"
TARGETS = (PVR, ADR, INTEL, NV)
REPLAY_ACCESSES = 40_000
FACTOR = 2.0

#: twins launch -> work-groups kept (as tests/test_expert_review.py cuts them)
TWIN_LAUNCHES = {23: 16, 24: 16, 17: 2, 18: 8}

#: (name, original, fixed, targets, the rules whose advice the fix is)
PAIRS = [
    ("transpose", ("twins", 23), ("twins", 24), (PVR, ADR, NV),
     ("GEN-UNCOALESCED-STORE", "GEN-PITCH-PAD")),
    # a wave per row is the expert's kernel; staging the group's block of CSR entries in local memory
    # (CSR-stream, Greathouse and Daga, SC14) is the other standard fix of the same row walks
    ("spmv", ("twins", 17), ("twins", 18), (PVR, ADR, INTEL), ("GEN-UNCOALESCED-LOAD", "GEN-GATHER-LOCAL")),
    ("pyrdown", ("opencv", "pyrdown_8uc1_720p"), ("opencv", "pyrdown_8uc1_720p_kercn4"), (PVR, INTEL),
     ("GEN-ITEM-COARSEN", "GEN-BUFFER-AS-IMAGE")),
    ("erode", ("opencv", "erode_3x3_8uc1_720p"), ("opencv", "erode_3x3_8uc1_720p_cols16_rows2"),
     (PVR, ADR, INTEL), ("GEN-ITEM-COARSEN",)),
    ("filter2d", ("opencv", "filter2d_3x3_8uc1_720p"), ("opencv", "filter2d_3x3_8uc1_720p_small"),
     (PVR, ADR, INTEL), ("GEN-ITEM-COARSEN",)),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """(source, launch or case) -> (launch result per target, findings per target)."""
    from analyzers.rules import run_rules
    from analyzers.rules.gains import price_by_replay
    from tracekit.pipeline import analyze

    def run(trace):
        analysis = analyze(trace, list(TARGETS), checklist=False)
        found = price_by_replay(run_rules(analysis.results), analysis.results, analysis.trace,
                                max_accesses=REPLAY_ACCESSES)
        return analysis, found

    out = {}
    cut = cut_trace(open_trace(TWINS), tmp_path_factory.mktemp("fixed") / "twins.tkt", TWIN_LAUNCHES)
    analysis, found = run(open_trace(cut))
    for r in analysis.results:
        for lr in r.launches:
            out[(("twins", lr.launch), r.target.name)] = (
                lr, [f for f in found if f.target == r.target.name and f.launch == lr.launch])
    cases = {c for _, a, b, _, _ in PAIRS for src, c in (a, b) if src == "opencv"}
    for case in sorted(cases):
        analysis, found = run(open_trace(OPENCV / f"{case}.tkt"))
        for r in analysis.results:
            lr = r.launches[0]
            out[(("opencv", case), r.target.name)] = (lr, [f for f in found if f.target == r.target.name])
    return out


#: OpenCV's own fast kernels go beyond the item's change: erode's and filter2D's register-blocked
#: forms keep 16 x 2 or 8 x 2 pixels per item in a sliding window, read each row once with vector
#: loads and drop the local tile and its barriers; pyrDown's KERCN=4 also keeps every item busy in
#: the horizontal pass.  The coarsen what-if only merges four neighbouring items, so it promises less
#: than half of what the rewrite gains where the model finds the rewrite far faster.
BEYOND = ("the expert's kernel is a deeper rewrite (register-blocked sliding window, no local tile or "
          "barriers, 16 x 2 pixels per item); merging four neighbouring items claims under half its gain")
DISAGREE = {("pyrdown", PVR), ("erode", PVR), ("erode", INTEL), ("filter2d", PVR), ("filter2d", INTEL)}


def pairs():
    for name, orig, fixed, targets, rules in PAIRS:
        for t in targets:
            marks = [pytest.mark.xfail(strict=True, reason=BEYOND)] if (name, t) in DISAGREE else []
            yield pytest.param(orig, fixed, t, rules, id=f"{name}-{t}", marks=marks)


@pytest.mark.parametrize(("orig", "fixed", "target", "rules"), list(pairs()))
def test_top_item_gain_is_within_a_factor_of_the_fixed_kernels(results, orig, fixed, target, rules):
    before, findings = results[(orig, target)]
    after, _ = results[(fixed, target)]
    assert before.error is None and after.error is None
    real = 1.0 - after.time_s / before.time_s
    assert real > 0.05, f"the model finds the expert's kernel no faster: {before.time_s} -> {after.time_s}"
    top = max(findings, key=lambda f: f.estimated_gain_fraction or 0.0)
    claimed = top.estimated_gain_fraction or 0.0
    assert top.rule_id in rules, (top.rule_id, claimed, real)
    assert real / FACTOR <= claimed <= real * FACTOR, (top.rule_id, claimed, real)
