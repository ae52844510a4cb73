"""``tracekit compare``: metric deltas, verdict change and checklist items resolved and new."""

from __future__ import annotations

import copy
import json

import pytest
from test_report_fixtures import sample_trace
from test_report_render import tags_of

from tracekit.cli import main
from tracekit.report import render_html
from tracekit.report.compare import compare_models, metric_delta

TARGET = "powervr-g6400"


def _models():
    from tracekit import pipeline
    before = pipeline.analyze(sample_trace(), [TARGET]).report_model()
    after = pipeline.analyze(sample_trace(fixed=True), [TARGET]).report_model()
    after.trace_path = "padded.tkt"
    return before, after


def test_deltas_verdict_and_findings():
    before, after = _models()
    c = compare_models(before, after, TARGET)
    (k,) = c.kernels
    by = {d.metric: d for d in k.metrics}
    assert by["estimated time"].change == "better"
    assert by["estimated time"].text.startswith("-") and k.speedup > 1
    assert by["transactions per request"].after < by["transactions per request"].before
    assert by["mean bank-conflict degree"].change == "better"
    assert by["mean bank-conflict degree"].after < by["mean bank-conflict degree"].before
    assert by["global requests"].change == "same"
    resolved = {f.rule_id for f in k.resolved}
    assert "GEN-UNCOALESCED-STORE" in resolved
    assert "GEN-INT-DIV" in {f.rule_id for f in k.new}
    assert not resolved & {f.rule_id for f in k.remaining}
    assert c.before_path == "synthetic" and c.after_path == "padded.tkt"


def test_worse_and_unpaired():
    assert metric_delta("occupancy", "pct", 0.75, 0.5, False).change == "worse"
    assert metric_delta("occupancy", "pct", 0.75, 0.5, False).text == "-25.0 pt"
    assert metric_delta("time", "time", None, 1.0, True).change == "n/a"
    before, after = _models()
    after.kernels[0].kernel = "transpose_v2"
    c = compare_models(before, after, TARGET)
    # one kernel on each side under different names: a rename, paired in order
    assert [k.kernel for k in c.kernels] == ["transpose \u2192 transpose_v2"]
    assert c.only_before == [] and c.only_after == []
    assert "transpose \u2192 transpose_v2" in c._repr_html_()
    # a second, differently named kernel after: nothing left to pair by rename
    after.kernels.append(copy.deepcopy(after.kernels[0]))
    after.kernels[1].kernel = "other"
    c = compare_models(before, after, TARGET)
    assert c.kernels == [] and c.only_before == ["transpose (launch 0)"]
    assert sorted(c.only_after) == ["other (launch 0)", "transpose_v2 (launch 0)"]


def test_comparison_html_and_json():
    before, after = _models()
    c = compare_models(before, after, TARGET)
    html = render_html(c)
    assert not [t for t, _ in tags_of(html) if t in ("script", "img", "link")]
    (k,) = c.kernels
    for text in ("Resolved", "New", "Uncoalesced global stores", "Integer division or modulo",
                 f"{k.speedup:.2f}× speed", "delta-better"):
        assert text in html, text
    doc = c.to_dict()
    assert json.loads(json.dumps(doc, sort_keys=True)) == doc
    assert doc["kernels"][0]["verdict_changed"] is k.verdict_changed
    assert "GEN-UNCOALESCED-STORE" in [f["rule_id"] for f in doc["kernels"][0]["resolved"]]


def test_cli_rejects_unknown_format(tmp_path, capsys):
    assert cli(["compare", "a.tkt", "b.tkt", "--target", TARGET, "-o", str(tmp_path / "c.out"),
                "--format", "docx"]) == 2
    assert "--format 'docx' is not known" in capsys.readouterr().err


# -- end to end: two real traces through analysis, rules and the CLI -------------------------------
SOURCE = "\n".join(["// scale_copy"] * 10 + ["  float v = in[i * STRIDE];", "  v = v * 2.0f;",
                                              "  out[i] = v;", "}"]) + "\n"


def _write(path, stride: int):
    from rules_helpers import KernelBuilder

    from tracekit.trace import store

    k = KernelBuilder(global_size=2048, local_size=64, kernel="scale_copy", source=SOURCE)
    k.load(1, lambda i: 4 * stride * i.gid)
    k.ops(2, "fp32_mul")
    k.store(3, lambda i: 0x800000 + 4 * i.gid)
    t = k.trace()
    store.write_trace(path, t.accesses, instructions=t.instructions, launches=t.launches, sites=t.sites)
    return path


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmp")
    return str(_write(d / "strided.tkt", 16)), str(_write(d / "coalesced.tkt", 1))


def test_compare_real_traces_library_and_cli(traces, tmp_path):
    from tracekit.pipeline import compare

    before, after = traces
    c = compare(before, after, TARGET)
    (k,) = c.kernels
    by = {d.metric: d for d in k.metrics}
    assert by["transactions per request"].change == "better"
    assert by["transactions per request"].after < by["transactions per request"].before
    assert by["estimated time"].change == "better"
    assert k.verdict_before == "memory"
    resolved = {f.rule_id for f in k.resolved}
    assert resolved, "coalescing the load resolves at least one checklist item"
    assert not resolved & {f.rule_id for f in k.remaining}

    out = tmp_path / "cmp.json"
    assert cli(["compare", before, after, "--target", TARGET, "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["target"] == TARGET and doc["kernels"][0]["kernel"] == "scale_copy"
    assert sorted(f["rule_id"] for f in doc["kernels"][0]["resolved"]) == sorted(resolved)


def cli(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0
