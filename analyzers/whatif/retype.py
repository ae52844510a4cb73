"""What-if: instructions of one class done as others (a division through float, 32-bit indices).

Much of the arithmetic advice is "do this operation another way": an integer
division as a float division between two conversions, 64-bit index arithmetic in
32 bits, integer arithmetic in float, float arithmetic in half precision.  The
change does that to the instruction counts: every instruction of class ``source``
at the named sites (all sites when none are named) becomes one instruction of each
class in ``into`` (none: it goes), and the launch is priced again by the same
execution models.  Memory accesses are untouched, so the memory replay is reused.

Like every what-if, both sides of the comparison are priced on the IR model (the
changed code has no machine code of its own); the relative gain then scales the
launch's analysed time.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analyzers.alu import cycles_table
from analyzers.whatif.changes import Change, Launch
from tracekit.errors import TracekitError


@dataclass(frozen=True)
class Retype(Change):
    """Instructions of class ``source`` at ``sites`` (every site when empty) executed as one
    instruction of each class of ``into``."""

    source: str
    into: tuple[str, ...]
    sites: tuple[int, ...] = ()
    name = "retype"
    needs_replay = False
    refers_to = {"sites": "instruction site"}

    @property
    def spec(self) -> str:
        into = ".".join(self.into) if self.into else "none"
        at = ("@" + ",".join(str(s) for s in self.sites)) if self.sites else ""
        return f"retype={self.source}>{into}{at}"

    def describe(self) -> str:
        into = " + ".join(self.into) if self.into else "nothing"
        where = f" at sites {', '.join(str(s) for s in self.sites)}" if self.sites else ""
        return f"execute the {self.source} instructions{where} as {into}"

    def apply(self, launch: Launch, target) -> Launch:
        ins = launch.instructions
        if ins.empty:
            return launch
        table = cycles_table(target, "-cl-fast-relaxed-math" in str(launch.row.get("build_options") or ""))
        missing = [c for c in self.into if c not in table]
        if missing:
            raise TracekitError(f"retype: {target.name} prices no {', '.join(missing)} instructions")
        classes = ins["opclass"].astype(str)
        hit = (classes == self.source).to_numpy().copy()
        if self.sites:
            hit &= ins["site"].isin(list(self.sites)).to_numpy()
        if not hit.any():
            return launch
        old = ins[hit]
        # a class named k times is one row of k times the count (rows of one site and class are one
        # instruction to the issue model, so repeating the row would not repeat the work)
        times = {c: self.into.count(c) for c in dict.fromkeys(self.into)}
        new = [old.assign(opclass=c, count=old["count"] * k) for c, k in times.items()]
        out = pd.concat([ins[~hit], *new], ignore_index=True) if new else ins[~hit].reset_index(drop=True)
        out = out.sort_values(["group", "item", "site"], kind="stable").reset_index(drop=True) \
            if {"group", "item", "site"} <= set(out.columns) else out
        return launch.with_(instructions=out)

    @classmethod
    def from_arg(cls, text: str, ints) -> Retype:
        """``retype=FROM>TO[.TO...][@SITE,...]`` (``none`` for TO: the instructions go)."""
        body, _, at = str(text).partition("=")[2].partition("@")
        source, sep, into = body.partition(">")
        if not sep or not source.strip() or not into.strip():
            raise TracekitError(f"what-if '{text}': expected retype=FROM>TO[.TO...][@SITE,...], e.g. "
                                "retype=int_div>fp32_div.convert.convert@12")
        names = tuple(c.strip() for c in into.split(".") if c.strip())
        if names == ("none",):
            names = ()
        try:
            sites = tuple(int(s) for s in at.split(",") if s.strip())
        except ValueError:
            raise TracekitError(f"what-if '{text}': sites after '@' must be whole numbers") from None
        if any(s < 0 for s in sites):
            raise TracekitError(f"what-if '{text}': sites must be 0 or more")
        return cls(source.strip(), names, sites)


def retypes(mapping: dict[str, tuple[str, ...]], sites=()) -> Change | None:
    """One change doing every ``source -> into`` of ``mapping`` at ``sites`` (all sites when empty):
    a :class:`Retype`, several applied together, or None for an empty mapping."""
    from analyzers.whatif.changes import Combined

    sites = tuple(sorted(int(s) for s in sites))
    parts = tuple(Retype(src, tuple(into), sites) for src, into in mapping.items())
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Combined(parts)
