"""Machine instructions per IR instruction, by role and group: the trace against the device's SASS.

The IR side is a recorded trace: issues per wave of every (site, class), as the
SIMD model counts them (:func:`analyzers.simd.wave_issues`), scaled to the whole
launch, each site with its recorded role (``sites.role``).  The machine side is
Nsight Compute's source page of the same launches: warp-level executions of every
SASS instruction, each given a role by :mod:`tracekit.calibration.sass`.  Both are
counted per warp of the launch, by *class* (:mod:`analyzers.roles`: ``address``
once per warp, ``loop_address`` repeated, ``indirect``, ``loop``, or ``work`` for
none) and IR group (:func:`analyzers.machine_code.ir_group`).

:func:`role_factors` pools the launches into machine instructions per IR
instruction of each role: the numbers a target's ``[ir_role_factors]`` carries
(docs/model.md, "Instruction roles").
"""

from __future__ import annotations

import csv
import gzip
import os
from pathlib import Path

import numpy as np
import pandas as pd

from tracekit.calibration import sass

WORK = "work"
CLASSES = ("address", "loop_address", "indirect", "loop", WORK)


def _open_text(path: str | os.PathLike):
    p = Path(path)
    return gzip.open(p, "rt", newline="") if p.suffix == ".gz" else open(p, newline="")


def source_launches(path: str | os.PathLike) -> list[pd.DataFrame]:
    """The launches of an ncu source-page export, in profiling order, each listed once.

    Nsight Compute 2025.3 prints each launch's block twice, identical; when every
    block pairs up that way, one of each pair is kept.
    """
    with _open_text(path) as f:
        frames = sass.read_source_counts(csv.reader(f))

    def same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
        return (a["kernel"].iloc[0] == b["kernel"].iloc[0] and len(a) == len(b)
                and (a["source"].to_numpy() == b["source"].to_numpy()).all()
                and (a["executed"].to_numpy() == b["executed"].to_numpy()).all())

    if len(frames) % 2 == 0 and all(same(frames[i], frames[i + 1]) for i in range(0, len(frames), 2)):
        return frames[::2]
    return frames


def listing(frame: pd.DataFrame) -> list[sass.Instruction]:
    """The instructions of one source-page block, at offsets from the kernel's first address."""
    addr = frame["address"].map(lambda a: int(str(a), 16)).to_numpy()
    base = int(addr.min()) if len(addr) else 0
    out = []
    for a, text in zip(addr, frame["source"], strict=True):
        ins = sass.parse_instruction(int(a) - base, str(text))
        if ins.target is not None and ins.target >= base:
            ins.target -= base
        out.append(ins)
    return out


def role_class(role: str | None, per_warp: float) -> str | None:
    """Role class of a site or instruction: ``address`` splits by whether a warp repeats it."""
    if role == "address":
        return "loop_address" if per_warp > 1.0 else "address"
    return role


def machine_classes(frame: pd.DataFrame, warps: float) -> pd.DataFrame:
    """Executed SASS instructions per warp of one launch, by (class, group)."""
    ins = listing(frame)
    executed = frame["executed"].to_numpy(float)
    per_warp = executed / warps
    roles = sass.roles(ins, executed)
    cls = pd.DataFrame({"cls": [role_class(r, w) or WORK for r, w in zip(roles, per_warp, strict=True)],
                        "group": [sass.group_of(x) for x in ins], "per_warp": per_warp})
    return cls.groupby(["cls", "group"], as_index=False)["per_warp"].sum()


def ir_classes(trace, target="nvidia-h200") -> pd.DataFrame:
    """IR issues per wave of every launch of ``trace``, by (launch, class, group), scaled to the launch.

    The class of a site is the one the ALU model prices it as (:func:`analyzers.roles.site_classes`).
    """
    from analyzers.analyze import resolve_target, resolve_trace
    from analyzers.geometry import launch_geometries
    from analyzers.machine_code import ir_group
    from analyzers.roles import site_classes, site_roles
    from analyzers.simd import wave_issues_batches, wave_layout

    trace = resolve_trace(trace)
    target = resolve_target(target)
    geos, _ = launch_geometries(trace)
    sites = trace.sites.to_pandas()
    rows = []
    for geo in geos:
        layout = wave_layout(geo, target)
        issues = wave_issues_batches(trace.iter_batches("instructions", launches=[geo.launch], runs=True),
                                     layout)
        if issues.empty:
            continue
        classes = site_classes(issues, site_roles(sites, geo.kernel), int(issues["wave"].nunique()))
        per = issues.groupby(["site", "opclass"], observed=True)["issues"].sum().reset_index()
        per["cls"] = per["site"].map(classes).fillna(WORK)
        per["group"] = per["opclass"].astype(str).map(ir_group)
        waves = (geo.total_groups or geo.num_groups) * -(-int(np.prod(geo.local_size)) // target.simd.width)
        g = per.groupby(["cls", "group"], as_index=False)["issues"].sum()
        g["per_warp"] = g["issues"] * geo.sample_scale / waves
        g.insert(0, "launch", geo.launch)
        g.insert(1, "kernel", geo.kernel)
        rows.append(g.drop(columns="issues"))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def compare(ir: pd.DataFrame, machine: list[pd.DataFrame], warps: list[float]) -> pd.DataFrame:
    """One row per (launch, class, group): IR issues and SASS instructions per warp.

    ``machine[i]`` is launch i's source-page block and ``warps[i]`` its warps; trace
    launch i must be the same kernel.
    """
    rows = []
    for i, (frame, w) in enumerate(zip(machine, warps, strict=True)):
        m = machine_classes(frame, w)
        k = ir[ir["launch"] == i]
        if len(k) and k["kernel"].iloc[0] != frame["kernel"].iloc[0]:
            raise ValueError(f"launch {i} is '{k['kernel'].iloc[0]}' in the trace but "
                             f"'{frame['kernel'].iloc[0]}' in the source page")
        both = pd.merge(k[["cls", "group", "per_warp"]].rename(columns={"per_warp": "ir"}),
                        m.rename(columns={"per_warp": "machine"}),
                        on=["cls", "group"], how="outer").fillna(0.0)
        both.insert(0, "launch", i)
        both.insert(1, "kernel", frame["kernel"].iloc[0])
        rows.append(both)
    return pd.concat(rows, ignore_index=True)


def role_factors(table: pd.DataFrame, by: str = "cls") -> pd.DataFrame:
    """Machine instructions per IR instruction of each ``by`` class, pooled over launches.

    The per-warp counts of the launches are summed, so a launch's grid size does not
    weigh (its instructions per warp do); ``median`` is the median of the per-launch
    ratios where the launch has IR instructions of the class.
    """
    g = table.groupby(["launch", by], as_index=False)[["ir", "machine"]].sum()
    out = g.groupby(by).agg(ir=("ir", "sum"), machine=("machine", "sum"),
                            launches=("ir", lambda s: int((s > 0).sum())))
    out["factor"] = out["machine"] / out["ir"].where(out["ir"] > 0)
    ratio = g[g["ir"] > 0].assign(r=lambda d: d["machine"] / d["ir"])
    out["median"] = ratio.groupby(by)["r"].median()
    return out.reset_index()


def measured_factors(table: pd.DataFrame) -> dict[str, float]:
    """The factors a target carries, from :func:`compare`'s table (per-warp sums over launches).

    ``address`` (once per warp) is taken over the launches without loops only: in a loop
    launch the compiler hoists loop-invariant address arithmetic out of the loop, where
    the IR repeats it, so it shows up as once-per-warp machine code against repeated IR.
    The other classes are taken over every launch that has them.
    """
    g = table.groupby(["launch", "cls"])[["ir", "machine"]].sum().unstack(fill_value=0.0)
    loops = g[("ir", "loop")] > 0 if ("ir", "loop") in g.columns else pd.Series(False, index=g.index)
    out = {}
    for c in ("address", "loop_address", "indirect", "loop"):
        if ("ir", c) not in g.columns:
            continue
        rows = g[~loops] if c == "address" else g
        ir, machine = float(rows[("ir", c)].sum()), float(rows[("machine", c)].sum())
        if ir > 0:
            out[c] = machine / ir
    return out
