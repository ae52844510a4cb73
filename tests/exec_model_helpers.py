"""Synthetic targets and traces for the execution-model tests (SIMD, ALU, occupancy, verdict).

Traces are built column by column with NumPy so that the kernels' shapes (how
many loads, which lanes run which branch) are exact and visible in the test.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pyarrow as pa

from tracekit.targets.model import (
    CacheLevel,
    DramSpec,
    LaunchCosts,
    LocalMemorySpec,
    OccupancySpec,
    SimdSpec,
    Target,
)
from tracekit.trace import schema
from tracekit.trace.reader import Trace
from tracekit.trace.store import conform

ALL_OPS = {k: 1.0 for k in schema.OPCLASSES} | {"math_default": 8.0}


def make_target(name="toy", *, width=32, cus=4, clock_mhz=1000.0, pack=0, issuers=1,
                max_wg=1024, max_waves=32, max_groups=0, barriers=0, lmem=65536,
                lmem_min=0, lmem_step=0, regs=0, alu=None, pipes=None, launch=None, slot_min=1,
                dram_gbs=100.0,
                dram_ns=400.0, caches=None) -> Target:
    """A small, fully specified target for unit tests (numbers chosen for easy arithmetic)."""
    if caches is None:
        caches = (CacheLevel("L1", "compute_unit", 16384, 64, 4, latency_cycles=20,
                             bandwidth_bytes_per_cycle=64),
                  CacheLevel("L2", "shared", 262144, 64, 8, latency_cycles=100,
                             bandwidth_bytes_per_cycle=128))
    return Target(
        name=name, vendor="test", family="test", description="unit-test target",
        compute_units=cus, clock_mhz=clock_mhz,
        simd=SimdSpec(width=width, widths=(width,), pack_small_groups_up_to=pack, issuers_per_cu=issuers,
                      pack_slot_min_items=slot_min),
        caches=tuple(caches), transaction_bytes=64,
        local_memory=LocalMemorySpec(size_bytes=lmem, banks=16, bank_width_bytes=4, lanes_per_cycle=16),
        dram=DramSpec(bandwidth_gb_per_s=dram_gbs, latency_ns=dram_ns),
        occupancy=OccupancySpec(max_work_group_size=max_wg, max_waves_per_cu=max_waves,
                                max_work_groups_per_cu=max_groups, barrier_slots_per_cu=barriers,
                                local_mem_alloc_min_bytes=lmem_min, local_mem_alloc_step_bytes=lmem_step,
                                registers_per_cu=regs),
        alu_cycles=dict(ALL_OPS | (alu or {})), issue_pipes=dict(pipes or {}),
        launch=LaunchCosts(**(launch or {})))


def retarget(target: Target, **simd) -> Target:
    return replace(target, simd=replace(target.simd, **simd))


class KernelBuilder:
    """Collects accesses and instruction counts of one launch, then makes a :class:`Trace`."""

    def __init__(self, kernel: str, global_size: int, local_size: int, *, launch: int = 0,
                 build_options: str = "", local_mem_bytes: int = 0, metadata: dict | None = None,
                 source: str | None = None, total_items: int | None = None):
        self.kernel, self.launch = kernel, launch
        self.n, self.local = int(global_size), int(local_size)
        gid = np.arange(self.n, dtype=np.int64)
        self.group, self.item = gid // self.local, (gid % self.local).astype(np.int32)
        self.gid = gid
        self.launch_row = dict(kernel=kernel, launch=launch, global_size=[self.n, 1, 1],
                               local_size=[self.local, 1, 1], local_mem_bytes=local_mem_bytes,
                               build_options=build_options, device=None, source=source,
                               registers_per_item=None,
                               metadata=json.dumps(metadata) if metadata else None)
        if total_items and total_items > self.n:
            # Only the first work-groups are recorded; the launch was ``total_items`` big.
            meta = dict(metadata or {}, sampling={"mode": "first", "total_groups": total_items // self.local,
                                                  "groups_recorded": self.n // self.local})
            self.launch_row.update(global_size=[total_items, 1, 1], metadata=json.dumps(meta))
        self._acc: list[dict] = []
        self._ins: list[dict] = []
        self._seq = np.zeros(self.n, dtype=np.int64)

    def access(self, site: int, address, *, size=4, op="load", space="global", mask=None):
        """One access per work-item (where ``mask`` is true) at ``address`` (array over items)."""
        address = np.broadcast_to(np.asarray(address, dtype=np.uint64), (self.n,))
        m = np.ones(self.n, bool) if mask is None else np.asarray(mask, bool)
        self._acc.append(dict(group=self.group[m], item=self.item[m], site=np.full(m.sum(), site, np.int32),
                              seq=self._seq[m].copy(), space=space, op=op, address=address[m],
                              size=np.full(m.sum(), size, np.uint16)))
        self._seq[m] += 1
        return self

    def count(self, site: int, opclass: str, counts):
        """Instruction counts per work-item for (site, opclass)."""
        c = np.broadcast_to(np.asarray(counts, dtype=np.int64), (self.n,))
        m = c > 0
        self._ins.append(dict(group=self.group[m], item=self.item[m], site=site, opclass=opclass,
                              count=c[m]))
        return self

    def tables(self) -> dict[str, pa.Table]:
        acc = self._acc_table()
        ins = self._ins_table()
        launches = conform(pa.Table.from_pylist([self.launch_row]), "launches")
        return {"accesses": acc, "instructions": ins, "launches": launches}

    def _acc_table(self) -> pa.Table:
        if not self._acc:
            return schema.empty("accesses")
        cols = {k: np.concatenate([np.broadcast_to(np.asarray(a[k]), a["group"].shape) for a in self._acc])
                for k in ("group", "item", "site", "seq", "address", "size")}
        space = np.concatenate([np.full(len(a["group"]), a["space"], object) for a in self._acc])
        op = np.concatenate([np.full(len(a["group"]), a["op"], object) for a in self._acc])
        order = np.lexsort((cols["seq"], cols["item"], cols["group"]))
        t = pa.table({"kernel": pa.array([self.kernel] * len(order)),
                      "launch": pa.array(np.full(len(order), self.launch, np.int32)),
                      **{k: cols[k][order] for k in ("group", "item", "site", "seq")},
                      "space": pa.array(space[order].tolist()), "op": pa.array(op[order].tolist()),
                      "address": cols["address"][order], "size": cols["size"][order]})
        return conform(t, "accesses")

    def _ins_table(self) -> pa.Table:
        if not self._ins:
            return schema.empty("instructions")
        n = sum(len(i["group"]) for i in self._ins)
        t = pa.table({
            "kernel": pa.array([self.kernel] * n),
            "launch": pa.array(np.full(n, self.launch, np.int32)),
            "group": np.concatenate([i["group"] for i in self._ins]),
            "item": np.concatenate([i["item"] for i in self._ins]),
            "site": np.concatenate([np.full(len(i["group"]), i["site"], np.int32) for i in self._ins]),
            "opclass": pa.array(sum(([i["opclass"]] * len(i["group"]) for i in self._ins), [])),
            "count": np.concatenate([i["count"] for i in self._ins]),
        })
        return conform(t, "instructions")

    def trace(self, *, drop_launches: bool = False) -> Trace:
        tables = self.tables()
        if drop_launches:
            tables["launches"] = schema.empty("launches")
        return Trace(f"<synthetic {self.kernel}>", _tables=tables)


def combine(*builders: KernelBuilder) -> Trace:
    """One trace holding several launches."""
    parts = [b.tables() for b in builders]
    tables = {k: pa.concat_tables([p[k] for p in parts], promote_options="permissive") for k in parts[0]}
    return Trace("<synthetic>", _tables=tables)


# -- kernels whose design implies their verdict ---------------------------------------------------

def vector_add(n=1 << 18, local=64, total_items=None) -> KernelBuilder:
    """c[i] = a[i] + b[i]: two loads, one add, one store per item."""
    b = KernelBuilder("vector_add", n, local, total_items=total_items)
    b.access(1, 0x10000000 + 4 * b.gid).access(2, 0x20000000 + 4 * b.gid)
    b.access(4, 0x30000000 + 4 * b.gid, op="store")
    return b.count(1, "load", 1).count(2, "load", 1).count(3, "fp32_add", 1).count(4, "store", 1)


def strided_copy(n=1 << 16, local=64, stride=16, total_items=None) -> KernelBuilder:
    """out[i] = in[i * stride]: one scattered load, one store per item."""
    b = KernelBuilder("strided_copy", n, local, total_items=total_items)
    b.access(1, 0x10000000 + 4 * stride * b.gid).access(2, 0x40000000 + 4 * b.gid, op="store")
    return b.count(1, "load", 1).count(2, "store", 1).count(3, "int_mul", 1)


def fma_chain(n=1 << 14, local=64, loads=8, fmas=64, total_items=None) -> KernelBuilder:
    """acc = fma(in[j*n + i], acc, c) then ``fmas - 1`` more dependent FMAs, for ``loads`` values; one store.

    ``total_items`` larger than ``n`` records only the first ``n`` items' work-groups
    and says so in the launch's sampling metadata.
    """
    b = KernelBuilder("fma_chain", n, local, total_items=total_items)
    for j in range(loads):
        b.access(1, 0x10000000 + 4 * (j * n + b.gid))
    b.access(3, 0x20000000 + 4 * b.gid, op="store")
    return b.count(1, "load", loads).count(2, "fp32_fma", loads * fmas).count(3, "store", 1)


def pointer_chase(items=32, local=32, steps=200, array_bytes=256 << 20, seed=7) -> KernelBuilder:
    """p = next[p] ``steps`` times per item over a large array: every load needs the last."""
    b = KernelBuilder("pointer_chase", items, local)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        addr = 0x100000000 + 4 * rng.integers(0, array_bytes // 4, items, dtype=np.int64)
        b.access(1, addr)
    b.access(3, 0x20000000 + 4 * b.gid, op="store")
    return b.count(1, "load", steps).count(2, "int_add", steps).count(3, "store", 1)


def few_items(n=8) -> KernelBuilder:
    """A vector add over a grid of a few work-items."""
    return vector_add(n=n, local=n)
