"""The recorder against real Oclgrind runs: addresses, items, groups, sites and
instruction counts checked against what each kernel's index math implies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tracekit.errors import RecordError
from tracekit.formats import open_trace
from tracekit.recorder import record_kernel, toolchain

KERNELS = Path(__file__).resolve().parent.parent / "sample_traces" / "kernels"


@pytest.fixture(scope="module", autouse=True)
def built():
    """Compile plugin and host once (a no-op when the cache is warm)."""
    toolchain.plugin_path()
    toolchain.host_path()


def kernel_file(tmp_path: Path, source: str, name: str = "k.cl") -> Path:
    p = tmp_path / name
    p.write_text(source)
    return p


def test_vector_add_addresses_follow_index_math(tmp_path):
    n, local = 256, 64
    out = tmp_path / "va.tkt"
    r = record_kernel(KERNELS / "vector_add.cl", "vector_add", global_size=str(n), local_size=str(local),
                      args=[f"float[{n}]=rand", f"float[{n}]=range", f"float[{n}]", f"int:{n}"], out=out)
    assert r.launches == [("vector_add", "ok")] and r.accesses == 3 * n
    t = open_trace(out)
    a = t.accesses.to_pandas()
    meta = t.launch_metadata(0)
    bufs = meta["layout"]["global_buffers"]
    base = {b["arg"]: b["base"] for b in bufs}
    # allocation order, page-aligned, non-overlapping
    assert [b["arg"] for b in bufs] == [0, 1, 2]
    assert all(b["base"] % 4096 == 0 for b in bufs)
    assert base[0] + 4 * n <= base[1] and base[1] + 4 * n <= base[2]
    gid = a["group"].to_numpy() * local + a["item"].to_numpy()
    arg = a["buffer"].to_numpy()
    assert (a["address"].to_numpy() == np.array([base[b] for b in arg]) + 4 * gid).all()
    # per item: load a (seq 0), load b (seq 1), store c (seq 2)
    assert (a["seq"].to_numpy() == np.tile([0, 1, 2], n)).all()
    assert list(a["op"][:3]) == ["load", "load", "store"] and list(arg[:3]) == [0, 1, 2]
    assert set(a["space"]) == {"global"} and set(a["size"]) == {4}
    assert a["group"].max() == n // local - 1 and a["item"].max() == local - 1
    # every access's site points at the line with the addition, in our file
    sites = t.sites.to_pandas().set_index("site")
    lines = sites.loc[a["site"].unique(), "line"]
    src = (KERNELS / "vector_add.cl").read_text().splitlines()
    assert {src[ln - 1].strip() for ln in lines} == {"c[i] = a[i] + b[i];"}
    assert set(sites["file"].dropna()) == {str(KERNELS / "vector_add.cl")}
    assert meta["sampling"]["groups_recorded"] == meta["sampling"]["total_groups"] == n // local


def test_two_dimensional_groups_and_local_offsets(tmp_path):
    w = 32
    for kernel, row in (("transpose_tiled", 16), ("transpose_tiled_padded", 17)):
        out = tmp_path / f"{kernel}.tkt"
        record_kernel(KERNELS / "transpose.cl", kernel, global_size=f"{w},{w}", local_size="16,16",
                      args=[f"float[{w * w}]=range", f"float[{w * w}]", f"int:{w}", f"int:{w}"], out=out)
        t = open_trace(out)
        a = t.accesses.to_pandas()
        lx, ly = a["item"] % 16, a["item"] // 16
        gx, gy = a["group"] % 2, a["group"] // 2
        assert a["group"].max() == 3
        glob_load = a[(a.space == "global") & (a.op == "load")]
        base_in = t.launch_metadata(0)["layout"]["global_buffers"][0]["base"]
        idx = ((gy * 16 + ly) * w + gx * 16 + lx)[glob_load.index]
        assert (glob_load["address"] == base_in + 4 * idx).all()
        st = a[(a.space == "local") & (a.op == "store")]
        ld = a[(a.space == "local") & (a.op == "load")]
        assert (st["address"] == 4 * (ly * row + lx)[st.index]).all()
        assert (ld["address"] == 4 * (lx * row + ly)[ld.index]).all()
        assert t.launches["local_mem_bytes"][0].as_py() >= 4 * 16 * row


def test_instruction_classes_and_counts(tmp_path):
    out = tmp_path / "fma.tkt"
    record_kernel(KERNELS / "fma_chain.cl", "fma_chain", global_size="64", local_size="32",
                  args=["float[64]=rand", "float[64]"], build_options="-DCHAIN=64", out=out)
    ins = open_trace(out).instructions.to_pandas()
    per_item = ins.groupby(["group", "item", "opclass"], observed=True)["count"].sum().unstack()
    # the conformant fma() builtin is its own class (targets may emulate it); no contraction here
    assert (per_item["math_fma"] == 64).all() and (per_item["load"] == 1).all()
    assert "fp32_fma" not in per_item.columns
    assert len(per_item) == 64

    src = kernel_file(tmp_path, """
__kernel void v4(__global const float4* a, __global float4* b) {
  int i = get_global_id(0);
  b[i] = native_sin(a[i]) + mad(a[i], a[i], a[i]);
}""")
    out = tmp_path / "v4.tkt"
    record_kernel(src, "v4", global_size="8", local_size="8", args=["float4[8]=rand", "float4[8]"], out=out)
    t = open_trace(out)
    totals = t.instructions.to_pandas().groupby("opclass", observed=True)["count"].sum()
    assert totals["fp32_add"] == 4 * 8 and totals["math_native_sin"] == 4 * 8
    assert totals["fp32_fma"] == 4 * 8  # mad(): the implementation's multiply-add, not math_fma
    assert set(t.accesses.to_pandas()["size"]) == {16}


def test_equal_work_items_are_written_as_runs_and_divergent_ones_are_not(tmp_path):
    """Items that execute every site equally often share rows; a branch taken by
    odd items only splits the group into one-item runs, and both expand to the
    same per-item counts the kernel implies."""
    src = kernel_file(tmp_path, """
__kernel void odd(__global float* a) {
  int i = get_global_id(0);
  if (get_local_id(0) >= 4 && (i & 1))
    a[i] = a[i] * 2.0f + 1.0f;
}""")
    out = tmp_path / "odd.tkt"
    record_kernel(src, "odd", global_size="32", local_size="16", args=["float[32]=rand"], out=out)
    t = open_trace(out)
    stored = pa.Table.from_batches(list(t.iter_batches("instructions", runs=True)))
    runs = stored.to_pandas()
    first = runs[runs["item"] < 4]
    assert set(first["item"]) == {0} and first["items"].min() >= 4    # items 0-3 agree: one run
    assert set(runs[runs["item"] >= 5]["items"]) == {1}                  # then odd/even alternate
    per_item = t.instructions.to_pandas()
    math = per_item[per_item["opclass"].isin(["fp32_fma", "fp32_mul"])]
    fma = math.groupby(["group", "item"])["count"].sum()
    taken = {(g, i) for g in range(2) for i in range(4, 16) if (g * 16 + i) & 1}
    assert set(fma.index) == taken and (fma > 0).all()
    assert per_item.groupby(["group", "item"]).ngroups == 32
    assert len(stored) < len(per_item)


def test_math_builtins_precise_and_native(tmp_path):
    for kernel, expect in (("math_precise", "math_sin"), ("math_native", "math_native_sin")):
        out = tmp_path / f"{kernel}.tkt"
        record_kernel(KERNELS / "float_math.cl", kernel, global_size="16", local_size="16",
                      args=["float[16]=rand:1:0:4", "float[16]"], out=out)
        classes = set(open_trace(out).instructions.to_pandas()["opclass"])
        assert expect in classes
        assert ("math_sin" in classes) == (kernel == "math_precise")


def test_private_memory_and_atomics(tmp_path):
    src = kernel_file(tmp_path, """
__kernel void priv(__global const int* idx, __global int* out, __global int* counter) {
  int i = get_global_id(0);
  int scratch[8];
  for (int k = 0; k < 8; k++) scratch[k] = k * i;
  out[i] = scratch[idx[i] & 7];
  atomic_add(counter, 1);
}""")
    out = tmp_path / "p.tkt"
    record_kernel(src, "priv", global_size="16", local_size="8",
                  args=["int[16]=range", "int[16]", "int[1]"], out=out)
    a = open_trace(out).accesses.to_pandas()
    priv = a[a.space == "private"]
    assert len(priv) and priv["address"].max() < 8 * 4 and priv["buffer"].isna().all()
    reads = priv[priv.op == "load"]
    assert (reads["address"].to_numpy() == 4 * ((reads["group"] * 8 + reads["item"]) & 7).to_numpy()).all()
    atom = a[a.op == "atomic"]
    assert len(atom) == 16 and (atom["buffer"] == 2).all() and atom["address"].nunique() == 1


@pytest.mark.parametrize("spec,expected", [
    ("first:2", [0, 1]), ("every:3", [0, 3, 6]), ("random:3:5", None)])
def test_sampling_marks_metadata(tmp_path, spec, expected):
    out = tmp_path / "s.tkt"
    record_kernel(KERNELS / "vector_add.cl", "vector_add", global_size="256", local_size="32",
                  args=["float[256]", "float[256]", "float[256]", "int:256"], sample=spec, out=out)
    t = open_trace(out)
    groups = sorted(set(t.accesses.to_pandas()["group"]))
    s = t.launch_metadata(0)["sampling"]
    assert s["total_groups"] == 8 and s["groups_recorded"] == len(groups)
    assert s["scale"] == pytest.approx(8 / len(groups))
    if expected is None:
        assert len(groups) == 3 and s["mode"] == "random" and s["seed"] == 5
        again = tmp_path / "s2.tkt"
        record_kernel(KERNELS / "vector_add.cl", "vector_add", global_size="256", local_size="32",
                      args=["float[256]", "float[256]", "float[256]", "int:256"], sample=spec, out=again)
        assert sorted(set(open_trace(again).accesses.to_pandas()["group"])) == groups
    else:
        assert groups == expected
    assert sorted(set(t.instructions.to_pandas()["group"])) == groups


def test_alignment_option_changes_bases(tmp_path):
    out = tmp_path / "a.tkt"
    record_kernel(KERNELS / "vector_add.cl", "vector_add", global_size="64", local_size="64",
                  args=["float[10]", "float[64]", "float[64]", "int:10"], alignment=256, out=out)
    layout = json.loads(open_trace(out).launches["metadata"][0].as_py())["layout"]
    bases = [b["base"] for b in layout["global_buffers"]]
    assert layout["alignment"] == 256 and bases[1] - bases[0] == 256 and bases[0] % 4096 == 0


def test_same_trace_with_several_oclgrind_threads(tmp_path, monkeypatch):
    """Work-groups finish out of order on several threads; the trace must not change."""
    args = ["float[1024]=rand:8", "float[1024]=rand:9", "float[1024]", "int:32"]
    tables = []
    for threads in ("1", "4"):
        monkeypatch.setenv("OCLGRIND_NUM_THREADS", threads)
        out = tmp_path / f"t{threads}.tkt"
        record_kernel(KERNELS / "matmul.cl", "matmul_tiled", global_size="32,32", local_size="16,16",
                      args=args, out=out)
        t = open_trace(out)
        tables.append((t.accesses, t.instructions))
    assert tables[0][0].equals(tables[1][0]) and tables[0][1].equals(tables[1][1])
    assert sorted(set(tables[0][0]["group"].to_pylist())) == [0, 1, 2, 3]


def test_relative_kernel_path_stays_relative(tmp_path, monkeypatch):
    """A kernel given by a relative path is stored by that path (sites and metadata), so a
    trace recorded in one clone names the same file in every other."""
    from tracekit.cli import main

    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "va.cl").write_text((KERNELS / "vector_add.cl").read_text())
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as done:
        main(["record", "-q", "kernels/va.cl", "--kernel", "vector_add", "--global", "64", "--local", "32",
              "--arg", "float[64]", "--arg", "float[64]", "--arg", "float[64]", "--arg", "int:64",
              "-o", "va.tkt"])
    assert done.value.code == 0
    t = open_trace(tmp_path / "va.tkt")
    assert set(t.sites.to_pandas()["file"].dropna()) == {"kernels/va.cl"}
    assert t.launch_metadata(0)["kernel_file"] == "kernels/va.cl"
    # absolute in, absolute out: the path is never rewritten either way
    record_kernel(tmp_path / "kernels" / "va.cl", "vector_add", global_size="64",
                  args=["float[64]", "float[64]", "float[64]", "int:64"], out=tmp_path / "abs.tkt")
    t = open_trace(tmp_path / "abs.tkt")
    assert set(t.sites.to_pandas()["file"].dropna()) == {str(tmp_path / "kernels" / "va.cl")}


def test_rows_are_canonical_when_work_items_interleave(tmp_path):
    """Barriers make Oclgrind run work-items in turns, so accesses arrive interleaved;
    the trace must still be ordered by (group, item, seq) with seq counting 0, 1, ...
    per work-item, and a work-item's accesses must keep their program order."""
    out = tmp_path / "tiled.tkt"
    record_kernel(KERNELS / "matmul.cl", "matmul_tiled", global_size="32,32", local_size="16,16",
                  args=["float[1024]=rand:1", "float[1024]=rand:2", "float[1024]", "int:32"], out=out)
    a = open_trace(out).accesses.to_pandas()
    key = a[["group", "item", "seq"]].to_numpy()
    assert (np.diff(key[:, 0] * 2**40 + key[:, 1] * 2**20 + key[:, 2]) > 0).all()
    counts = a.groupby(["group", "item"])["seq"].agg(lambda s: (s.to_numpy() == np.arange(len(s))).all())
    assert counts.all()
    # program order of one work-item: per tile, load A / store As / load B / store Bs,
    # then 2 x TILE local loads; finally the store of C
    first = a[(a.group == 3) & (a.item == 17)]
    pattern = ["gl", "ls", "gl", "ls"] + ["ll"] * 32
    assert (first.space.str[0] + first.op.str[0]).tolist() == pattern * 2 + ["gs"]


def test_stream_space_and_op_codes_are_schema_positions():
    """The plugin writes space and op as positions in trace v1's lists (stream.h), and
    the converter uses them as dictionary indices without a lookup."""
    from tracekit.trace import schema
    text = (Path(toolchain.__file__).parent / "stream.h").read_text()
    for prefix, names in (("SPACE_", schema.SPACES), ("OP_", schema.OPS)):
        for name in names:
            code = f"{prefix}{name.upper()} = "
            assert code in text, code
            value = int(text.split(code)[1].split(",")[0])
            assert value == names.index(name), (name, value)
    assert "KIND_OP_SHIFT = 3;" in text and len(schema.SPACES) <= 8  # three bits hold the space


def test_build_options_reach_the_compiler(tmp_path):
    """Build options are handed to Oclgrind's compiler as given: a ``-D`` macro sets the
    loop count, ``-cl-fast-relaxed-math`` builds and is kept in the launch row (the ALU
    model reads it there), and an option clang does not know fails the build by name."""
    src = kernel_file(tmp_path, """
__kernel void k(__global float* out) {
  int i = get_global_id(0);
  for (int s = 0; s < STORES; s++) out[i * 4 + s] = 1.0f;
}""")
    counts = {}
    for options in ("-DSTORES=2", "-DSTORES=3", "-DSTORES=2 -cl-fast-relaxed-math"):
        out = tmp_path / f"o{len(counts)}.tkt"
        record_kernel(src, "k", global_size="8", local_size="8", args=["float[32]"],
                      build_options=options, out=out)
        t = open_trace(out)
        counts[options] = t.num_accesses
        assert t.launches["build_options"][0].as_py() == options
    assert counts == {"-DSTORES=2": 16, "-DSTORES=3": 24, "-DSTORES=2 -cl-fast-relaxed-math": 16}
    with pytest.raises(RecordError, match="unknown argument: '-cl-no-such-option'"):
        record_kernel(src, "k", global_size="8", args=["float[32]"], out=tmp_path / "bad.tkt",
                      build_options="-DSTORES=1 -cl-no-such-option")


def test_plugin_cache_is_per_user_and_keyed_by_oclgrind_version_and_sources(tmp_path, monkeypatch):
    """Built once into ``$XDG_CACHE_HOME/tracekit/plugins/<version>-<hash>/``, reused after
    that, and a changed source names another directory (so it is rebuilt)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lib = toolchain.plugin_path()
    version = toolchain.find_toolchain().version
    assert lib.parent.parent == tmp_path / "cache" / "tracekit" / "plugins"
    assert lib.parent.name.startswith(f"{version}-") and lib.is_file()
    built_at = lib.stat().st_mtime_ns
    assert toolchain.plugin_path() == lib and lib.stat().st_mtime_ns == built_at
    changed = tmp_path / "src"
    changed.mkdir()
    for name in toolchain.PLUGIN_SOURCES + toolchain.HOST_SOURCES + ("toolchain.py",):
        (changed / name).write_bytes((toolchain.SOURCE_DIR / name).read_bytes())
    with (changed / "plugin.cpp").open("a") as f:
        f.write("\n// changed\n")
    monkeypatch.setattr(toolchain, "SOURCE_DIR", changed)
    assert toolchain.build_dir() != lib.parent
