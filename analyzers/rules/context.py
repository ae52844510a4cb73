"""RuleContext: everything a rule may read about one (kernel launch, target).

Rules never touch the trace or the replay directly; they read this object.  It
is built by :func:`build_context` from a trace, a target and (optionally) the
analysis result for that target; without a result the numbers the replay would
give (transactions, conflict degree, times, occupancy) come from the small
fallback model in :mod:`.facts_access` and :mod:`.facts_exec`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from analyzers.rules import facts_access, facts_exec
from analyzers.rules.thresholds import threshold


@dataclass(frozen=True)
class LaunchFacts:
    kernel: str
    launch: int
    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]
    build_options: str
    local_mem_bytes: int
    registers_per_item: int | None
    source: str | None
    metadata: dict
    has_barrier: bool
    uses_local: bool
    reqd_work_group_size: bool | None   # None: neither source nor metadata tells
    groups_total: int
    groups_recorded: int

    @property
    def group_size(self) -> int:
        return int(np.prod(self.local_size))

    @property
    def work_items(self) -> int:
        return int(np.prod(self.global_size))

    @property
    def sampling_scale(self) -> float:
        """Recorded work-groups stand for this many times as many (1 when all were recorded)."""
        return self.groups_total / self.groups_recorded if self.groups_recorded else 1.0

    def has_option(self, *names: str) -> bool:
        opts = self.build_options.split()
        return any(n in opts for n in names)


@dataclass
class RuleContext:
    target: object
    launch: LaunchFacts
    #: One row per site with accesses (see facts_access.site_facts for the columns).
    sites: pd.DataFrame
    #: One row per (site, opclass): executions, issues, lanes, utilization.
    ops: pd.DataFrame
    #: Launch-level numbers: simd_utilization, occupancy_fraction, resident_waves_per_cu,
    #: occupancy_limiter, footprint_bytes, dram_bytes, local_reads_per_word, ...
    metrics: dict
    #: alu_s, memory_s, latency_s, total_s and verdict.
    times: dict
    #: site -> (file, line) from the sites table.
    source_lines: dict[int, tuple[str, int]]
    #: Per buffer: median rows one item reads and the row pitch (2D stencil shape).
    stencils: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The analysis result the numbers came from (None: fallback model).
    result: object | None = None

    # -- helpers rules use ---------------------------------------------------------------
    @property
    def width(self) -> int:
        return int(self.target.simd.width)

    def t(self, name: str) -> float:
        return threshold(self, name)

    def space(self, space: str, op: str | None = None) -> pd.DataFrame:
        s = self.sites[self.sites["space"] == space]
        return s if op is None else s[s["op"] == op]

    def hot(self, df: pd.DataFrame, col: str = "accesses") -> pd.DataFrame:
        """Rows of ``df`` carrying at least ``min_site_share`` of the launch's ``col`` total,
      hottest first."""
        total = self.sites[col].sum() if col in self.sites else df[col].sum()
        if not len(df) or not total:
            return df.iloc[0:0]
        keep = df[df[col] >= self.t("min_site_share") * total]
        return keep.sort_values([col, "site"], ascending=[False, True])

    def executions(self, pred) -> float:
        o = self.ops
        return float(o.loc[o["opclass"].map(pred), "executions"].sum()) if len(o) else 0.0

    def issues(self, pred) -> float:
        o = self.ops
        return float(o.loc[o["opclass"].map(pred), "issues"].sum()) if len(o) else 0.0

    def cycles(self, opclass: str) -> float:
        return float(self.target.alu_cycles.get(opclass, 0.0))

    def alu_seconds(self, cycles: float) -> float:
        hz = self.target.clock_mhz * 1e6
        return cycles * self.launch.sampling_scale / (max(self.target.compute_units, 1) * hz)

    def site_memory_s(self, site: int) -> float:
        """The share of the memory time a site carries (by bytes moved)."""
        total = self.sites.loc[self.sites["space"] != "local", "bytes_moved"].sum()
        if not total:
            return 0.0
        row = self.sites.loc[self.sites["site"] == site, "bytes_moved"]
        return float(self.times.get("memory_s", 0.0)) * float(row.sum()) / float(total)

    def gain_alu(self, seconds: float) -> float:
        """Total time saved if the ALU time dropped by ``seconds`` (the other terms unchanged)."""
        return self._gain("alu_s", seconds)

    def gain_memory(self, seconds: float) -> float:
        """Total time saved if the memory time dropped by ``seconds``."""
        return self._gain("memory_s", seconds)

    def _gain(self, key: str, seconds: float) -> float:
        t = self.times
        parts = {k: float(t.get(k, 0.0) or 0.0) for k in ("alu_s", "memory_s", "latency_s")}
        before = max(parts.values())
        parts[key] = max(0.0, parts[key] - max(0.0, seconds))
        return max(0.0, before - max(parts.values()))

    def line(self, site: int) -> tuple[str, int]:
        return self.source_lines.get(int(site), ("?", 0))


def _launch_row(trace, launch: int) -> dict:
    t = trace.launches.filter(pc.equal(trace.launches["launch"], launch))
    if not t.num_rows:
        raise KeyError(f"launch {launch} is not in the trace's launches table")
    return {c: t[c][0].as_py() for c in t.column_names}


def _reqd(source: str | None, meta: dict) -> bool | None:
    if "reqd_work_group_size" in meta:
        return bool(meta["reqd_work_group_size"])
    if source:
        return "reqd_work_group_size" in source
    return None


def build_context(trace, target, result=None, launch: int | None = None) -> RuleContext:
    """The context of one launch (the first one when ``launch`` is None) on one target."""
    launch = int(trace.launches["launch"][0].as_py()) if launch is None else int(launch)
    row = _launch_row(trace, launch)
    acc = trace.accesses
    acc = acc.filter(pc.equal(acc["launch"], launch)).to_pandas()
    ins = trace.instructions
    ins = ins.filter(pc.equal(ins["launch"], launch)).to_pandas()
    width = int(target.simd.width)
    acc = facts_access.prepare(acc, width)
    gsize = tuple(int(x) for x in row["global_size"])
    lsize = tuple(int(x) for x in row["local_size"])
    groups_total = int(np.prod([math.ceil(g / max(loc, 1)) for g, loc in zip(gsize, lsize, strict=False)]))
    seen = pd.concat([acc["group"], ins["group"]]).nunique()
    meta = trace.launch_metadata(launch)
    ops = facts_exec.op_facts(ins, width, facts_exec.lanes_present([acc, ins], width))
    has_barrier = bool(len(ops) and (ops["opclass"] == "barrier").any())
    lf = LaunchFacts(
        kernel=row["kernel"], launch=launch, global_size=gsize, local_size=lsize,
        build_options=row.get("build_options") or "", local_mem_bytes=int(row.get("local_mem_bytes") or 0),
        registers_per_item=row.get("registers_per_item"), source=row.get("source"), metadata=meta,
        has_barrier=has_barrier,
        uses_local=bool((acc["space"] == "local").any() or row.get("local_mem_bytes")),
        reqd_work_group_size=_reqd(row.get("source"), meta), groups_total=groups_total,
        groups_recorded=int(seen) or groups_total)
    sites = facts_access.site_facts(acc, target, 16) if len(acc) else _empty_sites()
    sites_tab = trace.sites.to_pandas()
    sites_tab = sites_tab[sites_tab["kernel"] == lf.kernel]
    lines = {int(r.site): (r.file or "?", int(r.line) if r.line == r.line and r.line is not None else 0)
             for r in sites_tab.itertuples()}
    tx = int(target.transaction_bytes)
    metrics = {"footprint_bytes": facts_access.footprint_bytes(acc, tx) if len(acc) else 0,
               "staged_local_store_fraction": facts_access.staging(acc) if len(acc) else 0.0}
    metrics.update(facts_access.local_reuse(acc) if len(acc) else {})
    executions = ops["executions"].sum() if len(ops) else 0
    slots = (ops["executions"] / ops["utilization"]).sum() if len(ops) else 0
    metrics["lane_utilization"] = float(executions / slots) if slots else float("nan")
    total_waves = groups_total * math.ceil(lf.group_size / width)
    metrics["simd_utilization"] = lf.group_size / (math.ceil(lf.group_size / width) * width)
    metrics.update(facts_exec.fallback_occupancy(target, lf.group_size, lf.local_mem_bytes, has_barrier,
                                                 total_waves))
    metrics["total_waves"] = total_waves
    cyc = facts_exec.alu_cycles(ops, target)
    metrics["alu_cycles"] = float(cyc.sum()) if len(cyc) else 0.0
    moved = float(sites.loc[sites["space"] != "local", "bytes_moved"].sum()) if len(sites) else 0.0
    dram = facts_access.fallback_dram_bytes(acc, target) if len(acc) else 0
    metrics["cache_modelled"] = dram is not None
    metrics["dram_bytes"] = (moved if dram is None else dram) * lf.sampling_scale
    times = facts_exec.fallback_times(target, metrics["alu_cycles"], moved, lf.sampling_scale)
    stencils = facts_access.stencil_rows(acc) if len(acc) else pd.DataFrame(columns=["buffer", "rows",
            "pitch"])
    ctx = RuleContext(target=target, launch=lf, sites=sites, ops=ops, metrics=metrics, times=times,
                      source_lines=lines, stencils=stencils, result=None)
    if result is not None:
        _apply_result(ctx, result)
    return ctx


def build_contexts(trace, target, result=None) -> list[RuleContext]:
    """One context per launch of the trace, in launch order."""
    launches = sorted(set(trace.launches["launch"].to_pylist()))
    return [build_context(trace, target, result, launch=n) for n in launches]


def _empty_sites() -> pd.DataFrame:
    cols = ["site", "accesses", "items", "space", "op", "access_size", "bytes_requested", "unaligned",
            "adjacent", "rereads_per_item", "max_items_one_address", "max_accesses_one_address",
            "requests", "transactions", "ideal_transactions", "misaligned_requests", "uniform_requests",
            "bytes_moved", "local_requests", "local_cycles", "lanes_per_request", "distinct_per_request",
            "conflict_degree_mean", "transactions_per_request", "ideal_per_request"]
    return pd.DataFrame(columns=cols)


def _apply_result(ctx: RuleContext, result) -> None:
    """Take the replay's numbers where the analysis result has them (see docs/rules.md)."""
    from analyzers.rules.adapt import apply_result
    apply_result(ctx, result)
