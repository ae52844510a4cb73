"""Small synthetic traces for the jobs tests, written with :func:`tracekit.trace.store.write_trace`.

``vector_add`` with a ``stride`` knob: stride 1 is the coalesced kernel, a large
stride spreads each wave's requests over many transactions, which the model
turns into more transactions per request and a longer estimated time (the
regression the jobs tests look for).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from tracekit.trace.store import write_trace

SOURCE = """__kernel void vector_add(__global const float *a, __global const float *b, __global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
"""


def vector_add(path, *, n: int = 1024, local: int = 64, stride: int = 1, kernel: str = "vector_add"):
    gid = np.arange(n, dtype=np.int64)
    group, item = gid // local, (gid % local).astype(np.int32)
    bases = (0x10000000, 0x20000000, 0x30000000)
    cols = {k: [] for k in ("group", "item", "site", "seq", "op", "address")}
    for seq, (site, base, op) in enumerate(zip((0, 1, 2), bases, ("load", "load", "store"), strict=True)):
        cols["group"].append(group)
        cols["item"].append(item)
        cols["site"].append(np.full(n, site, np.int32))
        cols["seq"].append(np.full(n, seq, np.int64))
        cols["op"] += [op] * n
        cols["address"].append((base + gid * 4 * stride).astype(np.uint64))
    g, it = np.concatenate(cols["group"]), np.concatenate(cols["item"])
    order = np.lexsort((np.concatenate(cols["seq"]), it, g))
    acc = pa.table({
        "kernel": [kernel] * (3 * n), "launch": np.zeros(3 * n, np.int32), "group": g[order],
        "item": it[order], "site": np.concatenate(cols["site"])[order],
        "seq": np.concatenate(cols["seq"])[order], "space": ["global"] * (3 * n),
        "op": np.array(cols["op"])[order], "address": np.concatenate(cols["address"])[order],
        "size": np.full(3 * n, 4, np.uint16)})
    ins = pa.table({"kernel": [kernel] * (2 * n), "launch": np.zeros(2 * n, np.int32),
                    "group": np.concatenate([group, group]), "item": np.concatenate([item, item]),
                    "site": np.concatenate([np.full(n, 3, np.int32), np.full(n, 0, np.int32)]),
                    "opclass": ["fp32_add"] * n + ["load"] * n, "count": np.ones(2 * n, np.int64)})
    launches = pa.table({"kernel": [kernel], "launch": [0], "global_size": [[n, 1, 1]],
                         "local_size": [[local, 1, 1]], "local_mem_bytes": [0], "build_options": [""],
                         "device": [None], "source": [SOURCE], "registers_per_item": [None],
                         "metadata": [None]})
    sites = pa.table({"kernel": [kernel] * 4, "site": [0, 1, 2, 3],
                      "opcode": ["load", "load", "store", "fadd"],
                      "file": ["vector_add.cl"] * 4, "line": [3, 3, 3, 3], "column": [12, 19, 10, 17]})
    return write_trace(path, acc, instructions=ins, launches=launches, sites=sites)


def test_synthetic_trace_is_canonical_and_strided(tmp_path):
    from tracekit import open_trace

    t = open_trace(vector_add(tmp_path / "v.tkt", n=128, local=32, stride=8))
    acc = t.accesses.to_pandas()
    assert len(acc) == 3 * 128 and t.kernels == ["vector_add"]
    keys = acc[["launch", "group", "item", "seq"]].to_numpy()
    assert (np.diff(keys[:, 1] * 10**6 + keys[:, 2] * 10 + keys[:, 3]) > 0).all()   # canonical order
    loads = acc[(acc.site == 0)].sort_values(["group", "item"])
    assert (np.diff(loads.address.astype(np.int64)) == 32).all()                     # 8 floats apart
