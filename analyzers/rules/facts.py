"""What a rule may read about one (kernel launch, target): the analysis result, shaped for checks.

:class:`Facts` is built from one :class:`~analyzers.analyze.LaunchResult` and its
target and nothing else: rules never read the trace and never run a model of
their own, so the numbers in the checklist are the numbers in the analysis.  It
gives the checks three tables and a few helpers:

- ``sites``: one row per site with memory accesses: space, op, access size,
  requests, transactions (and the ideal for the bytes asked), misaligned and
  uniform requests, bytes requested and moved, local-memory conflict degree,
  cycles and conflict-free cycles, re-reads per item, adjacent narrow loads, the
  most items (or atomics) on one address, the buffer, and the source line;
- ``ops``: one row per (site, instruction class): lane executions, issues (a wave
  issues a site as often as its busiest lane), ALU cycles, and utilisation against
  the lanes the waves really hold;
- ``patterns``: launch-wide facts (footprint, local-memory staging and reuse, 2D
  stencil shape per buffer; :class:`~analyzers.replay.patterns.LaunchPatterns`).

The helpers turn a saving into the time the launch would gain (``gain_alu``,
``gain_memory``): the estimate is the three-term model's own, so a fix that
shortens a term which does not bound the launch gains nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analyzers.replay import LaunchPatterns

#: Site columns every check may rely on (missing facts read as 0).
SITE_COLUMNS = ("site", "space", "op", "accesses", "access_size", "bytes_requested", "bytes_moved",
                "requests", "transactions", "transactions_per_request", "ideal_transactions",
                "ideal_per_request", "misaligned_requests", "uniform_requests", "lanes_per_request",
                "distinct_per_request",
                "unaligned", "adjacent", "rereads_per_item", "max_items_one_address",
                "max_accesses_one_address", "buffer", "lane_stride", "local_requests", "local_cycles",
                "local_slices",
                "conflict_degree_mean", "cache_units", "ideal_cache_units", "misaligned_cache_units",
                "file", "line")


@dataclass
class Facts:
    """One launch on one target, as the rules see it (see the module docstring)."""

    target: object
    result: object          # the LaunchResult
    sites: pd.DataFrame
    ops: pd.DataFrame
    patterns: LaunchPatterns = field(default_factory=LaunchPatterns)

    # -- the launch ------------------------------------------------------------------
    @property
    def launch(self):
        """The launch's geometry (:class:`~analyzers.geometry.LaunchGeometry`)."""
        return self.result.geometry

    @property
    def width(self) -> int:
        return int(self.target.simd.width)

    @property
    def group_size(self) -> int:
        return int(self.launch.work_group_size)

    @property
    def work_items(self) -> int:
        return int(self.launch.items)

    @property
    def items_recorded(self) -> int:
        return int(self.launch.groups_recorded or self.launch.num_groups) * self.group_size

    @property
    def sampling_scale(self) -> float:
        return float(self.launch.sample_scale)

    @property
    def uses_local(self) -> bool:
        p = self.patterns
        return bool(p.local_loads or p.local_stores or self.launch.local_mem_bytes)

    @property
    def total_waves(self) -> int:
        """Waves of the whole launch, a work-group's items split into waves of the target's width."""
        groups = self.launch.total_groups or self.launch.num_groups
        return int(groups * math.ceil(self.group_size / self.width))

    def has_option(self, *names: str) -> bool:
        opts = (self.launch.build_options or "").split()
        return any(n in opts for n in names)

    # -- the model's answer ------------------------------------------------------------
    @property
    def times(self) -> dict:
        """``alu_s``, ``memory_s``, ``latency_s``, ``total_s`` of the launch (0 when unknown)."""
        te = self.result.time_estimates or {}
        return {k: float(te.get(k, 0.0) or 0.0) for k in ("alu_s", "memory_s", "latency_s", "total_s")}

    @property
    def verdict(self) -> str | None:
        return self.result.verdict

    @property
    def occupancy(self):
        return self.result.occupancy

    @property
    def dram_bytes(self) -> float:
        """DRAM bytes read and written by the whole launch (scaled from a sample)."""
        mem = self.result.memory
        if mem is None:
            return 0.0
        return float(mem.memory.dram_bytes) * self.sampling_scale

    @property
    def cache_modelled(self) -> bool:
        return bool(getattr(self.target, "caches", None)) and self.result.memory is not None

    @property
    def alu_cycles(self) -> float:
        """Issues times each class's cycles, over the recorded work-groups (the plain sum, no pipes)."""
        return float((self.ops["issues"] * self.ops["cycles"]).sum()) if len(self.ops) else 0.0

    # -- selecting rows ----------------------------------------------------------------
    def space(self, space: str, op: str | None = None) -> pd.DataFrame:
        s = self.sites[self.sites["space"] == space]
        return s if op is None else s[s["op"] == op]

    def hot(self, df: pd.DataFrame, col: str = "accesses", share: float = 0.02) -> pd.DataFrame:
        """Rows of ``df`` carrying at least ``share`` of the launch's ``col`` total, hottest first
        (2 % by default: a checklist names the lines that matter, not every cold one)."""
        total = self.sites[col].sum() if col in self.sites else df[col].sum()
        if not len(df) or not total:
            return df.iloc[0:0]
        keep = df[df[col] >= share * total]
        return keep.sort_values([col, "site"], ascending=[False, True])

    @property
    def work_ops(self) -> pd.DataFrame:
        """:attr:`compiled_ops` less address arithmetic and loop control (the sites table's ``role``):
        the kernel's own computation, which a change of data type or algorithm could alter."""
        o = self.compiled_ops
        if not len(o) or "role" not in o:
            return o
        return o[~o["role"].isin(("address", "indirect", "loop"))]

    @property
    def compiled_ops(self) -> pd.DataFrame:
        """``ops`` less the sites an optimizing compile removes (the sites table's ``compiled`` is 0:
        no instruction of the site's class is left on its line, docs/trace-format.md).  Rules find
        instruction patterns here, so a pattern that only Oclgrind's unoptimized IR has (a remainder
        by a loop counter's power of two, gone once the loop is unrolled) is not advised on."""
        o = self.ops
        if not len(o) or "compiled" not in o:
            return o
        return o[o["compiled"].isna() | (o["compiled"] > 0)]

    def executions(self, pred) -> float:
        o = self.compiled_ops
        return float(o.loc[o["opclass"].map(pred), "executions"].sum()) if len(o) else 0.0

    def issues(self, pred) -> float:
        o = self.compiled_ops
        return float(o.loc[o["opclass"].map(pred), "issues"].sum()) if len(o) else 0.0

    def sites_by_issues(self, pred) -> list[int]:
        """Sites running instruction classes that satisfy ``pred`` in the compiled code, most issues
        first."""
        o = self.compiled_ops
        d = o[o["opclass"].map(pred)].groupby("site")["issues"].sum().sort_values(ascending=False,
                                                                                  kind="stable")
        return [int(s) for s in d.index]

    def idle_lanes(self) -> dict:
        """How the work-group fills its waves: size, width, waves, idle lanes, lane fill."""
        size, w = self.group_size, self.width
        waves = math.ceil(size / w)
        return {"work_group_size": size, "wave_width": w, "waves_per_group": waves,
                "idle_lanes_per_group": waves * w - size, "lane_fill": round(size / (waves * w), 4)}

    def whole_wave_group(self) -> tuple[int, int, int] | None:
        """The nearest work-group shape whose first dimension is a whole number of waves and whose
        size the target accepts (the other dimensions shrink to keep the size close); None when
        the launch already has one."""
        x, y, z = (int(v) for v in self.launch.local_size)
        gx = int(self.launch.global_size[0])
        w, cap = self.width, int(self.target.occupancy.max_work_group_size)
        if x % w == 0 or gx < w:
            return None        # a grid narrower than a wave has no whole-wave shape
        nx = min(-(-x // w) * w, gx // w * w)
        if nx > cap:
            nx = max(w, cap // w * w)
        ny = max(1, min(y, (x * y) // nx or 1, cap // nx))
        nz = max(1, min(z, cap // (nx * ny)))
        return (nx, ny, nz)

    def gain_filling_lanes(self, fill: float) -> float:
        """Time saved if the issue work done at lane fill ``fill`` were done with full waves."""
        return self.gain_alu(self.times["alu_s"] * (1.0 - fill))

    def cycles(self, opclass: str) -> float:
        """The target's issue cost of ``opclass`` (0 when it prices none)."""
        return float(self.target.alu_cycles.get(opclass, 0.0))

    @staticmethod
    def rows(df: pd.DataFrame, cols: list[str]) -> list[dict]:
        """Evidence rows: the columns of ``df`` as plain numbers (floats to 4 decimals)."""
        out = []
        for r in df.itertuples():
            out.append({c: (round(float(getattr(r, c)), 4) if isinstance(getattr(r, c), float)
                            else int(getattr(r, c))) for c in cols})
        return out

    # -- what a fix would gain -------------------------------------------------------------
    def alu_seconds(self, cycles: float) -> float:
        """Seconds of the model's ALU time that ``cycles`` of recorded issue work stand for.

        A share of the launch's ALU time in proportion to its issue cycles, so the issuers per
        compute unit, the pipes and the compute units the launch can use count as they do in the
        ALU model; without an ALU result, the cycles spread over every compute unit."""
        alu = self.result.alu
        whole = cycles * self.sampling_scale
        if alu is not None and alu.cycles > 0:
            return whole * float(alu.time_s) / float(alu.cycles)
        hz = self.target.clock_mhz * 1e6
        return whole / (max(self.target.compute_units, 1) * hz)

    def site_memory_s(self, site: int) -> float:
        """The share of the memory time a site carries (by bytes moved)."""
        moved = self.sites.loc[self.sites["space"] != "local", "bytes_moved"]
        total = float(moved.sum())
        if not total:
            return 0.0
        row = self.sites.loc[self.sites["site"] == site, "bytes_moved"]
        return self.times["memory_s"] * float(row.sum()) / total

    def gain_alu(self, seconds: float) -> float:
        """Total time saved if the ALU time dropped by ``seconds`` (the other terms unchanged)."""
        return self._gain("alu_s", seconds)

    def gain_memory(self, seconds: float) -> float:
        """Total time saved if the memory time dropped by ``seconds``."""
        return self._gain("memory_s", seconds)

    @property
    def memory_levels(self) -> dict[str, float]:
        """Seconds each memory level (``DRAM``, ``L2``, ``local_memory``, ...) needs for its traffic."""
        te = self.result.time_estimates or {}
        return {k: float(v or 0.0) for k, v in (te.get("memory_levels_s") or {}).items()}

    def gain_level(self, level: str, seconds: float) -> float:
        """Total time saved if one memory level needed ``seconds`` less: the memory term is the
        slowest level's time, so a level that is not the bottleneck saves only what it takes off
        the next slowest, often nothing."""
        levels = self.memory_levels
        if level not in levels:
            return 0.0
        before = max(levels.values())
        levels[level] = max(0.0, levels[level] - max(0.0, seconds))
        return self._gain("memory_s", before - max(levels.values()))

    def _gain(self, key: str, seconds: float) -> float:
        parts = {k: v for k, v in self.times.items() if k != "total_s"}
        before = max(parts.values())
        parts[key] = max(0.0, parts[key] - max(0.0, seconds))
        return max(0.0, before - max(parts.values()))

    def opcodes(self, sites) -> dict[int, str]:
        """The LLVM opcode text of each of ``sites`` (``fpext``, ``call sin``; '' when unknown)."""
        ps = self.result.per_site
        if ps.empty or "opcode" not in ps:
            return {int(s): "" for s in sites}
        known = ps.drop_duplicates("site").set_index("site")["opcode"]
        return {int(s): str(known.get(s)) if isinstance(known.get(s), str) else "" for s in sites}

    def line(self, site: int) -> tuple[str, int]:
        row = self.sites_lines.get(int(site))
        return row if row is not None else ("?", 0)

    @property
    def sites_lines(self) -> dict[int, tuple[str, int]]:
        lines = getattr(self, "_lines", None)
        if lines is None:
            ps = self.result.per_site
            lines = {}
            if not ps.empty and "file" in ps:
                for s, f, ln in zip(ps["site"], ps["file"], ps["line"], strict=True):
                    ok = ln is not None and ln == ln
                    lines[int(s)] = (f if isinstance(f, str) and f else "?", int(ln) if ok else 0)
            self._lines = lines
        return lines


def facts_for(result, target) -> Facts | None:
    """The facts of one launch result on ``target``; None when the launch did not run there."""
    if getattr(result, "error", None) or result.memory is None and result.simd is None:
        return None
    return Facts(target=target, result=result, sites=_sites(result, target), ops=_ops(result, target),
                 patterns=(result.memory.patterns.launch if result.memory is not None
                           and result.memory.patterns is not None else LaunchPatterns()))


def _sites(result, target) -> pd.DataFrame:
    mem = result.memory
    if mem is None or mem.per_site.empty:
        return pd.DataFrame(columns=list(SITE_COLUMNS))
    ps = mem.per_site.copy()
    pats = mem.patterns.sites if mem.patterns is not None else None
    if pats is not None and len(pats):
        ps = ps.merge(pats.drop_duplicates("site"), on="site", how="left")
    out = pd.DataFrame({"site": ps["site"].astype(np.int64), "space": ps["space"].astype(str),
                        "op": ps["op"].astype(str)})
    num = lambda c: ps[c].fillna(0).astype(float).to_numpy() if c in ps else np.zeros(len(ps))  # noqa: E731
    acc, req = num("accesses"), num("requests")
    out["accesses"] = acc.astype(np.int64)
    out["bytes_requested"] = num("bytes_requested").astype(np.int64)
    out["access_size"] = np.where(acc > 0, num("bytes_requested") / np.maximum(acc, 1), np.nan)
    out["requests"] = req.astype(np.int64)
    out["transactions"] = num("transactions").astype(np.int64)
    out["bytes_moved"] = num("bytes_moved").astype(np.int64)
    for c in ("ideal_transactions", "misaligned_requests", "uniform_requests", "unaligned", "adjacent",
              "max_items_one_address", "max_accesses_one_address", "cache_units", "ideal_cache_units",
              "misaligned_cache_units"):
        out[c] = num(c).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_req = lambda x: np.where(req > 0, x / np.where(req > 0, req, 1), np.nan)  # noqa: E731
        nonlocal_ = out["space"].to_numpy() != "local"
        out["transactions_per_request"] = per_req(num("transactions"))
        out["ideal_per_request"] = per_req(num("ideal_transactions"))
        out["lanes_per_request"] = np.where(nonlocal_, per_req(acc), np.nan)
        out["distinct_per_request"] = np.where(nonlocal_, per_req(num("distinct_addresses")), np.nan)
        pairs = num("distinct_item_addresses")
        out["rereads_per_item"] = np.where(pairs > 0, acc / np.where(pairs > 0, pairs, 1), np.nan)
    out["buffer"] = ps["buffer"].fillna(-1).astype(np.int64) if "buffer" in ps else -1
    out["lane_stride"] = num("lane_stride").astype(np.int64)
    local = out["space"].to_numpy() == "local"
    out["local_requests"] = np.where(local, num("local_slices"), 0).astype(np.int64)
    out["local_slices"] = out["local_requests"]
    out["local_cycles"] = np.where(local, num("local_cycles"), 0.0)
    out["conflict_degree_mean"] = ps["conflict_degree_mean"].to_numpy() if "conflict_degree_mean" in ps \
        else np.nan
    lines = result.per_site
    if not lines.empty and "file" in lines:
        lines = lines[["site", "file", "line"]].drop_duplicates("site")
        out = out.merge(lines, on="site", how="left")
    else:
        out["file"], out["line"] = None, None
    return out.sort_values("site", kind="stable").reset_index(drop=True)


def _ops(result, target) -> pd.DataFrame:
    cols = ["site", "opclass", "executions", "issues", "utilization", "cycles"]
    simd = result.simd
    if simd is None or simd.per_site.empty:
        return pd.DataFrame(columns=cols)
    ps = simd.per_site
    util = ps["active_utilization"] if "active_utilization" in ps else ps["utilization"]
    out = pd.DataFrame({"site": ps["site"].astype(np.int64), "opclass": ps["opclass"].astype(str),
                        "executions": ps["lane_executions"].astype(float),
                        "issues": ps["issues"].astype(float), "utilization": util.astype(float)})
    out["cycles"] = [float(target.alu_cycles.get(c, 0.0)) for c in out["opclass"]]
    lines = result.per_site
    for col, empty in (("compiled", np.nan), ("role", None)):
        if not lines.empty and col in lines:
            out = out.merge(lines[["site", col]].drop_duplicates("site"), on="site", how="left")
        else:
            out[col] = empty
    return out
