"""The checklist on kernels recorded with the real recorder: what it must say, and what it must not.

Each case is a small OpenCL kernel in tests/data/kernels/ (see its README), recorded once per
test session with ``tracekit.recorder.record_kernel`` under Oclgrind, then analysed and priced by
what-if replay through :func:`tracekit.pipeline.analyze` exactly as ``tracekit analyze`` does.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analyzers.whatif.changes import NATIVE_BUILTINS
from tracekit import pipeline
from tracekit.recorder import record_kernel, toolchain
from tracekit.targets import list_targets, load_target

ROOT = Path(__file__).resolve().parents[1]
KERNELS = Path("tests/data/kernels")          # relative: the traces name their source that way
SAMPLES = ROOT / "sample_traces"
ALL = tuple(list_targets())
N = 4096

#: name -> (file, kernel, global, local, args, work-groups recorded)
RECORDINGS = {
    "fdtd": ("fdtd.cl", "fdtd_hz", "64,64", "16,16",
             ["float[4096]=rand:1", "float[4160]=rand:2", "float[4160]=rand:3", "int:64", "int:64"], "all"),
    "fdtd_double": ("fdtd_double.cl", "fdtd_hz_double", "64,64", "16,16",
                    ["float[4096]=rand:1", "float[4160]=rand:2", "float[4160]=rand:3", "int:64", "int:64"],
                    "all"),
    "fdtd_float": ("fdtd.cl", "fdtd_hz_float", "64,64", "16,16",
                   ["float[4096]=rand:1", "float[4160]=rand:2", "float[4160]=rand:3", "int:64", "int:64"],
                   "all"),
    # a streaming kernel over 1M items (16 work-groups recorded): memory-bound wherever fabs/fmin/fmax
    # are priced as the ALU instructions they are
    "relu": ("activation.cl", "relu6_leaky", str(1 << 20), "256",
             [f"float[{1 << 20}]=rand:1", f"float[{1 << 20}]"], "random:16:1"),
    "softplus": ("activation.cl", "softplus", str(N), "64", [f"float[{N}]=rand:1", f"float[{N}]"], "all"),
    "blur3": ("neighbours.cl", "blur3", str(N), "64", [f"float[{N + 2}]=rand:1", f"float[{N + 2}]"], "all"),
    "scale": ("neighbours.cl", "scale", str(N), "64",
              [f"float[{N}]=rand:1", "float[4]=rand:2", f"float[{N}]"], "all"),
    # 264 work-groups of 992 items (31 warps): two resident per SM on the H200, 62 of 64 warp slots
    "saxpy_992": ("saxpy.cl", "saxpy", str(264 * 992), "992",
                  ["float:2", f"float[{264 * 992}]=rand:1", f"float[{264 * 992}]=rand:2"],
                  "first:2"),
    "rows_512": ("row_sums.cl", "row_sums", "512", "64", ["float[262144]=rand:1", "float[512]", "int:512"],
                 "all"),
    "rows_500": ("row_sums.cl", "row_sums", "512", "64", ["float[250000]=rand:1", "float[500]", "int:500"],
                 "all"),
}


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    try:
        toolchain.find_toolchain()
    except Exception as exc:  # noqa: BLE001 - the recorder's own message says what is missing
        pytest.fail(f"the recorder is not usable here: {exc}")
    out = tmp_path_factory.mktemp("recorded")
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        paths = {}
        for name, (file, kernel, gsize, lsize, args, sample) in RECORDINGS.items():
            paths[name] = out / f"{name}.tkt"
            record_kernel(KERNELS / file, kernel, global_size=gsize, local_size=lsize, args=args,
                          out=paths[name], sample=sample)
    finally:
        os.chdir(cwd)
    return paths


_ANALYSES: dict = {}


def analysis(path, targets=ALL):
    key = (str(path), tuple(targets))
    if key not in _ANALYSES:
        _ANALYSES[key] = pipeline.analyze(path, list(targets))
    return _ANALYSES[key]


def finding(a, rule_id, target):
    found = [f for f in a.findings if f.rule_id == rule_id and f.target == target]
    assert len(found) <= 1
    return found[0] if found else None


# -- double precision from an unsuffixed literal ------------------------------------------------

def test_unsuffixed_literal_is_priced_as_double_precision_and_fixed_by_replay(traces):
    a = analysis(traces["fdtd"], ("powervr-g6400", "powervr-gx6650"))
    for target in ("powervr-g6400", "powervr-gx6650"):
        f = finding(a, "GEN-FP64-IN-FLOAT", target)
        assert f is not None, f"no double-precision finding on {target}"
        # the one fp64 multiply-add and its widening conversions carry most of the ALU cycles
        assert f.evidence["share_of_alu_cycles"] > 0.5
        assert f.evidence["fp64_classes"] == ["fp64_fma"] and f.evidence["widening_conversions"] > 0
        assert f.gain_method == "replay" and f.what_if["change"].startswith("fp32=")
        assert f.what_if["time_after_s"] < f.what_if["time_before_s"]
        assert f.severity == "high" and f.sites == ((str(KERNELS / "fdtd.cl"), 12),)
    quiet = analysis(traces["fdtd_float"], ("powervr-g6400", "powervr-gx6650"))
    assert not [f for f in quiet.findings if f.rule_id == "GEN-FP64-IN-FLOAT"]


def test_adreno_takes_unsuffixed_literals_as_float(traces):
    """A device without double precision compiles an unsuffixed literal as a float (the source never
    names double): no finding, no warning, and the launch priced as the float kernel is."""
    a = analysis(traces["fdtd"], ("adreno-640",))
    assert finding(a, "GEN-FP64-IN-FLOAT", "adreno-640") is None
    assert not any("cannot execute" in w for w in a.warnings)
    lit, = (r for r in a.results[0].launches)
    fl, = (r for r in analysis(traces["fdtd_float"], ("adreno-640",)).results[0].launches)
    assert not lit.alu.unsupported
    lit_cycles = lit.alu.per_site.groupby("opclass")["alu_cycles"].sum()
    fl_cycles = fl.alu.per_site.groupby("opclass")["alu_cycles"].sum()
    assert lit_cycles["fp64_fma"] == pytest.approx(fl_cycles["fp32_fma"])
    # the widening conversions are still in the recording; everything else matches the float kernel
    assert fl.alu.cycles < lit.alu.cycles < 1.5 * fl.alu.cycles


def test_source_names_double_outside_comments_only():
    from analyzers.geometry import declares_double

    assert declares_double(None) is None and declares_double("") is None
    assert declares_double("// reads as a double\n__kernel void k(float x) { y = 0.7 * x; }") is False
    assert declares_double("/* double */ __kernel void k() {}") is False
    assert declares_double("__kernel void k() { double2 v; }") is True
    assert declares_double("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n__kernel void k() {}") is True
    assert declares_double("__kernel void k() { int doubled = 2; }") is False


def test_adreno_without_fp64_warns_where_the_source_names_double(traces):
    a = analysis(traces["fdtd_double"], ("adreno-640",))
    f = finding(a, "GEN-FP64-IN-FLOAT", "adreno-640")
    assert f is not None and f.evidence["double_supported"] is False
    assert "no double precision" in f.evidence["warning"] and f.what_if is None
    assert any("fp64_fma" in w and "cannot execute" in w for w in a.warnings)
    from tracekit.cli.analyze import run_analyze
    text = run_analyze(str(traces["fdtd_double"]), ["adreno-640"], "text", None, progress=False)
    assert "warning:" in text and "cannot execute" in text


def test_single_precision_what_if_reprices_doubles_and_drops_the_conversions(traces):
    import analyzers
    from analyzers.whatif.precision import SinglePrecision
    from analyzers.whatif.replay import head_of_launch

    trace = pipeline.load_trace(traces["fdtd"])
    sites = trace.sites.to_pandas()
    widening = tuple(int(s) for s in sites.loc[sites["opcode"].isin(["fpext", "fptrunc"]), "site"])
    assert len(widening) == 3
    (geo,), _ = analyzers.geometry.launch_geometries(trace)
    launch = head_of_launch(trace, geo)
    after = SinglePrecision(widening).apply(launch, load_target("powervr-g6400")).instructions
    assert not after["opclass"].str.startswith("fp64_").any()
    assert (after["opclass"] == "fp32_fma").sum() > (launch.instructions["opclass"] == "fp32_fma").sum()
    before_cvt = launch.instructions["opclass"].eq("convert") & launch.instructions["site"].isin(widening)
    assert before_cvt.any() and not (after["opclass"].eq("convert") & after["site"].isin(widening)).any()


# -- fabs, fmin, fmax are ALU instructions, not library calls -----------------------------------

def test_every_target_prices_fabs_fmin_fmax_as_alu_instructions_with_a_source():
    for name in ALL:
        t = load_target(name)
        for c in ("math_fabs", "math_fmin", "math_fmax"):
            assert c in t.alu_cycles, f"{name}: {c} falls back to math_default"
            assert t.alu_cycles[c] <= t.alu_cycles["compare"], f"{name}: {c} dearer than a compare"
            assert t.sources.get(f"alu_cycles.{c}"), f"{name}: {c} has no source"


def test_relu_like_kernel_is_not_alu_bound_anywhere(traces):
    a = analysis(traces["relu"])
    for r in a.results:
        assert r.launches[0].verdict != "alu", f"{r.target.name}: relu read as ALU-bound"
    # neither math rule has anything to say about fabs, fmin and fmax
    assert not [f for f in a.findings if f.rule_id in ("GEN-NATIVE-MATH", "GEN-FAST-MATH")]


def test_native_advice_names_only_functions_opencl_has_native_forms_of(traces):
    a = analysis(traces["softplus"])
    natives = [f for f in a.findings if f.rule_id == "GEN-NATIVE-MATH"]
    assert natives
    for f in natives:
        assert f.evidence["functions"] == ["exp", "log"]
        assert f.evidence["native_forms"] == ["native_exp", "native_log"]
    for f in a.findings:
        text = " ".join([f.fix, *map(str, f.evidence.values()), str((f.what_if or {}).get("description"))])
        for word in text.replace(",", " ").replace("'", " ").split():
            if word.startswith("native_") and word[len("native_"):].isalnum():
                assert word[len("native_"):] in NATIVE_BUILTINS, f"{f.rule_id} names {word}"


# -- coalescing: neighbours and broadcasts are not scattered --------------------------------------

def test_plus_minus_one_neighbours_are_misaligned_not_uncoalesced(traces):
    a = analysis(traces["blur3"])
    assert not [f for f in a.findings if f.rule_id.startswith("GEN-UNCOALESCED")]
    assert {f.target for f in a.findings if f.rule_id == "GEN-MISALIGNED"} >= {"powervr-g6400", "intel-hd530"}


def test_broadcast_loads_on_adreno_are_not_uncoalesced(traces):
    # matmul_naive's A[row * n + k]: a 64-lane wave holds four rows of the 16 x 16 work-group, so each
    # request reads four addresses, each shared by 16 lanes, and moves a quarter of the bytes asked for
    a = analysis(SAMPLES / "matmul_naive.tkt", ("adreno-640", "adreno-740"))
    assert not [f for f in a.findings if f.rule_id == "GEN-UNCOALESCED-LOAD"]
    b = analysis(traces["scale"], ("adreno-640", "adreno-740"))
    assert not [f for f in b.findings if f.rule_id == "GEN-UNCOALESCED-LOAD"]


# -- occupancy ---------------------------------------------------------------------------------

def test_h200_at_97_percent_occupancy_has_enough_work_items(traces):
    a = analysis(traces["saxpy_992"], ("nvidia-h200",))
    (r,) = a.results
    assert r.launches[0].occupancy.occupancy == pytest.approx(62 / 64)
    assert not [f for f in a.findings if f.rule_id in ("GEN-DATASET-SMALL", "GEN-LOW-OCCUPANCY")]


# -- padding, images, source lines ---------------------------------------------------------------

def test_padding_hint_is_not_given_for_a_tile_already_padded():
    a = analysis(SAMPLES / "transpose_tiled_padded.tkt")
    conflicts = [f for f in a.findings
                 if f.rule_id in ("GEN-LOCAL-BANK-CONFLICT", "INTEL-SLM-WRITE-CONFLICT")]
    assert not [f for f in conflicts if "padding_hint" in f.evidence or f.what_if]
    # the unpadded tile still gets the hint: one float more per row
    b = analysis(SAMPLES / "transpose_tiled.tkt", ("powervr-g6400", "intel-hd530", "nvidia-h200"))
    hints = {f.target: f.evidence.get("padding_hint") for f in b.findings
             if f.rule_id == "GEN-LOCAL-BANK-CONFLICT"}
    assert set(hints) == {"powervr-g6400", "intel-hd530", "nvidia-h200"}
    assert all(h and "pad each row by 4 bytes (pitch 68)" in h for h in hints.values())


def test_image_advice_is_for_neighbourhoods_not_column_walks():
    for walk in ("matmul_naive", "pointer_chase", "matmul_tiled"):
        a = analysis(SAMPLES / f"{walk}.tkt", ("powervr-g6400", "adreno-640", "intel-hd530", "nvidia-h200"))
        assert not [f for f in a.findings if f.rule_id == "GEN-IMAGE-2D"], walk
    a = analysis(SAMPLES / "conv3x3_buffer.tkt", ("adreno-740", "intel-hd530"))
    f = finding(a, "GEN-IMAGE-2D", "intel-hd530")
    assert f is not None and f.evidence["rows_per_item"] == 3 and f.evidence["elements_per_row"] == 3
    # on Adreno the same advice comes from the replay of the buffer as an image, once (the 740: the
    # 640's measured 1 KiB texture L1 prices the change as a loss, tests/test_rules_images.py)
    assert finding(a, "GEN-BUFFER-AS-IMAGE", "adreno-740") is not None
    assert finding(a, "GEN-IMAGE-2D", "adreno-740") is None


def test_no_finding_cites_line_zero(traces):
    trace = pipeline.load_trace(traces["fdtd"])
    lines = trace.sites.to_pandas()["line"]
    assert lines.isna().any(), "the kernel has sites the compiler gave no line (the case under test)"
    for name in ("fdtd", "blur3", "softplus"):
        for f in analysis(traces[name]).findings:
            assert all(line > 0 for _, line in f.sites), (name, f.rule_id, f.sites)


# -- a power-of-two row pitch ------------------------------------------------------------------

def test_power_of_two_pitch_gets_a_padding_priced_by_replay(traces):
    target = "powervr-g6400"
    a512 = analysis(traces["rows_512"], (target,))
    a500 = analysis(traces["rows_500"], (target,))
    t512, t500 = (x.results[0].launches[0].time_estimates["total_s"] for x in (a512, a500))
    assert t512 > 10 * t500, "the model no longer shows the thrash this case is about"
    f = finding(a512, "GEN-PITCH-PAD", target)
    assert f is not None and f.severity == "high" and f.gain_method == "replay"
    assert f.what_if["change"] == "pad-pitch=0:2048:128" and f.evidence["row_pitch_bytes"] == 2048
    assert f.what_if["time_after_s"] < t512 / 5
    assert finding(a500, "GEN-PITCH-PAD", target) is None


def test_pitch_padding_rests_on_the_replay_not_the_pitch(traces):
    # the same 2048-byte pitch on the H200, whose caches the model does not thrash with it: no finding
    a = analysis(traces["rows_512"], ("nvidia-h200",))
    assert finding(a, "GEN-PITCH-PAD", "nvidia-h200") is None
