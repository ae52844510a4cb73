"""The compiled view: what an optimizing compile keeps of each line (tracekit/recorder/compiled.h).

Two remainders recorded on Oclgrind: one by a power of two that the loop counter feeds
in a loop of eight iterations (unrolled, every divisor is a constant and the remainder a
mask), one by a kernel argument (a division whatever the compiler does).  The first
must cost no division and draw no integer-division advice; the second keeps both.  A
vector filled component by component must not write its undefined value first.
"""

from __future__ import annotations

import json

import pytest

from tracekit.formats import open_trace
from tracekit.recorder import record_kernel, toolchain

SOURCE = """\
__kernel void rem_unrolled(__global const float* a, __global float* b) {
  int i = get_global_id(0);
  float s = 0.0f;
  for (int j = 0; j < 8; j++) {
    int d = 1 << (j & 1);
    s += a[(i + j) % (4 * d)];
  }
  b[i] = s;
}
__kernel void rem_runtime(__global const float* a, __global float* b, int n) {
  int i = get_global_id(0);
  float s = 0.0f;
  for (int j = 0; j < 8; j++)
    s += a[(i + j) % n];
  b[i] = s;
}
__kernel void build4(__global const float* a, __global float4* b) {
  int i = get_global_id(0);
  float4 v;
  v.x = a[4 * i]; v.y = a[4 * i + 1]; v.z = a[4 * i + 2]; v.w = a[4 * i + 3];
  b[i] = v;
}
"""
REM_LINES = {"rem_unrolled": 6, "rem_runtime": 14}


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    toolchain.plugin_path()
    toolchain.host_path()
    d = tmp_path_factory.mktemp("compiled")
    src = d / "compiled.cl"
    src.write_text(SOURCE)
    runs = {"rem_unrolled": ["float[1024]=rand", "float[256]"],
            "rem_runtime": ["float[1024]=rand", "float[256]", "int:64"],
            "build4": ["float[1024]=rand", "float4[256]"]}
    out = {}
    for name, args in runs.items():
        path = d / f"{name}.tkt"
        r = record_kernel(src, name, global_size="256", local_size="64", args=args, out=path)
        assert r.launches == [(name, "ok")]
        out[name] = path
    return out


def _srem(path, kernel):
    sites = open_trace(path).sites.to_pandas()
    return sites[(sites["kernel"] == kernel) & (sites["opcode"] == "srem")
                 & (sites["line"] == REM_LINES[kernel])].iloc[0]


def test_a_remainder_folded_by_unrolling_is_removed_and_a_runtime_one_kept(traces):
    assert _srem(traces["rem_unrolled"], "rem_unrolled")["compiled"] == 0
    # unrolled eight times, the runtime remainder stays eight divisions
    assert _srem(traces["rem_runtime"], "rem_runtime")["compiled"] == 8


def _analysis(path, tmp_path, name):
    from typer.testing import CliRunner

    from tracekit.cli import app

    out = tmp_path / f"{name}.json"
    res = CliRunner().invoke(app, ["analyze", str(path), "--target", "adreno-640",
                                   "--target", "powervr-g6400", "--format", "json", "-o", str(out)])
    assert res.exit_code == 0, res.output
    return json.loads(out.read_text())


def test_integer_division_is_advised_only_where_the_compiled_code_divides(traces, tmp_path):
    for name, fires in (("rem_unrolled", False), ("rem_runtime", True)):
        doc = _analysis(traces[name], tmp_path, name)
        for target in ("adreno-640", "powervr-g6400"):
            t = doc["targets"][target]
            rules = {f["rule_id"] for f in t["findings"]}
            assert ("GEN-INT-DIV" in rules) is fires, (name, target, rules)
            view = t["launches"][0]["compiled_view"]
            assert view["view"] == "llvm-O3"
            srem = int(_srem(traces[name], name)["site"])
            assert (srem in view["removed_sites"]) is not fires


def test_removed_sites_cost_no_alu_time(traces):
    from analyzers.analyze import analyze

    res = analyze(open_trace(traces["rem_unrolled"]), "adreno-640").launches[0]
    per_site = res.alu.per_site.groupby("site")["alu_cycles"].sum()
    srem = int(_srem(traces["rem_unrolled"], "rem_unrolled")["site"])
    assert per_site[srem] == 0
    assert res.compiled.removed_issues > 0
    assert res.alu.cycles > 0                       # what the compile keeps is still priced


def test_a_vector_filled_component_by_component_stores_no_undefined_value(traces):
    acc = open_trace(traces["build4"]).to_pandas()
    stores = acc[acc["op"] == "store"]
    # four 4-byte component stores per item, and not the 16-byte store of the undefined vector first
    assert len(stores) == 4 * 256
    assert set(stores["size"]) == {4}
    assert int(stores["size"].sum()) == 16 * 256


def test_a_divisor_from_a_24_bit_builtin_is_a_constant_to_the_compiler(tmp_path):
    src = tmp_path / "mad.cl"
    src.write_text("__kernel void rem_mad24(__global const float* a, __global float* b) {\n"
                   "  int i = get_global_id(0);\n"
                   "  b[i] = a[i % mad24(1, 2, 17)];\n"
                   "}\n")
    path = tmp_path / "mad.tkt"
    r = record_kernel(src, "rem_mad24", global_size="64", local_size="64",
                      args=["float[64]=rand", "float[64]"], out=path)
    assert r.launches == [("rem_mad24", "ok")]
    sites = open_trace(path).sites.to_pandas()
    # Oclgrind's module only declares mad24; expanded, the divisor is 19 and the remainder a multiply
    assert sites.loc[sites["opcode"] == "srem", "compiled"].tolist() == [0]
