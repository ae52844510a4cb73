"""ALU cost: issue cycles per site and per launch, and the time they take.

The target file gives, per instruction class, the cycles one wave keeps its
issuer busy for one issue (``Target.alu_cycles``).  A wave issues a site as often
as its busiest lane executes it (see :mod:`analyzers.simd`), so::

    cycles(site) = sum over waves of issues(wave, site) x cycles_per_issue(opclass)

Work-groups go to compute units round-robin (packed tasks likewise); each unit
spreads its cycles over its issuers, but a unit can only keep as many issuers
busy as it has resident waves.  The launch's ALU time is the busiest unit's.
Builds with ``-cl-fast-relaxed-math`` (or ``-cl-finite-math-only``) use the
target's fast variants (``alu_cycles_fast_math``) where it has them.

*Pipes.*  A target may say which execution pipe each class runs on
(``issue_pipes``).  Its issuers then start one instruction per cycle and
instructions on different pipes overlap, so a unit is busy for the larger of its
issue slots and its busiest pipe's cycles: an integer add that holds a 16-lane
pipe for two cycles leaves the next issue cycle to a float FMA.  A class without
a pipe holds the issuer for its whole cost, which is how every class is priced on
targets without the table.

*Classes the target cannot run.*  A target may mark a class unsupported
(``Target.unsupported``: Adreno exposes no fp64).  Such instructions are not
priced; the result lists them and carries a warning that says how many issues
were left out and why, so a verdict is never silently built on them.  The
exception is double precision in a kernel whose source never names ``double``
(``LaunchGeometry.uses_double`` False): its doubles are unsuffixed literals, which
the device's compiler takes as float, so they are priced as their fp32 classes.

*OpenCL ``fma()``.*  The recorder gives the conformant builtin its own class,
``math_fma``, because some targets emulate it in software (Adreno); a target that
does not price ``math_fma`` runs it as its fused multiply-add, ``fp32_fma``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analyzers.geometry import LaunchGeometry
from analyzers.simd import WaveLayout, wave_group

MATH_DEFAULT = "math_default"
#: Builtin classes that are one hardware instruction where the target gives them no
#: price of their own (the class they then run as).
#: Built-in calls that compile to plain ALU instructions on every GPU: class -> (the class of
#: that instruction, instructions per call).  Mesa's OpenCL front end shows the lowering
#: (src/compiler/spirv/vtn_opencl.c maps SAbs/UAbs to nir_iabs, S/UMin and S/UMax to one
#: nir_imin/imax/umin/umax, S/UClamp and FClamp to nir_iclamp/uclamp/fclamp, which
#: src/compiler/nir/nir_builtin_builder.h builds as min(max(x, lo), hi): two instructions),
#: and each vendor back end emits one instruction per NIR min/max/abs (Intel SEL or a source
#: modifier, Adreno ir3 max.s/min.s/absneg.s, NVIDIA IMNMX/IABS).  A target that lists the
#: class itself keeps its own price.
SAME_AS = {"math_fma": ("fp32_fma", 1), "math_abs": ("int_add", 1), "math_min": ("int_add", 1),
           "math_max": ("int_add", 1), "math_clamp": ("int_add", 2),
           # OpenCL C's relational and integer built-ins (OpenCL C 1.2 §6.12.3, §6.12.6) are a
           # compare-and-pick or a few integer operations, not library calls
           "math_select": ("compare", 1), "math_bitselect": ("bitwise", 3), "math_step": ("compare", 1),
           "math_sign": ("compare", 2), "math_abs_diff": ("int_add", 2), "math_add_sat": ("int_add", 2),
           "math_sub_sat": ("int_add", 2), "math_hadd": ("int_add", 2), "math_rhadd": ("int_add", 2),
           "math_rotate": ("bitwise", 1), "math_popcount": ("bitwise", 1), "math_clz": ("bitwise", 1)}
#: Calls the front end emits that compile to no instruction at all.  Clang lowers a sampler
#: literal (``const sampler_t s = CLK_...``) to a call of ``__translate_sampler_initializer`` on
#: a constant; GPU compilers fold that constant into the sample instruction's sampler state
#: (Mesa's vtn/nir turn it into a sampler deref, never an ALU op), so it costs nothing.
NO_INSTRUCTIONS = frozenset({"math_translate_sampler_initializer"})


def pipe_table(target) -> dict[str, str]:
    """Class -> execution pipe from ``Target.issue_pipes``; empty when the target has no such table."""
    return {str(k): str(v) for k, v in target.issue_pipes.items()}


def issue_slots(issues: np.ndarray, cost: np.ndarray, pipe: np.ndarray, unit: np.ndarray,
                n_units: int) -> np.ndarray:
    """Issue slots per unit: one per issue on a pipe plus the whole cost of a class off a pipe."""
    return np.bincount(unit, weights=np.where(pipe >= 0, issues, issues * cost), minlength=n_units)


def split_pipes(name: str | None) -> tuple[str, ...]:
    """The pipes an ``issue_pipes`` value names: ``"int|fp32"`` is a class the compiler may put
    on either pipe (the H200's integer adds: IADD3 on the ALU pipe, IMAD.IADD on the FMA pipe)."""
    return tuple(p.strip() for p in str(name).split("|") if p.strip()) if name else ()


def busy_cycles(issues: np.ndarray, cost: np.ndarray, pipe: np.ndarray, unit: np.ndarray,
                n_units: int, slots: np.ndarray | None = None, alt: np.ndarray | None = None) -> np.ndarray:
    """Cycles each unit's issuers are busy, per unit.

    ``pipe`` is each row's pipe index, -1 for a class that holds the issuer for its whole
    cost.  Issue slots are one per issue on a pipe plus the whole cost off a pipe
    (:func:`issue_slots`; ``slots`` when the caller has them); the unit is busy for the
    larger of its slots and its busiest pipe's cycles.  ``alt`` (-1: none) is a second pipe
    a row may use: the compiler balances such work between its two pipes, so it fills
    whichever is less loaded until both are level.
    """
    cyc = issues * cost
    on_pipe = pipe >= 0
    if slots is None:
        slots = issue_slots(issues, cost, pipe, unit, n_units)
    if not on_pipe.any():
        return slots
    alt = np.full(len(pipe), -1) if alt is None else alt
    n_pipes = int(max(pipe.max(), alt.max())) + 1
    fixed = on_pipe & (alt < 0)
    per_pipe = np.bincount(unit[fixed] * n_pipes + pipe[fixed], weights=cyc[fixed],
                           minlength=n_units * n_pipes).reshape(n_units, n_pipes)
    flexible = on_pipe & (alt >= 0)
    pair = np.flatnonzero(np.bincount(pipe[flexible] * n_pipes + alt[flexible], minlength=n_pipes * n_pipes))
    for a, b in ((int(p) // n_pipes, int(p) % n_pipes) for p in pair):  # in (pipe, alt) order
        rows = flexible & (pipe == a) & (alt == b)
        work = np.bincount(unit[rows], weights=cyc[rows], minlength=n_units)
        fa, fb = per_pipe[:, a], per_pipe[:, b]
        level = np.clip((fa + fb + work) / 2.0, fa, fa + work)  # a's share, leaving b level with it
        per_pipe[:, b] = fa + fb + work - level
        per_pipe[:, a] = level
    return np.maximum(slots, per_pipe.max(axis=1))


def cycles_table(target, fast_math: bool) -> dict[str, float]:
    """The target's cycles-per-issue table, with fast-math variants applied when asked."""
    table = {k: float(v) for k, v in target.alu_cycles.items()}
    if fast_math:
        table.update({k: float(v) for k, v in target.alu_cycles_fast_math.items()})
    return table


def cost_of(opclass: str, table: dict[str, float]) -> tuple[float, str]:
    """Cycles per issue of ``opclass`` and the table key that priced it.

    Unlisted classes of :data:`SAME_AS` take their hardware instructions' price, those of
    :data:`NO_INSTRUCTIONS` nothing, other unlisted ``math_<builtin>`` classes
    ``math_default``, anything else ``other``.
    """
    if opclass in table:
        return table[opclass], opclass
    if opclass in NO_INSTRUCTIONS:
        return 0.0, opclass
    if opclass in SAME_AS and SAME_AS[opclass][0] in table:
        cls, n = SAME_AS[opclass]
        return table[cls] * n, cls
    key = MATH_DEFAULT if opclass.startswith("math_") else "other"
    return table.get(key, 0.0), key


def cu_of_waves(wave: np.ndarray, layout: WaveLayout, compute_units: int) -> np.ndarray:
    """Compute unit of each wave: work-groups (or packed tasks) dealt round-robin."""
    if layout.packed:
        return wave % compute_units
    return wave_group(wave, layout) % compute_units


@dataclass(frozen=True)
class AluPricing:
    """Prices that replace the class table (built by :mod:`analyzers.machine_code`).

    ``site_cost``: cycles per issue of each site, from the machine code mapped to it;
    ``wave_cycles``: cycles every wave spends on machine code no site accounts for;
    ``group_scale``/``group_of``: a factor per IR group on the class table's price;
    ``site_scale``: machine instructions per IR issue of a site (its role's factor,
    :mod:`analyzers.roles`), in place of its group's factor.
    """

    site_cost: dict[int, float] | None = None
    wave_cycles: float = 0.0
    group_scale: dict[str, float] = field(default_factory=dict)
    group_of: Callable[[str], str] | None = None
    site_scale: dict[int, float] = field(default_factory=dict)
    #: what the role factors did, for the result (:meth:`analyzers.roles.RolePricing.to_dict`)
    roles: dict = field(default_factory=dict)


@dataclass(frozen=True)
class AluResult:
    """ALU issue cost of one launch on one target."""

    cycles: float               # busy issue cycles of the whole launch (summed over every wave)
    cycles_busiest_cu: float    # issue cycles on the most loaded compute unit
    active_cus: int
    issuers_used: int           # issuers per unit that resident waves can keep busy
    time_s: float
    fast_math: bool
    priced_by_fallback: tuple[str, ...]
    per_site: pd.DataFrame      # site, opclass, issues, cycles_per_issue, alu_cycles
    #: Executed classes the target cannot run: class -> issues (whole launch), left unpriced.
    unsupported: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    #: Wave issues after the role factors (whole launch): the machine instructions the model
    #: prices.  Equal to the IR issues where no role factor applies.
    instructions: float = 0.0
    #: The role factors applied and the IR issues of each role class (empty: none applied).
    roles: dict = field(default_factory=dict)
    #: Issue slots on the most loaded compute unit (one per instruction; a class off the pipes
    #: counts its whole cost): what a wave waiting on each result before the next pays for.
    slots_busiest_cu: float = 0.0

    def to_dict(self) -> dict:
        return {"cycles": self.cycles, "cycles_busiest_cu": self.cycles_busiest_cu,
                "active_cus": self.active_cus, "issuers_used": self.issuers_used,
                "time_s": self.time_s, "fast_math": self.fast_math,
                "priced_by_fallback": list(self.priced_by_fallback),
                "unsupported": dict(sorted(self.unsupported.items())), "warnings": list(self.warnings),
                "instructions": self.instructions, "roles": self.roles}


def as_float_literal(opclass: str, target, geo) -> str:
    """The class a device without double precision runs ``opclass`` as: an fp64 class of a kernel
    whose source never names ``double`` is its fp32 counterpart there (see the module docstring)."""
    if (geo.uses_double is False and opclass.startswith("fp64_")
            and opclass in (getattr(target, "unsupported", {}) or {})):
        return "fp32_" + opclass[len("fp64_"):]
    return opclass


def unsupported_warnings(target, issues: dict) -> tuple[str, ...]:
    """One sentence per executed class the target cannot run: what, how often, why, and the effect."""
    name = getattr(target, "name", "the target")
    why = getattr(target, "unsupported", {}) or {}
    return tuple(f"{op}: {n:.6g} wave issues of a class {name} cannot execute "
                 f"({why.get(op, 'unsupported')}); they are left out of the ALU time, so the kernel as "
                 "written does not run there and the estimate covers the rest of it only"
                 for op, n in sorted(issues.items()))


def _class_lookup(opclass: pd.Series):
    """``lookup(values)``: ``opclass.map(values)`` as float64, through the category codes where the
    column is categorical (one small table per class, not a dictionary look-up per row); a
    class ``values`` lacks, or a missing class, gives NaN as ``map`` does."""
    if not hasattr(opclass, "cat"):
        return lambda values: opclass.map(values).astype(float).to_numpy()
    cats = list(opclass.cat.categories)
    codes = opclass.cat.codes.to_numpy()

    def lookup(values: dict) -> np.ndarray:
        table = np.array([values.get(c, np.nan) for c in cats] + [np.nan], dtype=float)
        return table[codes]   # code -1 (a missing class) takes the last entry, NaN
    return lookup


def _whole(x: np.ndarray) -> np.ndarray:
    if np.isnan(x).any():
        raise ValueError("an instruction row has no class to price")
    return x.astype(np.int64)


def alu_cost(issues: pd.DataFrame, geo: LaunchGeometry, layout: WaveLayout, target,
             resident_waves_per_cu: float | None = None, pricing: AluPricing | None = None) -> AluResult:
    """Issue cycles and time of one launch from its per-wave issue counts (:func:`simd.wave_issues`).

    ``resident_waves_per_cu`` (from :mod:`analyzers.occupancy`) caps the issuers a
    unit can use; without it every issuer is assumed busy.
    """
    table = cycles_table(target, geo.fast_math)
    scale = geo.sample_scale
    cus = int(target.compute_units)
    issuers = int(getattr(target.simd, "issuers_per_cu", 1) or 1)
    if resident_waves_per_cu is not None:
        issuers = max(1, min(issuers, int(np.ceil(resident_waves_per_cu))))
    clock_hz = float(target.clock_mhz) * 1e6
    if issues.empty:
        empty = pd.DataFrame(columns=["site", "opclass", "issues", "cycles_per_issue", "alu_cycles"])
        return AluResult(0.0, 0.0, 0, issuers, 0.0, geo.fast_math, (), empty)

    names = list(issues["opclass"].cat.categories) if hasattr(issues["opclass"], "cat") \
        else sorted(set(issues["opclass"]))
    # what each class runs as (a literal's double as a float, where the device has no fp64)
    runs_as = {n: as_float_literal(str(n), target, geo) for n in names}
    cannot = {c for c in (getattr(target, "unsupported", {}) or {}) if as_float_literal(c, target, geo) == c}
    priced = {n: (0.0, str(n)) if str(n) in cannot else cost_of(runs_as[n], table) for n in names}
    base = {n: c for n, (c, _) in priced.items()}
    if pricing is not None and pricing.group_scale and pricing.group_of is not None:
        priced = {n: (c * float(pricing.group_scale.get(pricing.group_of(str(n)), 1.0)), k)
                  for n, (c, k) in priced.items()}
    fallback = tuple(sorted(n for n, (_, k) in priced.items() if k != n))
    by_class = _class_lookup(issues["opclass"])
    cost = by_class({n: c for n, (c, _) in priced.items()})
    count = issues["issues"].to_numpy().astype(float)
    if pricing is not None and pricing.site_scale and pricing.site_cost is None:
        # a role's factor replaces the group's: its sites issue factor x their IR issues
        role = issues["site"].map(pricing.site_scale).to_numpy(dtype=float)
        has = ~np.isnan(role)
        count = np.where(has, count * np.nan_to_num(role), count)
        cost = np.where(has, by_class(base), cost)
    pipes = pipe_table(target)
    pipe_ids = {p: i for i, p in enumerate(sorted({q for v in pipes.values() for q in split_pipes(v)}))}
    # a class priced as its hardware instruction (SAME_AS) also runs on that instruction's pipe
    pipe_of = {n: split_pipes(pipes.get(runs_as[n], pipes.get(priced[n][1]) if str(n) in SAME_AS else None))
               for n in names}
    pipe = _whole(by_class({n: pipe_ids[p[0]] if p else -1 for n, p in pipe_of.items()}))
    alt = _whole(by_class({n: pipe_ids[p[1]] if len(p) > 1 else -1 for n, p in pipe_of.items()}))
    if pricing is not None and pricing.site_cost is not None:
        # machine-code prices per site; the machine code holds the issuer for its whole cost
        cost = issues["site"].map(pricing.site_cost).fillna(0.0).astype(float).to_numpy()
        pipe = np.full(len(cost), -1)
        alt = np.full(len(cost), -1)
        fallback = ()
    cyc = count * cost

    wave = issues["wave"].to_numpy()
    cu = cu_of_waves(wave, layout, cus)
    slots_per_cu = issue_slots(count, cost, pipe, cu, cus)
    per_cu = busy_cycles(count, cost, pipe, cu, cus, slots_per_cu, alt)
    total = float(busy_cycles(count, cost, pipe, np.zeros(len(cu), dtype=np.int64), 1, alt=alt)[0]) * scale
    if pricing is not None and pricing.wave_cycles:
        waves = np.unique(wave)
        per_cu = per_cu + np.bincount(cu_of_waves(waves, layout, cus), minlength=cus) * pricing.wave_cycles
        total += len(waves) * pricing.wave_cycles * scale
    if scale > 1.0:
        # Sampled: spread the estimated total over the units the whole launch keeps busy.
        work_units = layout.waves if layout.packed else (geo.total_groups or geo.num_groups)
        units = max(1, min(cus, work_units))
        busiest = total / units
        slots_busiest = float(slots_per_cu.sum()) * scale / units
    else:
        units = int(np.count_nonzero(per_cu))
        busiest = float(per_cu.max())
        slots_busiest = float(slots_per_cu.max())
    time_s = busiest / issuers / clock_hz

    site = issues.assign(alu_cycles=cyc * scale, issues=issues["issues"] * scale)
    per_site = site.groupby(["site", "opclass"], observed=True, sort=True).agg(
        issues=("issues", "sum"), alu_cycles=("alu_cycles", "sum")).reset_index()
    per_site["opclass"] = per_site["opclass"].astype(str)
    if pricing is not None and pricing.site_cost is not None:
        per_site["cycles_per_issue"] = per_site["site"].map(pricing.site_cost).fillna(0.0).astype(float)
    else:
        per_site["cycles_per_issue"] = per_site["opclass"].map(lambda n: priced[n][0]).astype(float)
        if pricing is not None and pricing.site_scale:
            role = per_site["site"].map(pricing.site_scale)
            has = role.notna()
            cost = np.array([base.get(str(c), 0.0) for c in per_site.loc[has, "opclass"]], dtype=float)
            per_site.loc[has, "cycles_per_issue"] = cost * role[has].to_numpy(dtype=float)
    run = per_site.groupby("opclass")["issues"].sum()
    skipped = {op: float(run[op]) for op in sorted(cannot & set(run.index)) if run[op] > 0}
    return AluResult(total, busiest, units, issuers, time_s, geo.fast_math, fallback,
                     per_site[["site", "opclass", "issues", "cycles_per_issue", "alu_cycles"]],
                     skipped, unsupported_warnings(target, skipped), float(count.sum()) * scale,
                     dict(pricing.roles) if pricing is not None else {}, slots_busiest)


def dependent_issue_s(alu: AluResult, resident_waves_per_cu: float, target) -> float:
    """Time the busiest unit needs when every instruction waits for the result of the one before.

    A scheduler with W resident waves issues at most W instructions per dependent-issue
    latency L: with fewer waves than L there is nothing to issue on the cycles between
    (the CUDA C++ Programming Guide's multiprocessor-level example: four-cycle arithmetic
    latency needs four warps per scheduler).  The trace gives no instruction-level
    parallelism, so none is credited; the H200's probe (``simd.dependent_issue_cycles``)
    measured L = 4.15 cycles with one to four warps per scheduler, and two independent
    chains per warp halving it.  0 where the target gives no L.
    """
    latency = float(getattr(target.simd, "dependent_issue_cycles", 0.0) or 0.0)
    if latency <= 0 or alu.slots_busiest_cu <= 0 or resident_waves_per_cu <= 0:
        return 0.0
    issuers = max(int(alu.issuers_used), 1)
    per_issuer = resident_waves_per_cu / issuers
    clock_hz = float(target.clock_mhz) * 1e6
    return alu.slots_busiest_cu / issuers * latency / per_issuer / clock_hz


def wave_issue_s(alu: AluResult, waves: float, target) -> float:
    """Time one wave needs to issue its own instructions when each waits for the one before:
    the mean wave's machine instructions x ``simd.dependent_issue_cycles``.  However many waves
    share its scheduler, a wave is not done before that, so it belongs in the wave's lifetime
    beside its load round trips (:func:`analyzers.bound.classify`).  0 where the target gives no
    dependent-issue latency."""
    latency = float(getattr(target.simd, "dependent_issue_cycles", 0.0) or 0.0)
    if latency <= 0 or waves <= 0 or alu.instructions <= 0:
        return 0.0
    return alu.instructions / waves * latency / (float(target.clock_mhz) * 1e6)
