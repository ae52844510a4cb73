"""``analyze(trace, target)``: every model on every launch, for notebooks, the CLI and jobs.

One call replays the trace's memory accesses on the target (:mod:`analyzers.replay.memory`),
runs the execution models (SIMD utilisation, ALU cost, occupancy) and combines them
into time estimates and a verdict per launch.  A launch that cannot run on the
target (work-group too large, too much local memory) is recorded as an error in the
result, so the other launches -- and other targets -- still get their answers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analyzers import result_dict as rd
from analyzers.alu import AluPricing, AluResult, alu_cost, dependent_issue_s, wave_issue_s
from analyzers.bound import BoundResult, classify
from analyzers.chains import batched_overlap, load_chains, load_chains_from_requests
from analyzers.compiled import CompiledView, compiled_view, register_moves
from analyzers.dataflow import Graph, graph
from analyzers.geometry import LaunchGeometry, launch_geometries
from analyzers.machine_code import MachineCodeResult
from analyzers.occupancy import LaunchDoesNotFit, OccupancyResult, check_fits, occupancy
from analyzers.parallel import is_worker
from analyzers.replay import LaunchMemory, MemoryTraffic, memory_by_launch
from analyzers.roles import role_pricing, site_roles
from analyzers.simd import (
    SimdResult,
    simd_utilization,
    wave_group,
    wave_issues,
    wave_issues_batches,
    wave_layout,
)
from analyzers.timing import Schedule
from tracekit.arguments import check_target, check_targets, check_trace
from tracekit.errors import TraceFormatError, TracekitError


@dataclass
class LaunchResult:
    """Everything the models say about one launch on one target."""

    kernel: str
    launch: int
    geometry: LaunchGeometry
    error: str | None = None
    simd: SimdResult | None = None
    alu: AluResult | None = None
    occupancy: OccupancyResult | None = None
    bound: BoundResult | None = None
    memory: LaunchMemory | None = None
    #: How the ALU time was priced (machine code, IR, IR with factors) and the machine code's facts.
    machine: MachineCodeResult | None = None
    #: What the optimizing compile removed, where the trace carries the compiled view (analyzers.compiled).
    compiled: CompiledView | None = None
    #: The kernel's data-flow graph, where the trace records operands (analyzers.dataflow).
    dataflow: Graph | None = None
    #: The per-site table is made when first read (:attr:`per_site`): the many what-if replays
    #: of a checklist read only times and verdicts, and each table costs tens of milliseconds.
    _per_site: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    _site_names: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    _site_table_pending: bool = field(default=False, repr=False, compare=False)

    @property
    def per_site(self) -> pd.DataFrame:
        """One row per site: the replay's memory columns with the ALU and SIMD columns beside them,
        and the site's source line (:func:`analyzers.result_dict.site_frame`)."""
        if self._per_site is None:
            self._per_site = (rd.site_frame(self, self._site_names) if self._site_table_pending
                              else pd.DataFrame())
            self._site_names, self._site_table_pending = None, False
        return self._per_site

    @per_site.setter
    def per_site(self, table: pd.DataFrame) -> None:
        self._per_site, self._site_names, self._site_table_pending = table, None, False

    @property
    def verdict(self) -> str | None:
        return self.bound.verdict if self.bound else None

    @property
    def time_estimates(self) -> dict:
        return self.bound.time_estimates() if self.bound else {}

    @property
    def time_s(self) -> float | None:
        """The launch's estimated time in seconds (None when it cannot run on the target)."""
        t = self.time_estimates.get("total_s")
        return float(t) if t is not None else None

    def to_dict(self) -> dict:
        return rd.launch_dict(self)


@dataclass
class AnalysisResult:
    """One trace on one target: per-launch results, warnings, and helpers for notebooks."""

    trace: str
    target: object
    launches: list[LaunchResult]
    warnings: list[str] = field(default_factory=list)

    def launch(self, launch: int) -> LaunchResult:
        for r in self.launches:
            if r.launch == launch:
                return r
        raise KeyError(launch)

    @property
    def errors(self) -> list[str]:
        return [r.error for r in self.launches if r.error]

    @property
    def ran(self) -> list[LaunchResult]:
        """The launches the target could run (those without an error)."""
        return [r for r in self.launches if not r.error and r.bound is not None]

    @property
    def time_s(self) -> float | None:
        """Estimated time of the whole trace: the launches that ran, one after the other (None when
        none did)."""
        times = [r.time_s for r in self.ran if r.time_s is not None]
        return float(sum(times)) if times else None

    @property
    def verdict(self) -> str | None:
        """What bounds the trace on this target: the verdict of the launch that takes longest (the
        only one, for a trace of one launch); None when no launch ran."""
        ran = [r for r in self.ran if r.time_s is not None]
        return max(ran, key=lambda r: (r.time_s, -r.launch)).verdict if ran else None

    @property
    def summary(self) -> pd.DataFrame:
        """One row per launch: verdict, times, utilisation, occupancy."""
        return rd.summary_frame(self)

    @property
    def per_site(self) -> pd.DataFrame:
        """Every launch's per-site table, with a ``launch`` column."""
        frames = [r.per_site.assign(launch=r.launch) for r in self.launches if not r.per_site.empty]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def to_dict(self) -> dict:
        return rd.result_dict(self)

    def to_json(self) -> str:
        return rd.dumps(self.to_dict())

    def _repr_html_(self) -> str:
        return rd.result_html(self)


def resolve_target(target, name: str = "target"):
    """A :class:`Target` from a shipped name or a path (a Target is returned as is); anything
    else is refused naming the argument ``name``."""
    if isinstance(check_target(name, target), (str, os.PathLike)):
        from tracekit.targets import load_target
        return load_target(target)
    return target


def resolve_trace(trace, name: str = "trace"):
    """A trace from a path (any input :func:`tracekit.open_trace` reads; a Trace as is), seen as
    the optimizing compile runs it (:func:`tracekit.trace.views.compiled_view`: no accesses of the
    sites it removes); anything else is refused naming the argument ``name``."""
    from tracekit.trace.views import compiled_view

    if isinstance(check_trace(name, trace), (str, os.PathLike)):
        from tracekit.formats import open_trace
        return compiled_view(open_trace(trace))
    return compiled_view(trace)


def _launch_rows(instructions: pa.Table, launch: int) -> pa.Table:
    if instructions.num_rows == 0:
        return instructions
    col = instructions["launch"]
    bounds = pc.min_max(col)
    if bounds["min"].as_py() == bounds["max"].as_py():      # one launch: nothing to cut
        return instructions if bounds["min"].as_py() == launch else instructions.slice(0, 0)
    return instructions.filter(pc.equal(col, launch))


def ir_priced_at_width(target, table_target, pricing):
    """The target the IR model prices with when the launch runs at another SIMD width than its table.

    The table's cycles are per ``table_target.simd.width`` lanes; a launch the compiler built
    at twice that width (machine code without a line table, so the IR model prices it) issues
    waves of twice the lanes, each taking twice the cycles.  Machine-code prices are per
    instruction already and are left alone.
    """
    if pricing is not None and pricing.site_cost is not None:
        return target
    ratio = target.simd.width / table_target.simd.width
    if ratio == 1:
        return target
    return replace(target, alu_cycles={k: float(v) * ratio for k, v in target.alu_cycles.items()},
                   alu_cycles_fast_math={k: float(v) * ratio for k, v in target.alu_cycles_fast_math.items()})


def analyze_launch(geo: LaunchGeometry, target, instructions, mem: LaunchMemory | None,
                   sites: pd.DataFrame | None = None, machine=None, *, issues: pd.DataFrame | None = None,
                   site_table: bool = True, simd: SimdResult | None = None,
                   issues_memo: dict | None = None) -> LaunchResult:
    """The execution models and the verdict for one launch whose memory replay is done.

    ``instructions``: the launch's rows as a table, or an iterable of batches
    (reduced batch by batch, so a long launch never sits in memory whole).
    ``machine``: the kernel's machine code for ``target`` (:class:`tracekit.isa.KernelISA`),
    when the trace has it; the memory replay must then have run at its SIMD width
    (:func:`analyzers.machine_code.launch_target`).
    ``issues``: the rows already reduced to issues per wave (:func:`wave_issues`) at this
    target's wave layout, when several variants of one target are analysed (the instruction
    rows are then not read); ``site_table=False`` leaves the per-site table out.  ``simd``: the
    SIMD utilisation already computed from those ``issues`` (it depends on the wave layout alone).
    ``issues_memo``: a dict the caller keeps for one unchanged set of instruction rows (the same
    launch replayed after changes that rewrite its accesses only); the issues per wave are
    reduced once per wave layout and read from it afterwards.
    """
    from analyzers import machine_code as mc

    table_target = target
    target = mc.launch_target(table_target, machine)
    geo = mc.launch_geometry(geo, machine, table_target)
    res = LaunchResult(geo.kernel, geo.launch, geo, memory=mem)
    try:
        check_fits(geo, target)
    except LaunchDoesNotFit as exc:
        res.error = str(exc)
        return res
    layout = wave_layout(geo, target)
    key = (geo.launch, layout)
    if issues is None:
        issues = issues_memo.get(key) if issues_memo is not None else None
        if issues is None:
            issues = (wave_issues(instructions, layout) if isinstance(instructions, pa.Table)
                      else wave_issues_batches(instructions, layout))
            if issues_memo is not None:
                issues_memo[key] = issues
        elif simd is None:   # the same issues per wave on the same grid give the same utilisation
            simd = issues_memo.get(("simd", geo, layout))
    res.simd = simd if simd is not None else simd_utilization(geo, target, issues=issues)
    if issues_memo is not None and issues_memo.get(key) is issues:
        issues_memo[("simd", geo, layout)] = res.simd
    res.occupancy = occupancy(geo, layout, target)
    units = min(int(target.compute_units), max(1, _work_units(geo, layout)))
    pricing = None
    if machine is not None:
        pricing, res.machine = mc.machine_pricing(machine, issues, sites, table_target, geo,
                                                  int(issues["wave"].nunique()))
    elif getattr(table_target, "isa", None) is not None:
        res.machine = mc.fallback(table_target, f"the trace has no machine code for {table_target.name} "
                                  f"(device {table_target.isa.ocloc_device}) and build options "
                                  f"'{geo.build_options}'; ALU time from the IR model (record with ocloc "
                                  "installed, or run `tracekit isa`)")
    else:
        pricing, res.machine = mc.factor_pricing(table_target)
    if pricing is None or pricing.site_cost is None:  # machine code already counts what the roles estimate
        roles = role_pricing(issues, sites, geo.kernel, table_target)
        if roles is not None:
            pricing = replace(pricing or AluPricing(), site_scale=roles.site_scale, roles=roles.to_dict())
        res.compiled = compiled_view(issues, sites, geo.kernel)
        free = dict.fromkeys(register_moves(sites, geo.kernel), 0.0)
        if res.compiled is not None:
            free.update(dict.fromkeys(res.compiled.removed_sites, 0.0))
        if free:
            base = pricing or AluPricing()
            pricing = replace(base, site_scale={**base.site_scale, **free})
    res.dataflow = graph(sites, geo.kernel, memory=mem.per_site["site"] if mem is not None and not
                         mem.per_site.empty else ())
    res.alu = alu_cost(issues, geo, layout, ir_priced_at_width(target, table_target, pricing),
                       resident_waves_per_cu=res.occupancy.waves_per_cu, pricing=pricing)
    traffic = mem.traffic if mem is not None else None
    if res.machine is not None:
        traffic = mc.add_scratch_traffic(traffic, res.machine)
    stores = ()
    if mem is not None and not mem.per_site.empty:
        ps = mem.per_site
        stores = ps.loc[(ps["space"] != "local") & (ps["space"] != "private") & (ps["op"] != "load"), "site"]
    chains = load_chains(issues, mem.load_sites if mem is not None else (), stores,
                         group_of=(lambda w: w) if layout.packed else (lambda w: wave_group(w, layout)),
                         overlap=batched_overlap(site_roles(sites, geo.kernel), target))
    if chains.loads_per_wave == 0 and mem is not None and mem.load_sites:
        loads = mem.per_site[mem.per_site["site"].isin(list(mem.load_sites))]
        recorded_waves = layout.waves / geo.sample_scale
        chains = load_chains_from_requests(loads["requests"], recorded_waves)
    if traffic is None:
        traffic = MemoryTraffic(levels=(), dram_bytes=0.0, load_requests=0.0, load_transactions=0.0)
    work = max(1, _work_units(geo, layout))
    resident = res.occupancy.waves_per_cu if layout.packed else res.occupancy.work_groups_per_cu
    schedule = Schedule(work_groups_per_unit=-(-work // units), resident_work_groups=max(1, resident))
    res.bound = classify(res.alu.time_s, traffic, chains, res.occupancy.waves_per_cu * units, target, units,
                         schedule, dependent_issue_s(res.alu, res.occupancy.waves_per_cu, target),
                         wave_issue_s(res.alu, layout.waves, target))
    res.bound = replace(res.bound, evidence=replace(
        res.bound.evidence, simd_utilization=res.simd.utilization, occupancy=res.occupancy.occupancy,
        occupancy_limiting_factor=res.occupancy.limiting_factor, active_compute_units=units))
    if site_table:  # made when first read (LaunchResult.per_site)
        res._site_names, res._site_table_pending = sites, True
    return res


def _work_units(geo: LaunchGeometry, layout) -> int:
    return layout.waves if layout.packed else (geo.total_groups or geo.num_groups)


#: The error of a launch the trace lists but holds no accesses or instruction counts of.
EMPTY_LAUNCH = "no accesses or instruction counts recorded: nothing to analyse"


def recorded_launches(trace) -> set[int]:
    """Launches the trace holds rows of (accesses or instruction counts); the others have nothing
    to analyse (:data:`EMPTY_LAUNCH`)."""
    return trace.launch_ids("accesses") | trace.launch_ids("instructions")


def analyze(trace, target, *, issues_memo: dict | None = None) -> AnalysisResult:
    """Analyse every launch of ``trace`` on ``target`` (a :class:`Target`, a shipped name or a path).

    Bad launches become errors inside the result; only an unreadable trace or
    target raises (:class:`~tracekit.errors.TracekitError`).  ``issues_memo``: see
    :func:`analyze_launch` (what-if replays of one launch share it).
    """
    from analyzers.machine_code import kernels_for_target, launch_target
    from analyzers.parallel import ANALYSIS_PEAK_BYTES, map_cores
    from tracekit.progress import launch_done

    trace = resolve_trace(trace)  # first, so a bad trace is named before a bad target
    target = resolve_target(target)
    geos, warnings = launch_geometries(trace)
    machine = kernels_for_target(trace, target)
    code = {g.launch: machine.get((g.kernel, g.build_options or "")) for g in geos}
    targets = {g.launch: launch_target(target, code[g.launch]) for g in geos}
    sites = trace.sites.to_pandas() if trace.sites.num_rows else None
    recorded = recorded_launches(trace)
    work = _LaunchWork(trace, target, targets, code, sites, recorded, issues_memo)
    # launches are independent (caches start empty at each one): on every core, each launch's
    # replay and models in one task; what-if replays sharing ``issues_memo`` stay in this process
    def credit(i: int, d: _LaunchDone) -> None:  # a worker's reads were not counted: the launch is done
        if d.elsewhere:
            launch_done(trace, geos[i].launch)

    done = map_cores(work, geos, memory_each=ANALYSIS_PEAK_BYTES, on_done=credit,
                     processes=1 if issues_memo is not None else None)
    # as one replay of the launches in turn would: a damaged trace raises, a replay that fails
    # fails every launch with the first failure's reason, and only then a model's own error raises
    failed = next((d.memory_error for d in done if d.memory_error is not None), None)
    if isinstance(failed, TraceFormatError):
        raise failed
    if failed is not None:
        errors = [LaunchResult(g.kernel, g.launch, g, error=str(failed)) for g in geos]
        return AnalysisResult(str(trace.path), target, errors, warnings)
    raised = next((d.raised for d in done if d.raised is not None), None)
    if raised is not None:
        raise raised
    out = []
    for geo, d in zip(geos, done, strict=True):
        res = d.result
        if res.alu is not None:  # classes the target cannot run: said at the top, not only per launch
            warnings.extend(f"launch {geo.launch} ({geo.kernel}): {w}" for w in res.alu.warnings)
        out.append(res)
    return AnalysisResult(str(trace.path), target, out, warnings)


@dataclass
class _LaunchDone:
    """One launch's analysis as a task returns it: the result, or what stopped it."""

    result: LaunchResult | None = None
    memory_error: TracekitError | None = None   # the replay failed (the whole analysis reports it)
    raised: BaseException | None = None         # a model failed (raised once the replays are known)
    #: Made in a worker process, which read the trace without counting progress.
    elsewhere: bool = False


@dataclass
class _LaunchWork:
    """The analysis of one launch of a trace on a target: its memory replay, then the models.

    Called in a worker process, it reads the trace itself (a progress view is read through
    its plain trace, so that only the calling process draws the line)."""

    trace: object
    target: object
    targets: dict
    code: dict
    sites: pd.DataFrame | None
    recorded: set
    issues_memo: dict | None

    def __call__(self, geo: LaunchGeometry) -> _LaunchDone:
        from tracekit.progress import uncounted

        done = self._launch(geo, uncounted(self.trace) if is_worker() else self.trace)
        done.elsewhere = is_worker()
        return done

    def _launch(self, geo: LaunchGeometry, trace) -> _LaunchDone:
        try:
            memory = memory_by_launch(trace, self.target, [geo],
                                      targets={geo.launch: self.targets[geo.launch]})
        except TracekitError as exc:
            return _LaunchDone(memory_error=exc)
        if geo.launch not in self.recorded:  # a launches row alone: a verdict at 0 s would be made up
            return _LaunchDone(LaunchResult(geo.kernel, geo.launch, geo, error=EMPTY_LAUNCH))
        try:
            # only this launch's row groups; runs of work-items stay runs (the SIMD model weights them)
            rows = trace.iter_batches("instructions", launches=[geo.launch], runs=True)
            return _LaunchDone(analyze_launch(geo, self.target, rows, memory.get(geo.launch), self.sites,
                                              self.code[geo.launch], issues_memo=self.issues_memo))
        except Exception as exc:  # noqa: BLE001 -- raised by analyze() once every replay is known
            return _LaunchDone(raised=exc)


def analyze_many(trace, targets) -> list[AnalysisResult]:
    """:func:`analyze` on several targets, reading the trace once."""
    trace = resolve_trace(trace)
    targets = [resolve_target(t, f"targets[{i}]") for i, t in enumerate(check_targets("targets", targets))]
    return [analyze(trace, t) for t in targets]
