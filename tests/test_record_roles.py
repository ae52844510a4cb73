"""Instruction roles the recorder writes to ``sites.role`` (tracekit/recorder/roles.h).

Small kernels whose def-use is known by construction: an index that only feeds an
address, a loop counter that only runs the loop, a counter that is also summed,
a value that is both an index and a result, and a loaded pointer chase.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tracekit.formats import open_trace
from tracekit.recorder import record_kernel, toolchain

SOURCE = """
__kernel void row_sum(__global const float* a, __global float* out, int n) {
  int i = get_global_id(0);
  float s = 0.0f;
  for (int j = 0; j < n; j++)
    s += a[i * n + j];
  out[i] = s;
}
__kernel void counter_summed(__global float* out, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; j++)
    s += (float)j;
  out[get_global_id(0)] = s;
}
__kernel void index_value(__global float* out) {
  int i = get_global_id(0);
  out[i] = (float)i;
}
__kernel void chase(__global const int* next, __global int* out, int steps) {
  int p = get_global_id(0);
  for (int s = 0; s < steps; s++)
    p = next[p];
  out[get_global_id(0)] = p;
}
__kernel void vector_offsets(__global const float* a, __global float* out) {
  int i = get_global_id(0);
  vstore4(vload4(i, a), i, out);
}
__kernel void csr_row(__global const int* start, __global const int* col, __global const float* x,
                      __global float* out) {
  int r = get_global_id(0);
  float s = 0.0f;
  for (int j = start[r]; j < start[r + 1]; j++)
    s += x[col[j]];
  out[r] = s;
}
__kernel void row_accumulate(__global const float* a, __global float* out, int n) {
  int i = get_global_id(0);
  out[i] = 0.0f;
  for (int j = 0; j < n; j++)
    out[i] += a[i * n + j];
}
__kernel void tiled_sum(__global const float* a, __global float* out, __local float* tile, int n) {
  int l = get_local_id(0);
  float s = 0.0f;
  for (int t = 0; t < n; t++) {
    tile[l] = a[t * 8 + l];
    barrier(CLK_LOCAL_MEM_FENCE);
    s += tile[7 - l];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = s;
}
__kernel void tree_reduce(__global float* out, __local float* part) {
  int l = get_local_id(0);
  part[l] = (float)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 4; s > 0; s >>= 1) {
    if (l < s) part[l] += part[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = part[0];
}
"""


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    toolchain.plugin_path()
    toolchain.host_path()
    d = tmp_path_factory.mktemp("roles")
    src = d / "roles.cl"
    src.write_text(SOURCE)
    runs = {
        "row_sum": ["float[64]=rand", "float[8]", "int:8"],
        "counter_summed": ["float[8]", "int:5"],
        "index_value": ["float[8]"],
        "chase": ["int[8]=range", "int[8]", "int:3"],
        "vector_offsets": ["float[32]=rand", "float[32]"],
        "csr_row": ["int[9]=range", "int[8]=range", "float[8]=rand", "float[8]"],
        "row_accumulate": ["float[64]=rand", "float[8]", "int:8"],
        "tiled_sum": ["float[64]=rand", "float[8]", "local:32", "int:8"],
        "tree_reduce": ["float[8]", "local:32"],
    }
    out = {}
    for name, args in runs.items():
        path = d / f"{name}.tkt"
        r = record_kernel(src, name, global_size="8", local_size="8", args=args, out=path)
        assert r.launches == [(name, "ok")]
        t = open_trace(path)
        sites = t.sites.to_pandas()
        ins = t.instructions.to_pandas()
        ran = ins.groupby("site", observed=True)["opclass"].first().astype(str)
        sites = sites[sites["site"].isin(ran.index)].copy()
        sites["opclass"] = sites["site"].map(ran)
        sites["count"] = sites["site"].map(ins.groupby("site", observed=True)["count"].sum())
        out[name] = sites
    return out


def roles(sites: pd.DataFrame, line: int) -> dict[str, set]:
    """opcode -> roles of the executed sites on a source line (1-based in SOURCE)."""
    s = sites[sites["line"] == line]
    return {op: set(g["role"].fillna("-")) for op, g in s.groupby("opcode")}


def test_index_used_only_in_an_address_is_address(kernels):
    s = kernels["row_sum"]
    # s += a[i * n + j]: the index add, its sign extension and the getelementptr
    body = roles(s, 6)
    assert body["add"] == {"address"} and body["sext"] == {"address"}
    assert body["getelementptr"] == {"address"}
    # the load itself: a loop that stores nothing, its iterations free to overlap
    assert body["load"] == {"batched"} and body["fadd"] == {"-"}
    # i = get_global_id(0) feeds a[i * n + j] and out[i] only
    assert roles(s, 3)["call get_global_id"] == {"address"}


def test_loop_counter_compare_and_branches_are_loop_control(kernels):
    s = kernels["row_sum"]
    header = roles(s, 5)  # for (int j = 0; j < n; j++)
    assert header["icmp"] == {"loop"}
    assert header["add"] == {"loop"}        # j++ feeds only the compare and the index
    # the exit test and the back edge run every iteration; the jump into the loop once per item
    br = s[(s["line"] == 5) & (s["opcode"] == "br")]
    assert set(br.loc[br["count"] > 8, "role"]) == {"loop"}
    assert br.loc[br["count"] == 8, "role"].isna().all()
    # the role is what the site is for, not its class: the counter add stays int_add
    assert set(s[(s["line"] == 5) & (s["opcode"] == "add")]["opclass"]) == {"int_add"}


def test_counter_that_is_also_summed_is_work(kernels):
    s = kernels["counter_summed"]
    header = roles(s, 11)
    assert header["icmp"] == {"loop"} and "loop" in header["br"]
    assert header["add"] == {"-"}  # j feeds s += (float)j as well as the loop


def test_value_used_as_index_and_result_is_work(kernels):
    s = kernels["index_value"]
    line = roles(s, 16)  # i = get_global_id(0), used by out[i] and (float)i
    assert line["call get_global_id"] == {"-"} and line["trunc"] == {"-"}
    store = roles(s, 17)
    assert store["sext"] == {"address"} and store["getelementptr"] == {"address"}
    assert store["sitofp"] == {"-"}


def test_pointer_chase_addresses_are_indirect(kernels):
    s = kernels["chase"]
    body = roles(s, 22)  # p = next[p]: the address comes round the loop from the load
    assert body["getelementptr"] == {"indirect"} and body["sext"] == {"indirect"}
    assert body["load"] == {"-"}
    assert roles(s, 21)["icmp"] == {"loop"}


def test_vload_and_vstore_offsets_are_addresses(kernels):
    s = kernels["vector_offsets"]
    assert roles(s, 26)["call get_global_id"] == {"address"}
    line = roles(s, 27)  # the offset's sign extension (shl, ashr) feeds vload4 and vstore4 only
    assert line["shl"] == {"address"} and line["ashr"] == {"address"}
    assert line["call vload4"] == {"-"} and line["call vstore4"] == {"-"}


def test_traces_without_roles_still_read(tmp_path):
    """The column is optional: a sites table written without it reads back with nulls."""
    import pyarrow as pa

    from tracekit.trace import schema, store

    old = pa.table({"kernel": ["k"], "site": pa.array([0], pa.int32()), "opcode": ["load"],
                    "file": [None], "line": pa.array([None], pa.int32()),
                    "column": pa.array([None], pa.int32())})
    t = store.conform(old, "sites")
    assert t.schema == schema.SITES and t["role"].null_count == 1


def test_gather_is_indirect_and_a_loaded_loop_start_is_not(kernels):
    s = kernels["csr_row"]
    body = s[(s["line"] == 34) & s["opcode"].isin(["sext", "getelementptr"])]  # s += x[col[j]]
    loads = s[(s["line"] == 34) & (s["opcode"] == "load")]["column"]
    inner, outer = loads.max(), loads.min()  # col[j] is written right of x[
    # col[j]: j starts at the loaded start[r] but steps by one, an ordinary address
    assert set(body.loc[body["column"] == inner, "role"]) == {"address"}
    # x[col[j]]: the index is a loaded value
    assert set(body.loc[body["column"] == outer, "role"]) == {"indirect"}


def test_loads_of_a_loop_that_stores_nothing_are_batched(kernels):
    """Iterations a compiler may overlap: the loop writes no global memory, runs no barrier
    or atomic, and no load's address comes round the loop from a loaded value."""
    csr = kernels["csr_row"]
    assert set(csr.loc[(csr["line"] == 34) & (csr["opcode"] == "load"), "role"]) == {"batched"}
    # the row bounds are loaded once, outside the loop
    assert csr.loc[(csr["line"] == 33) & (csr["opcode"] == "load"), "role"].isna().all()
    # out[i] += a[...] stores every iteration: the next iteration's load waits behind it
    acc = kernels["row_accumulate"]
    assert acc.loc[(acc["line"] == 41) & (acc["opcode"] == "load"), "role"].isna().all()
    assert len(acc.loc[(acc["line"] == 41) & (acc["opcode"] == "load")]) >= 1
    # a barrier in the loop orders it too
    tiled = kernels["tiled_sum"]
    assert tiled.loc[(tiled["line"] == 47) & (tiled["opcode"] == "load"), "role"].isna().all()
    # a pointer chase: each address is the last iteration's load
    chase = kernels["chase"]
    assert chase.loc[(chase["line"] == 22) & (chase["opcode"] == "load"), "role"].isna().all()


def test_a_barrier_loop_with_a_run_time_trip_count_keeps_its_control(kernels):
    """Compilers keep a loop that waits at a barrier rolled unless its trip count is a constant
    (nvcc: one BAR per body in the tree reduction's and the tiled product's loops, the
    constant-count reduction of SpMV-vector unrolled): its counter, compare and branches
    are the kernel's work, not loop control."""
    tiled = kernels["tiled_sum"]  # for (int t = 0; t < n; t++) round two barriers
    header = tiled[(tiled["line"] == 46) & tiled["opcode"].isin(["icmp", "br"])]
    assert len(header) and header["role"].isna().all()
    tree = kernels["tree_reduce"]  # for (int s = 4; s > 0; s >>= 1): a constant trip count
    assert roles(tree, 58)["icmp"] == {"loop"} and "loop" in roles(tree, 58)["br"]
    # a loop without a barrier keeps its loop control however its count is known
    assert roles(kernels["row_sum"], 5)["icmp"] == {"loop"}
