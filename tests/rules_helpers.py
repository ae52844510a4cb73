"""Build small synthetic traces for rule tests: one kernel launch, items doing a few steps each.

A test says what every work-item does, step by step, with vectorised address
functions of the item's ids; the builder writes the four trace tables (accesses
in canonical order, instructions per (item, site, opclass), the launch row and a
sites table with one source line per site) and opens them as an in-memory Trace.

    k = KernelBuilder(global_size=256, local_size=64)
    k.load(1, lambda i: 4 * i.gid)            # site 1: a[gid]
    k.ops(2, "fp32_add")                       # site 2: one add per item
    facts = context_for(k, "powervr")
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from analyzers.rules import launch_facts, run_rules, vendor_key
from tracekit.trace import store
from tracekit.trace.reader import Trace

GLOBAL_BASE = {0: 0x10000, 1: 0x400000, 2: 0x800000, 3: 0xC00000}


@dataclass
class Ids:
    """Per-item ids, numpy arrays over all work-items of the launch."""

    gid: np.ndarray      # linear global id
    gx: np.ndarray
    gy: np.ndarray
    lid: np.ndarray      # linear local id
    lx: np.ndarray
    ly: np.ndarray
    group: np.ndarray    # linear group id


def _dim3(v) -> tuple[int, int, int]:
    v = (v,) if isinstance(v, int) else tuple(v)
    return tuple(list(v) + [1] * (3 - len(v)))


class KernelBuilder:
    def __init__(self, global_size=256, local_size=32, *, kernel="k", build_options="", local_mem_bytes=0,
                 registers=None, source=None, metadata=None):
        self.gs, self.ls = _dim3(global_size), _dim3(local_size)
        self.kernel, self.build_options, self.source = kernel, build_options, source
        self.local_mem_bytes, self.registers, self.metadata = local_mem_bytes, registers, metadata
        #: site -> source line, where sites share a line (default: site ``s`` on line ``10 + s``)
        self.lines: dict[int, int] = {}
        gx, gy = np.meshgrid(np.arange(self.gs[0]), np.arange(self.gs[1]))
        gx, gy = gx.ravel(), gy.ravel()
        ngx = math.ceil(self.gs[0] / self.ls[0])
        lx, ly = gx % self.ls[0], gy % self.ls[1]
        group = (gy // self.ls[1]) * ngx + gx // self.ls[0]
        lid = ly * self.ls[0] + lx
        self.ids = Ids(gid=gy * self.gs[0] + gx, gx=gx, gy=gy, lid=lid, lx=lx, ly=ly, group=group)
        self.n = len(gx)
        self.seq = np.zeros(self.n, dtype=np.int64)
        self.acc: list[dict] = []
        self.ins: list[dict] = []
        self.site_ops: dict[int, str] = {}

    # -- steps ------------------------------------------------------------------------
    def _mask(self, mask):
        if mask is None:
            return np.ones(self.n, dtype=bool)
        return np.asarray(mask(self.ids) if callable(mask) else mask, dtype=bool)

    def access(self, site, space, op, address, size=4, mask=None, buffer=None, opclass=True):
        m = self._mask(mask)
        addr = np.broadcast_to(np.asarray(address(self.ids) if callable(address) else address,
                dtype=np.int64),
                               (self.n,))
        if space == "global" and buffer is None:
            buffer = 0
        base = GLOBAL_BASE.get(buffer, 0) if space in ("global", "constant") else 0
        self.acc.append(dict(group=self.ids.group[m], item=self.ids.lid[m], site=np.full(m.sum(), site),
                             seq=self.seq[m].copy(), space=[space] * int(m.sum()), op=[op] * int(m.sum()),
                             address=(addr[m] + base).astype(np.uint64), size=np.full(m.sum(), size),
                             buffer=np.full(m.sum(), -1 if buffer is None else buffer)))
        self.seq[m] += 1
        self.site_ops.setdefault(site, op)
        if opclass:
            self.ops(site, op, mask=m)
        return self

    def load(self, site, address, **kw):
        return self.access(site, kw.pop("space", "global"), "load", address, **kw)

    def store(self, site, address, **kw):
        return self.access(site, kw.pop("space", "global"), "store", address, **kw)

    def ops(self, site, opclass, count=1, mask=None):
        m = self._mask(mask)
        cnt = np.broadcast_to(np.asarray(count(self.ids) if callable(count) else count, dtype=np.int64),
                (self.n,))
        m = m & (cnt > 0)
        self.ins.append(dict(group=self.ids.group[m], item=self.ids.lid[m], site=np.full(m.sum(), site),
                             opclass=[opclass] * int(m.sum()), count=cnt[m]))
        self.site_ops.setdefault(site, opclass)
        return self

    # -- output -----------------------------------------------------------------------
    def trace(self, *, file: str = "kernel.cl", lines: dict[int, int] | None = None) -> Trace:
        """The in-memory trace; sites sit on line ``10 + site`` of ``file`` unless ``lines`` says."""
        def cat(rows, keys):
            if not rows:
                return {k: [] for k in keys}
            return {k: np.concatenate([np.asarray(r[k]) for r in rows]) for k in keys}
        a = cat(self.acc, ["group", "item", "site", "seq", "space", "op", "address", "size", "buffer"])
        order = np.lexsort((a["seq"], a["item"], a["group"])) if len(a["group"]) else []
        a = {k: np.asarray(v)[order] for k, v in a.items()}
        n = len(a["group"])
        acc = pa.table({"kernel": [self.kernel] * n, "launch": np.zeros(n, dtype=np.int32), **a})
        i = cat(self.ins, ["group", "item", "site", "opclass", "count"])
        ni = len(i["group"])
        ins = pa.table({"kernel": [self.kernel] * ni, "launch": np.zeros(ni, dtype=np.int32), **i})
        import json
        launches = pa.table({"kernel": [self.kernel], "launch": [0], "global_size": [list(self.gs)],
                             "local_size": [list(self.ls)], "local_mem_bytes": [self.local_mem_bytes],
                             "build_options": [self.build_options], "device": [None], "source": [self.source],
                             "registers_per_item": [self.registers],
                             "metadata": [json.dumps(self.metadata) if self.metadata else None]})
        sites = sorted(self.site_ops)
        sites_t = pa.table({"kernel": [self.kernel] * len(sites), "site": sites,
                            "opcode": [self.site_ops[s] for s in sites], "file": [file] * len(sites),
                            "line": [(lines or self.lines).get(s, 10 + s) for s in sites],
                            "column": [1] * len(sites)})
        tables = {"accesses": store.conform(acc, "accesses"), "instructions": store.conform(ins,
                "instructions"),
                  "launches": store.conform(launches, "launches"), "sites": store.conform(sites_t, "sites")}
        return Trace("synthetic", _tables=tables)


# -- targets ---------------------------------------------------------------------------
def get_target(vendor: str):
    """The first shipped target of a vendor (sorted by name)."""
    from tracekit.targets import list_targets, load_target
    for name in list_targets():
        t = load_target(name)
        if vendor_key(t) == vendor:
            return t
    raise LookupError(f"no shipped target for vendor {vendor}")


def context_for(k: KernelBuilder, vendor: str, target=None):
    """The rules' facts of the builder's launch on the vendor's target (or ``target``), from the
    real analysis."""
    from analyzers.analyze import analyze
    (facts,) = launch_facts(analyze(k.trace(), target or get_target(vendor)))
    return facts


def fired(k: KernelBuilder, vendor: str, rule_id: str):
    """The finding of ``rule_id`` for this kernel on the vendor's target, or None."""
    found = run_rules(context_for(k, vendor), only=[rule_id])
    return found[0] if found else None


def priced(k: KernelBuilder, vendor: str, rule_id: str):
    """The finding of ``rule_id`` for this kernel priced by replay as ``tracekit analyze`` prices it
    (None when the rule does not fire or its fix would not help)."""
    from analyzers.analyze import analyze
    from analyzers.rules.gains import price_by_replay

    trace = k.trace()
    res = analyze(trace, get_target(vendor))
    found = price_by_replay(run_rules(res, only=[rule_id]), [res], trace)
    return found[0] if found else None
