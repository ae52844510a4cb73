"""Launch geometry: the sizes and facts of one kernel launch the execution models need.

A trace's ``launches`` table says how big the grid and the work-groups were, how
much local memory each work-group asked for and how the kernel was built.  When a
trace has no row for a launch (exports of other tools often lack it) the sizes are
inferred from the work-items that appear in the accesses and instructions, and a
warning says so: a one-dimensional grid of ``groups x (largest item + 1)`` items is
the best the data supports.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tracekit.trace import metadata as launch_metadata
from tracekit.trace.schema import INSTRUCTIONS

FAST_MATH_FLAGS = ("-cl-fast-relaxed-math", "-cl-finite-math-only")


@dataclass(frozen=True)
class LaunchGeometry:
    """One launch's sizes and build facts, independent of any target."""

    kernel: str
    launch: int
    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]
    local_mem_bytes: int = 0
    build_options: str = ""
    registers_per_item: int | None = None
    has_barrier: bool = False
    #: The kernel declares ``reqd_work_group_size`` (the size is known when it is compiled).
    compile_time_work_group_size: bool = False
    #: The trace carries the kernel's source (or says whether it fixes its work-group size),
    #: so a missing ``reqd_work_group_size`` is known to be missing.
    source_known: bool = False
    #: The kernel's source names the ``double`` type (or enables ``cl_khr_fp64``); False where
    #: the source is known and does not, so its double-precision work comes from unsuffixed
    #: literals, which a compiler for a device without fp64 takes as float; None without source.
    uses_double: bool | None = None
    #: Work-groups the launch had in total / work-groups the trace recorded (sampling).
    total_groups: int = 0
    groups_recorded: int = 0
    inferred: bool = False
    metadata: dict = field(default_factory=dict, compare=False)

    @property
    def work_group_size(self) -> int:
        return int(np.prod(self.local_size))

    @property
    def items(self) -> int:
        return int(np.prod(self.global_size))

    @property
    def groups_per_dim(self) -> tuple[int, int, int]:
        pairs = zip(self.global_size, self.local_size, strict=True)
        return tuple(math.ceil(g / max(loc, 1)) for g, loc in pairs)

    @property
    def num_groups(self) -> int:
        return int(np.prod(self.groups_per_dim))

    @property
    def sample_scale(self) -> float:
        """Factor that turns counts of the recorded work-groups into counts for the whole launch."""
        if self.total_groups and self.groups_recorded and self.groups_recorded < self.total_groups:
            return self.total_groups / self.groups_recorded
        return 1.0

    @property
    def work_group_size_declared(self) -> bool | None:
        """True or False when the trace tells; None when it has neither source nor the fact."""
        if self.compile_time_work_group_size:
            return True
        return False if self.source_known else None

    @property
    def fast_math(self) -> bool:
        opts = self.build_options or ""
        return any(flag in opts.split() for flag in FAST_MATH_FLAGS)

    def group_size_histogram(self) -> list[tuple[int, int]]:
        """(items in the work-group, how many work-groups) pairs, edge groups included.

        OpenCL 2 allows a global size that is not a multiple of the local size; the
        last work-group along such a dimension is smaller.  Each dimension has at
        most two sizes, so the whole grid has at most eight.
        """
        per_dim = []
        for g, loc in zip(self.global_size, self.local_size, strict=True):
            loc = max(int(loc), 1)
            full, rest = divmod(int(g), loc)
            sizes = [(loc, full)] if full else []
            if rest:
                sizes.append((rest, 1))
            per_dim.append(sizes or [(0, 0)])
        out: dict[int, int] = {}
        for sx, nx in per_dim[0]:
            for sy, ny in per_dim[1]:
                for sz, nz in per_dim[2]:
                    n = nx * ny * nz
                    if n:
                        out[sx * sy * sz] = out.get(sx * sy * sz, 0) + n
        return sorted(out.items(), reverse=True)


_REQD_RE = re.compile(r"reqd_work_group_size\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?(?:,\s*(\d+)\s*)?\)")


def declares_work_group_size(source: str | None, kernel: str) -> bool:
    """True when ``source`` gives ``kernel`` a ``reqd_work_group_size`` attribute.

    The attribute sits in the kernel's declaration, before its parameter list; a
    match counts only when the kernel's name follows it before the next ``{`` or ``;``.
    """
    if not source:
        return False
    name = re.compile(r"\b" + re.escape(kernel) + r"\s*\(")
    for m in _REQD_RE.finditer(source):
        tail = re.split(r"[{;]", source[m.end():], maxsplit=1)[0]
        if name.search(tail):
            return True
    return False


_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_DOUBLE_RE = re.compile(r"\bdouble(?:2|3|4|8|16)?\b|\bcl_khr_fp64\b")


@functools.lru_cache(maxsize=64)
def declares_double(source: str | None) -> bool | None:
    """Whether ``source`` (comments aside) names the double type or the fp64 extension; None
    without source.  Without either, OpenCL C gives an unsuffixed literal the type float on a
    device that lacks double precision, so the doubles a recording shows are the literals'."""
    if not source:
        return None
    return bool(_DOUBLE_RE.search(_COMMENT_RE.sub(" ", source)))


def _dim3(value, default: int = 1) -> tuple[int, int, int]:
    vals = [int(v) for v in (value or [])][:3]
    vals += [default] * (3 - len(vals))
    return tuple(max(v, 0) for v in vals)


def _barrier_launches(instructions: pa.Table) -> set[int]:
    """Launches that executed a barrier (checked on dictionary codes, not strings)."""
    if instructions.num_rows == 0:
        return set()
    opclass = instructions["opclass"]
    if not pa.types.is_dictionary(opclass.type):
        opclass = pc.dictionary_encode(opclass)
    out: set[int] = set()
    offset = 0
    for chunk in opclass.chunks:
        names = chunk.dictionary.to_pylist()
        n = len(chunk)
        if "barrier" in names:
            hit = pc.equal(chunk.indices, names.index("barrier"))
            rows = instructions.slice(offset, n).filter(hit)
            rows = rows.filter(pc.greater(rows["count"], 0))
            out.update(pc.unique(rows["launch"]).to_pylist())
        offset += n
    return out


def _instruction_facts(trace) -> tuple[set[int], set[int]]:
    """(launches that executed a barrier, launches with instruction rows), in one streamed pass."""
    barriers: set[int] = set()
    launches: set[int] = set()
    for batch in trace.iter_batches("instructions", columns=["launch", "opclass", "count"], runs=True):
        t = pa.Table.from_batches([batch])
        launches.update(pc.unique(t["launch"]).to_pylist())
        barriers |= _barrier_launches(t)
    return barriers, launches


def _access_launches(trace) -> set[int]:
    return trace.launch_ids("accesses")  # row-group statistics: the column is rarely decoded


def _scan_accesses(trace, launches: set[int]) -> dict[int, dict]:
    """Per launch: kernel name, largest item id, groups seen and the local-memory extent."""
    seen: dict[int, dict] = {}
    cols = ["kernel", "launch", "group", "item", "space", "address", "size"]
    for batch in trace.iter_batches("accesses", columns=cols):
        t = pa.Table.from_batches([batch])
        t = t.filter(pc.is_in(t["launch"], pa.array(sorted(launches), pa.int32())))
        if not t.num_rows:
            continue
        kern = t["kernel"].cast(pa.string()) if pa.types.is_dictionary(t["kernel"].type) else t["kernel"]
        t = t.set_column(0, "kernel", kern)
        _merge_extent(seen, t)
        space = t["space"].cast(pa.string()) if pa.types.is_dictionary(t["space"].type) else t["space"]
        loc = t.filter(pc.equal(space, "local"))
        if loc.num_rows:
            end = pc.add(loc["address"], loc["size"].cast(pa.uint64()))
            ext = pa.table({"launch": loc["launch"], "group": loc["group"], "lo": loc["address"], "hi": end})
            ext = ext.group_by(["launch", "group"]).aggregate([("lo", "min"), ("hi", "max")])
            span = pc.subtract(ext["hi_max"], ext["lo_min"]).to_numpy()
            for launch, s in zip(ext["launch"].to_pylist(), span, strict=True):
                d = seen[launch]
                d["local_bytes"] = max(d["local_bytes"], int(s))
    return seen


def _merge_extent(seen: dict, t: pa.Table) -> None:
    """Fold the largest local id and the work-groups of ``t`` (launch, kernel, group, item) into ``seen``."""
    agg = t.group_by(["launch", "kernel"]).aggregate([("item", "max"), ("group", "distinct")])
    for row in agg.to_pylist():
        d = seen.setdefault(row["launch"], {"kernel": row["kernel"], "max_item": -1, "groups": set(),
                                            "local_bytes": 0})
        d["max_item"] = max(d["max_item"], row["item_max"])
        d["groups"].update(row["group_distinct"])


def launch_geometries(trace) -> tuple[list[LaunchGeometry], list[str]]:
    """Every launch of ``trace`` as a :class:`LaunchGeometry`, plus warnings.

    Launches that appear in the accesses or instructions but not in the
    ``launches`` table get their sizes inferred (and ``inferred=True``).
    """
    warnings: list[str] = []
    barriers, instr_launches = _instruction_facts(trace)  # streamed: never the whole table
    known = set(trace.launches["launch"].to_pylist())
    missing = _access_launches(trace) - known
    seen = _scan_accesses(trace, missing) if missing else {}
    missing |= instr_launches - known
    if missing and instr_launches & missing:
        cols = ["launch", "kernel", "group", "item"]
        instructions = pa.Table.from_batches(
            list(trace.iter_batches("instructions", columns=cols, launches=sorted(missing))),
            schema=pa.schema([INSTRUCTIONS.field(c) for c in cols]))
        kern = instructions["kernel"]
        kern = kern.cast(pa.string()) if pa.types.is_dictionary(kern.type) else kern
        t = pa.table({"launch": instructions["launch"], "kernel": kern,
                      "group": instructions["group"], "item": instructions["item"]})
        _merge_extent(seen, t)
    recorded = {k: len(v["groups"]) for k, v in seen.items()}

    out: dict[int, LaunchGeometry] = {}
    for row in trace.launches.to_pylist():
        launch = int(row["launch"])
        meta = launch_metadata.parse(row.get("metadata"), path=str(trace.path), launch=launch)
        sampling = meta.get("sampling") or {}
        total = int(sampling.get("total_groups") or 0)
        rec = int(sampling.get("groups_recorded") or 0)
        kernel = row["kernel"]
        reqd = bool(meta.get("reqd_work_group_size")) or declares_work_group_size(row.get("source"), kernel)
        geo = LaunchGeometry(
            kernel=kernel, launch=launch,
            global_size=_dim3(row["global_size"]), local_size=_dim3(row["local_size"]),
            local_mem_bytes=int(row.get("local_mem_bytes") or 0),
            build_options=row.get("build_options") or "",
            registers_per_item=row.get("registers_per_item"),
            has_barrier=launch in barriers or bool(meta.get("barrier")),
            compile_time_work_group_size=reqd,
            source_known=bool(row.get("source")) or "reqd_work_group_size" in meta,
            uses_double=declares_double(row.get("source")),
            total_groups=total, groups_recorded=rec or recorded.get(launch, 0),
            metadata=meta)
        if not total:  # not sampled: every work-group is in the trace
            geo = replace(geo, total_groups=geo.num_groups, groups_recorded=geo.num_groups)
        out[launch] = geo
    for launch in sorted(set(seen) - set(out)):
        d = seen[launch]
        local = max(int(d["max_item"]) + 1, 1)
        groups = max(d["groups"]) + 1 if d["groups"] else 1
        out[launch] = LaunchGeometry(
            kernel=d["kernel"], launch=launch, global_size=(groups * local, 1, 1),
            local_size=(local, 1, 1), local_mem_bytes=int(d["local_bytes"]), has_barrier=launch in barriers,
            total_groups=groups, groups_recorded=len(d["groups"]), inferred=True)
        warnings.append(
            f"launch {launch} ({d['kernel']}): the trace has no launch metadata; sizes inferred from "
            f"the work-items seen: {groups} work-group(s) of {local} item(s), one-dimensional, "
            f"{d['local_bytes']} bytes of local memory per work-group (the extent of its local "
            "accesses), build options unknown")
    return [out[k] for k in sorted(out)], warnings
