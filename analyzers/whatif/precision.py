"""What-if: double-precision arithmetic done in single precision.

An unsuffixed literal (``0.5`` rather than ``0.5f``) is a double in OpenCL C, so
``x * 0.5`` on a float widens ``x``, multiplies in double precision and narrows the
result again.  Suffixing the literals, or building with
``-cl-single-precision-constant``, keeps the arithmetic in float.  The change does
exactly that to the instruction counts: every fp64 class is priced as its fp32
counterpart, and the conversions that only widened and narrowed (``widening_sites``,
found by the rule from the sites' opcodes) go.  Memory accesses are untouched.
"""

from __future__ import annotations

from dataclasses import dataclass

from analyzers.whatif.changes import Change, Launch


@dataclass(frozen=True)
class SinglePrecision(Change):
    """fp64 classes as their fp32 counterparts; the float<->double conversions at
    ``widening_sites`` removed."""

    widening_sites: tuple[int, ...] = ()
    name = "fp32"
    refers_to = {"widening_sites": "instruction site"}
    needs_replay = False

    @property
    def spec(self) -> str:
        return "fp32" + ("=" + ",".join(str(s) for s in self.widening_sites) if self.widening_sites else "")

    def describe(self) -> str:
        return "do the double-precision arithmetic in float (suffix the literals with f)"

    def apply(self, launch: Launch, target) -> Launch:
        ins = launch.instructions
        if ins.empty:
            return launch
        classes = ins["opclass"].astype(str)
        wide = classes.str.startswith("fp64_")
        drop = (classes == "convert") & ins["site"].isin(list(self.widening_sites))
        if not wide.any() and not drop.any():
            return launch
        ins = ins.assign(opclass=classes.where(~wide, "fp32_" + classes.str.slice(5)))
        return launch.with_(instructions=ins[~drop.to_numpy()].reset_index(drop=True))

    @classmethod
    def from_arg(cls, text: str, ints) -> SinglePrecision:
        return cls(tuple(ints(0, 64)))
