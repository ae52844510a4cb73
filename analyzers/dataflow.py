"""The kernel's data-flow graph, from the sites table's ``operands`` column, and the slices what-ifs need.

The recorder writes, per site, the sites whose results the instruction takes
(``sites.operands``, docs/trace-format.md).  That graph answers what a change of
the code would take with it, which instruction counts alone cannot: which
arithmetic works on the values a set of loads returns, which only computes what
that arithmetic consumes, and which only computes the loads' addresses.

The first user is bilinear interpolation written by hand (:func:`interpolation`):
four neighbouring texels gathered from a buffer, weights computed from the
fractional coordinate, and a weighted sum.  A sampler with a linear filter does the
gathers, the weights and the sum in the texture unit, so the what-if that reads the
buffer as a filtered image removes exactly that slice of the kernel.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

#: Opcodes of instructions that touch memory: a slice stops at them (what a load returns is a new
#: value; what a store takes leaves the kernel).
MEMORY_OPCODES = ("load", "store", "atomicrmw", "cmpxchg")
#: Opcodes of multiplications (LLVM instructions and the OpenCL built-ins Oclgrind calls).
MULTIPLY_OPCODES = ("mul", "fmul", "call mul24", "call mad24", "call mad", "call llvm.fmuladd.f32",
                    "call llvm.fma.f32", "call fma", "call mad_sat", "call mul_hi", "call dot")


@dataclass(frozen=True)
class Graph:
    """One kernel's sites as a data-flow graph: each site's operand sites and user sites."""

    opcode: dict[int, str]
    operands: dict[int, tuple[int, ...]]
    users: dict[int, tuple[int, ...]]
    memory: frozenset[int] = frozenset()

    def is_memory(self, site: int) -> bool:
        return site in self.memory or self.opcode.get(site, "") in MEMORY_OPCODES


def graph(sites: pd.DataFrame | None, kernel: str, memory: Iterable[int] = ()) -> Graph | None:
    """The data-flow graph of ``kernel``'s sites, or None where the trace has no ``operands``.

    ``memory``: the sites with memory accesses in the trace (built-in calls such as ``vload4``
    access memory too, which their opcode does not say)."""
    if sites is None or sites.empty or "operands" not in sites.columns:
        return None
    s = sites[sites["kernel"] == kernel] if "kernel" in sites.columns else sites
    if s.empty or s["operands"].isna().all():
        return None
    opcode = dict(zip(s["site"].astype(int), s["opcode"].fillna("").astype(str), strict=True))
    operands: dict[int, tuple[int, ...]] = {}
    users: dict[int, list[int]] = {}
    for site, ops in zip(s["site"].astype(int), s["operands"], strict=True):
        ops = tuple(int(o) for o in (ops if ops is not None else ()))
        operands[site] = ops
        for o in ops:
            users.setdefault(o, []).append(site)
    return Graph(opcode, operands, {k: tuple(v) for k, v in users.items()}, frozenset(int(m) for m in memory))


def forward(g: Graph, start: Iterable[int]) -> set[int]:
    """Sites that take, directly or through other arithmetic, a value ``start`` produces (memory
    instructions end the walk: they are not part of the slice)."""
    out: set[int] = set()
    todo = [u for s in start for u in g.users.get(s, ())]
    while todo:
        s = todo.pop()
        if s in out or g.is_memory(s):
            continue
        out.add(s)
        todo.extend(g.users.get(s, ()))
    return out


def only_feeding(g: Graph, into: set[int], exclude: set[int] = frozenset(), *,
                 through_loads: bool = False) -> set[int]:
    """Sites whose every user is in ``into`` or in the result: what exists only to compute
    ``into``'s inputs.  ``exclude`` is never taken, nor are memory instructions unless
    ``through_loads`` (a table look-up that only feeds ``into`` is then part of it, with the
    arithmetic of its index)."""
    out: set[int] = set()
    changed = True
    while changed:
        changed = False
        for s in {o for t in into | out for o in g.operands.get(t, ())}:
            if s in out or s in into or s in exclude or (g.is_memory(s) and not through_loads):
                continue
            users = g.users.get(s, ())
            if users and all(u in into or u in out for u in users):
                out.add(s)
                changed = True
    return out


@dataclass(frozen=True)
class Interpolation:
    """A weighted sum of texels gathered by ``loads``, computed by hand.

    ``blend``: the arithmetic on the gathered values up to the result (its last steps, the
    ``outputs`` that leave the slice, stay); ``weights``: what only computes the blend's other
    operands, with ``tables`` the look-ups among them (a weight table indexed by the fraction);
    ``address``: what only computes the gathers' addresses.  Their meeting point, the coordinate
    both derive from, stays (a sampler needs it too).
    """

    loads: tuple[int, ...]
    blend: tuple[int, ...]
    weights: tuple[int, ...]
    address: tuple[int, ...]
    outputs: tuple[int, ...]
    tables: tuple[int, ...] = ()

    @property
    def removed(self) -> tuple[int, ...]:
        """The sites a filtering sampler makes unnecessary."""
        return tuple(sorted(set(self.blend) | set(self.weights) | set(self.address)))


def interpolation(g: Graph, loads: Iterable[int]) -> Interpolation | None:
    """The hand-written interpolation of the values ``loads`` return, or None: a blend that
    multiplies gathered values by weights computed from something other than the gathered data."""
    loads = set(int(s) for s in loads)
    data = forward(g, loads)
    if not data:
        return None
    outputs = {s for s in data if any(u not in data for u in g.users.get(s, ())) or not g.users.get(s)}
    blend = data - outputs
    weights = only_feeding(g, blend, exclude=loads, through_loads=True)
    tables = {s for s in weights if g.is_memory(s)}
    multiplied = [s for s in blend if g.opcode.get(s, "") in MULTIPLY_OPCODES
                  and any(o in weights for o in g.operands.get(s, ()))]
    if not multiplied or not weights:
        return None
    pointers = {o for s in loads for o in g.operands.get(s, ())}
    address = {p for p in pointers if not g.is_memory(p) and all(u in loads for u in g.users.get(p, ()))}
    address |= only_feeding(g, address | loads, exclude=data) - weights
    address -= loads
    return Interpolation(tuple(sorted(loads)), tuple(sorted(blend)), tuple(sorted(weights - tables)),
                         tuple(sorted(address)), tuple(sorted(outputs)), tuple(sorted(tables)))
