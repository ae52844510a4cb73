"""Instruction roles in the ALU model: address arithmetic and loop control at machine level.

The trace counts the LLVM IR Oclgrind executes.  A GPU compiler folds most of
what only computes addresses or runs loops: it turns an array index into a
pointer it increments once per unrolled loop body, or into an immediate offset,
and runs a loop's counter, compare and branch once per unrolled body.  The
recorder writes what each site is for (``sites.role``, tracekit/recorder/roles.h);
a target that carries ``[ir_role_factors]`` (machine instructions per IR
instruction of each role class, measured on its compiler's output) has each such
site's issues scaled by its class's factor, in its ALU time and in its
instruction count.  The classes:

* ``address``: address arithmetic a wave issues once (straight-line code);
* ``loop_address``: address arithmetic a wave repeats (inside a loop), which the
  compiler strength-reduces and unrolls;
* ``indirect``: address arithmetic on a loaded value (a gather's index, a
  pointer chase), which stays per access;
* ``loop``: loop control.

A site "repeats" when its wave issues it more than once on average.  Divisions
and math builtins keep their price whatever their role (a target prices them as
the instruction sequences they are).  Sites without a role, traces without the
column, and targets without the table are priced as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

CLASSES = ("address", "loop_address", "indirect", "loop")


def site_roles(sites: pd.DataFrame | None, kernel: str) -> dict[int, str]:
    """site -> recorded role of the kernel's sites (empty when the trace has no roles)."""
    if sites is None or sites.empty or "role" not in sites.columns:
        return {}
    s = sites[sites["role"].notna()]
    if "kernel" in s.columns:
        s = s[s["kernel"] == kernel]
    return dict(zip(s["site"].astype(np.int64).tolist(), s["role"].astype(str).tolist(), strict=True))


def is_sequence(opclass: str) -> bool:
    """Classes the targets price as whole instruction sequences (divisions, math builtins): an
    address-only division is still a division, so roles leave them to their class's price."""
    return opclass.endswith("_div") or opclass.startswith("math_")


def sequence_rows(opclass: pd.Series) -> np.ndarray:
    """Rows whose class :func:`is_sequence` says, each distinct class asked once."""
    codes, names = pd.factorize(opclass, sort=False)
    flags = np.array([is_sequence(str(n)) for n in names] + [False], dtype=bool)
    return flags[codes]   # a missing class (code -1) takes the last flag: not a sequence


def site_classes(issues: pd.DataFrame, roles: dict[int, str], waves: int) -> dict[int, str]:
    """site -> role class, from its role and whether a wave issues it more than once on average."""
    if not roles or issues.empty or waves <= 0:
        return {}
    per_site = issues.groupby("site", observed=True)["issues"].sum() / float(waves)
    seq = set(issues.loc[sequence_rows(issues["opclass"]), "site"].astype(np.int64).tolist())
    out = {}
    for site, n in per_site.items():
        if int(site) in seq:
            continue
        role = roles.get(int(site))
        if role == "address":
            out[int(site)] = "loop_address" if n > 1.0 else "address"
        elif role in ("indirect", "loop"):
            out[int(site)] = role
    return out


@dataclass(frozen=True)
class RolePricing:
    """What the role factors did to one launch: per-site issue scale and the counts behind it."""

    site_scale: dict[int, float] = field(default_factory=dict)
    factors: dict[str, float] = field(default_factory=dict)
    #: role class -> IR issues of its sites (recorded waves)
    issues: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"factors": dict(sorted(self.factors.items())),
                "ir_issues": {k: float(v) for k, v in sorted(self.issues.items())}}


def role_pricing(issues: pd.DataFrame, sites: pd.DataFrame | None, kernel: str, target) -> RolePricing | None:
    """The target's role factors applied to one launch's sites; None when nothing applies."""
    factors = {k: float(v) for k, v in (getattr(target, "ir_role_factors", {}) or {}).items()}
    if not factors or issues.empty:
        return None
    classes = site_classes(issues, site_roles(sites, kernel), int(issues["wave"].nunique()))
    if not classes:
        return None
    scale = {s: factors[c] for s, c in classes.items() if c in factors}
    per_site = issues.groupby("site", observed=True)["issues"].sum()
    counts: dict[str, float] = {}
    for s, c in classes.items():
        counts[c] = counts.get(c, 0.0) + float(per_site.get(s, 0.0))
    return RolePricing(site_scale=scale, factors=factors, issues=counts)
