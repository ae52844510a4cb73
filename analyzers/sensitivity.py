"""Sensitivity: would the verdict change if an assumed target number were off by two?

Many target numbers are assumptions (``Target.assumptions``: cache associativity,
latencies nobody published, instruction prices inferred from a class).  A verdict
that flips when one of them is halved or doubled rests on that assumption, and the
reader should know.  :func:`sensitivity` finds the assumed numbers a launch's
analysis actually reads, re-runs the analysis with each scaled by each factor, and
tabulates what moved.

Fast on purpose, whatever the trace's length.  Only numbers the models read for that
launch are tried: the clock,
the issuers, the DRAM figures, the latency and bandwidth of each cache level (a level's
latency only when the launch loads from memory), the ``alu_cycles`` entries that priced
the classes it executed, the occupancy limits that applied, and the launch costs in
``launch``.  Those leave the memory replay as it was, so only the execution models and
the verdict are re-run, on the replay's counts, and none of them changes the wave layout,
so the launch's instruction rows are reduced to issues per wave once and every variant
prices those.  A cache size changes what hits, so for it the launch's replay is run
again.

Variants are new :class:`~tracekit.targets.model.Target` objects built with
``dataclasses.replace``; the target passed in, which the loader may share, is never
touched.  A scaled value that the schema would refuse (an integer field below one, a
cache size whose sets would not be whole) is skipped, not forced.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import pandas as pd

from analyzers.alu import cost_of, cycles_table
from analyzers.analyze import LaunchResult, analyze_launch, resolve_target, resolve_trace
from analyzers.geometry import launch_geometries
from analyzers.occupancy import LaunchDoesNotFit, check_fits
from analyzers.parallel import ANALYSIS_PEAK_BYTES, map_cores
from analyzers.replay import LaunchMemory, memory_by_launch
from analyzers.simd import wave_issues_batches, wave_layout

FACTORS = (0.5, 2.0)
COLUMNS = ["launch", "kernel", "field", "factor", "value", "base_value", "verdict", "base_verdict",
           "total_s", "base_total_s", "verdict_changed", "time_change"]
#: Fields of the execution models and the verdict (the replay does not read them).
_SECTION_FIELDS = {"dram": ("bandwidth_gb_per_s", "latency_ns"), "simd": ("issuers_per_cu",)}
#: Launch costs the time model reads.
_LAUNCH_FIELDS = ("overhead_ns", "work_group_dispatch_cycles")
_INT_FIELDS = {"simd.issuers_per_cu", "occupancy.max_waves_per_cu", "occupancy.max_work_groups_per_cu",
               "occupancy.barrier_slots_per_cu", "occupancy.local_mem_alloc_min_bytes",
               "occupancy.local_mem_alloc_step_bytes", "occupancy.registers_per_cu"}


def read_fields(res: LaunchResult, target) -> list[str]:
    """Dotted paths (as in ``Target.sources``) of the numbers the models read for this launch."""
    if res.error or res.bound is None:
        return []
    fields = ["clock_mhz"]
    fields += [f"{sec}.{name}" for sec, names in _SECTION_FIELDS.items() for name in names]
    loads = res.memory is not None and res.memory.traffic.load_requests > 0
    for c in target.caches:
        if getattr(c, "cost_unit", "bytes") == "request":  # priced per request, not by its bandwidth
            fields.append(f"caches.{c.name}.lines_per_cycle")
        else:
            fields.append(f"caches.{c.name}.bandwidth_bytes_per_cycle")
        if loads:
            fields.append(f"caches.{c.name}.latency_cycles")
        fields.append(f"caches.{c.name}.size_bytes")
    table = cycles_table(target, res.geometry.fast_math)
    fast = set(target.alu_cycles_fast_math if res.geometry.fast_math else ())
    ops = res.alu.per_site["opclass"].unique() if res.alu is not None and not res.alu.per_site.empty else []
    for op in sorted(set(ops) - set(getattr(target, "unsupported", {}) or {})):
        key = cost_of(str(op), table)[1]
        fields.append(f"alu_cycles_fast_math.{key}" if key in fast else f"alu_cycles.{key}")
    occ = res.occupancy
    fields += [f"occupancy.{n}" for n in _occupancy_fields(occ.limits if occ is not None else {})]
    fields += [f"launch.{k}" for k in _LAUNCH_FIELDS if f"launch.{k}" in target.sources]
    return list(dict.fromkeys(fields))


def _occupancy_fields(limits: dict) -> list[str]:
    names = {"waves": ["max_waves_per_cu"], "work_groups": ["max_work_groups_per_cu"],
             "barriers": ["barrier_slots_per_cu"], "registers": ["registers_per_cu"],
             "local_memory": ["local_mem_alloc_min_bytes", "local_mem_alloc_step_bytes"]}
    return [n for factor in limits for n in names.get(factor, [])]


def value_of(target, field: str):
    """The number at a dotted field path of ``target``."""
    head, _, rest = field.partition(".")
    if not rest:
        return getattr(target, head)
    if head == "caches":
        name, _, attr = rest.partition(".")
        return getattr(target.cache(name), attr)
    if head in ("alu_cycles", "alu_cycles_fast_math"):
        return getattr(target, head)[rest]
    return getattr(getattr(target, head), rest)


def with_value(target, field: str, value):
    """A copy of ``target`` with ``field`` set to ``value`` (the original is not touched)."""
    head, _, rest = field.partition(".")
    if not rest:
        return replace(target, **{head: value})
    if head == "caches":
        name, _, attr = rest.partition(".")
        caches = tuple(replace(c, **{attr: value}) if c.name == name else c for c in target.caches)
        return replace(target, caches=caches)
    if head in ("alu_cycles", "alu_cycles_fast_math"):
        return replace(target, **{head: {**getattr(target, head), rest: value}})
    return replace(target, **{head: replace(getattr(target, head), **{rest: value})})


def scaled(target, field: str, factor: float):
    """(variant target, new value), or None where the scaled value would not be a valid target."""
    old = value_of(target, field)
    new = old * factor
    if field in _INT_FIELDS or (field.startswith("caches.") and field.endswith(".size_bytes")):
        new = int(round(new))
        if new < 1 or new == old:
            return None
    if field.endswith(".size_bytes") and field.startswith("caches."):
        c = target.cache(field.split(".")[1])
        if new % (c.line_bytes * c.ways):
            return None
    if field == "occupancy.local_mem_alloc_min_bytes":
        step = target.occupancy.local_mem_alloc_step_bytes
        if step and new % step:
            return None
    return with_value(target, field, new), new


def _retargeted(mem: LaunchMemory | None, target) -> LaunchMemory | None:
    """The same replay counts with the variant's cache latencies and bandwidths."""
    if mem is None:
        return None
    levels = tuple(replace(lv, bandwidth_bytes_per_cycle=float(c.bandwidth_bytes_per_cycle),
                           latency_cycles=float(c.latency_cycles))
                   for lv, c in zip(mem.traffic.levels, target.caches, strict=True))
    return replace(mem, traffic=replace(mem.traffic, levels=levels))


def _needs_replay(field: str) -> bool:
    return field.startswith("caches.") and field.endswith((".size_bytes", ".lines_per_cycle"))


def sensitivity(trace, target, *, factors: Iterable[float] = FACTORS, launches: Iterable[int] | None = None,
                fields: Iterable[str] | None = None, assumed_only: bool = True, result=None,
                replay_caches: bool = True) -> pd.DataFrame:
    """Re-run each launch's analysis with each read, assumed number scaled by each factor.

    ``fields`` restricts the numbers tried (dotted paths as in ``Target.sources``);
    with ``assumed_only`` (the default) only numbers with an ``assumed`` reason are
    tried.  ``result`` (the launch results of an analysis already made on ``target``)
    spares the first replay; ``replay_caches=False`` skips cache sizes, the only numbers
    that need the replay run again.  One row per (launch, field, factor): the variant's
    verdict and time next to the unchanged analysis', ``verdict_changed`` and
    ``time_change`` (relative).  Launches the target cannot run (errors) give no rows.
    """
    trace = resolve_trace(trace)
    target = resolve_target(target)
    factors = tuple(float(f) for f in factors)
    wanted = set(fields) if fields is not None else None
    geos, _ = launch_geometries(trace)
    if launches is not None:
        keep = set(launches)
        geos = [g for g in geos if g.launch in keep]
    if result is not None:
        memory = {lr.launch: lr.memory for lr in result.launches}
    else:
        memory = memory_by_launch(trace, target, geos)
    sites = trace.sites.to_pandas() if trace.sites.num_rows else None
    rows = []
    for geo in geos:
        # reduced to issues per wave once: no field tried here changes the wave layout
        try:
            check_fits(geo, target)
        except LaunchDoesNotFit:
            continue
        issues = wave_issues_batches(trace.iter_batches("instructions", launches=[geo.launch], runs=True),
                                     wave_layout(geo, target))
        base = analyze_launch(geo, target, None, memory.get(geo.launch), sites, issues=issues,
                              site_table=False)
        if base.error or base.bound is None:
            continue
        base_t = base.time_estimates["total_s"]
        tried = []
        for field in read_fields(base, target):
            if wanted is not None and field not in wanted:
                continue
            if assumed_only and field not in target.assumptions:
                continue
            if not replay_caches and _needs_replay(field):
                continue
            for f in factors:
                made = scaled(target, field, f)
                if made is not None:
                    tried.append((field, f, *made))
        # the cache variants' replays are independent of each other: on every core
        replayed = iter(map_cores(lambda variant, g=geo: memory_by_launch(trace, variant, [g]).get(g.launch),
                                  [v for field, _, v, _ in tried if _needs_replay(field)],
                                  memory_each=ANALYSIS_PEAK_BYTES))
        for field, f, variant, value in tried:
            mem = next(replayed) if _needs_replay(field) else _retargeted(memory.get(geo.launch), variant)
            res = analyze_launch(geo, variant, None, mem, sites, issues=issues, site_table=False,
                                 simd=base.simd if base.geometry == geo else None)
            verdict = res.verdict if res.error is None else "error"
            total = res.time_estimates.get("total_s") if res.error is None else float("nan")
            rows.append({"launch": geo.launch, "kernel": geo.kernel, "field": field, "factor": f,
                         "value": value, "base_value": value_of(target, field), "verdict": verdict,
                         "base_verdict": base.verdict, "total_s": total, "base_total_s": base_t,
                         "verdict_changed": verdict != base.verdict,
                         "time_change": total / base_t - 1.0 if base_t else float("nan")})
    return pd.DataFrame(rows, columns=COLUMNS)
