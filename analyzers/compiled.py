"""The compiled view: price and advise on what an optimizing compile keeps, not on Oclgrind's IR.

Oclgrind runs the module its front end built for size: loops of known trip count stay
rolled, so a remainder by a power of two that the loop counter feeds is a real ``srem``
in the trace, while every vendor compiler unrolls the loop and turns it into a mask.
The recorder optimizes a copy of the module with LLVM's O3 pipeline and writes, for each
site, how many instructions of its class the optimized code keeps on its source line
(the sites table's ``compiled`` column, ``tracekit/recorder/compiled.h``).

A site whose count is 0 is *removed*: the compile left nothing of its class on its line.
Without machine code (every non-Intel target, and Intel where no listing maps), removed
sites cost no ALU time, and rules do not find patterns in them
(:attr:`analyzers.rules.facts.Facts.compiled_ops`).  What replaced them (the mask, a
multiply by a reciprocal) is left unpriced: cheaper than what was removed, and the trace
holds no count of it.  Traces recorded without the column are priced from the IR as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: How the result names the view that priced the ALU time.
VIEW = "llvm-O3"


@dataclass(frozen=True)
class CompiledView:
    """What the compiled view did to one launch: removed sites and their IR issues (recorded groups)."""

    removed_sites: tuple[int, ...]
    removed_issues: float
    ir_issues: float

    def to_dict(self) -> dict:
        return {"view": VIEW, "removed_sites": list(self.removed_sites),
                "removed_issues": self.removed_issues, "ir_issues": self.ir_issues}


#: IR opcodes that name registers rather than compute: a vector's element is one of the
#: registers the vector occupies on GPUs whose lanes are scalar, and a bitcast reinterprets one.
REGISTER_MOVES = frozenset({"extractelement", "insertelement", "shufflevector", "bitcast"})


def register_moves(sites: pd.DataFrame | None, kernel: str) -> tuple[int, ...]:
    """Sites of ``kernel`` that only move values between registers: priced at nothing."""
    if sites is None or sites.empty or "opcode" not in sites.columns:
        return ()
    s = sites[(sites["kernel"] == kernel) & sites["opcode"].isin(REGISTER_MOVES)]
    return tuple(int(x) for x in np.sort(s["site"].to_numpy()))


def removed_sites(sites: pd.DataFrame | None, kernel: str) -> tuple[int, ...] | None:
    """Sites of ``kernel`` the optimizing compile removes; None when the trace has no compiled view."""
    if sites is None or sites.empty or "compiled" not in sites.columns:
        return None
    s = sites[sites["kernel"] == kernel]
    known = s["compiled"].notna()
    if not known.any():
        return None
    gone = s.loc[known & (s["compiled"].fillna(1) == 0), "site"]
    return tuple(int(x) for x in np.sort(gone.to_numpy()))


def compiled_view(issues: pd.DataFrame, sites: pd.DataFrame | None, kernel: str) -> CompiledView | None:
    """The compiled view of one launch, or None when the trace was recorded without one."""
    gone = removed_sites(sites, kernel)
    if gone is None:
        return None
    total = float(issues["issues"].sum()) if len(issues) else 0.0
    ran = issues.loc[issues["site"].isin(gone)] if gone and len(issues) else issues.iloc[0:0]
    executed = tuple(int(x) for x in np.unique(ran["site"].to_numpy()))
    return CompiledView(removed_sites=executed, removed_issues=float(ran["issues"].sum()), ir_issues=total)
