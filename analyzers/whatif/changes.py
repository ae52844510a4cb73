"""The fixes a what-if replay can apply to one launch's accesses and instruction counts.

Each :class:`Change` rewrites the launch as the fixed kernel would have run it,
on pandas frames of the launch (accesses in canonical order, instruction rows,
the launch row) and returns the rewritten frames; :mod:`analyzers.whatif.replay`
then replays them through the unchanged model.  The rewrites are deliberately
literal, so a reader can check each against the advice it prices:

- :class:`PadLocal`: a local array's rows grow by ``pad_bytes`` (the bank fix);
- :class:`Coalesce`: a buffer's elements are laid out in the order the waves first
  touch them, so every request reads neighbouring addresses (a transposed layout,
  or staging through local memory, does this for a column walk);
- :class:`Align`: each request of a site starts on a transaction boundary;
- :class:`DropStaging`: local loads of staged words read the global data they were
  copied from, the copy (global load + local store) and the barriers go;
- :class:`VectorLoads`: a work-item's neighbouring narrow loads become 128-bit loads;
- :class:`KeepInRegister`: a work-item's repeated loads of one address at a site are
  served from the first;
- :class:`NoPrivate`: private arrays live in registers (their accesses go);
- :class:`WorkGroupSize`: the grid is cut into work-groups of another size;
- :class:`FastMath` / :class:`NativeMath`: relaxed-math build, ``native_`` built-ins;
- in their own modules: :class:`~analyzers.whatif.precision.SinglePrecision` (double-precision
  arithmetic done in float) and :class:`~analyzers.whatif.pitch.PadPitch` (a 2D buffer's rows
  padded).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np
import pandas as pd

from tracekit.errors import TracekitError
from tracekit.trace.run_frames import expand_frame, split_runs

#: OpenCL built-ins that have a ``native_`` version (OpenCL C 1.2 §6.12.2, Table 6.9).
NATIVE_BUILTINS = frozenset({"cos", "divide", "exp", "exp2", "exp10", "log", "log2", "log10", "powr", "recip",
                             "rsqrt", "sin", "sqrt", "tan"})
FAST_MATH_FLAG = "-cl-fast-relaxed-math"
_MASK = np.uint64((1 << 63) - 1)


@dataclass(frozen=True)
class Launch:
    """One launch's rows as the transforms see them."""

    accesses: pd.DataFrame       # canonical order, address as uint64
    #: (group, item, site) order; a row with ``items`` stands for that many consecutive work-items
    #: (tracekit.trace.runs), as the trace stores them: a change that reads or scales counts works
    #: on the runs, one that moves or merges items takes :meth:`per_item` first
    instructions: pd.DataFrame
    row: dict                    # the launches-table row
    #: site -> role (address, indirect, loop, batched) where the trace has roles (docs/trace-format.md)
    roles: dict = field(default_factory=dict)
    #: the trace's ``machine_code`` table, carried only for changes priced on the compiled code
    #: (:attr:`Change.machine`); None: both sides are priced by the IR model
    machine_code: object = None

    def with_(self, **kw) -> Launch:
        return replace(self, **kw)

    def per_item(self) -> Launch:
        """This launch with one instruction row per work-item (runs expanded)."""
        if "items" not in self.instructions.columns:
            return self
        return replace(self, instructions=expand_frame(self.instructions))


class Change:
    """A fix applied to one launch.  ``spec`` is its text form (``--what-if`` syntax)."""

    name = ""
    needs_replay = True   # False: only the execution models change (the memory replay is reused)
    #: True: the fix is only a candidate the replay must confirm (a finding without a measured
    #: gain is dropped, not kept as a note).
    speculative = False
    #: True: the fix changes the compiled code (analyzers/whatif/machine.py), so both sides are
    #: priced from the trace's machine code, which the change rewrites
    machine = False

    @property
    def spec(self) -> str:
        return self.name

    def apply(self, launch: Launch, target) -> Launch:
        raise NotImplementedError

    def describe(self) -> str:
        return self.spec

    def side_effect(self, before, after) -> str | None:
        """Why the fix would make the kernel worse in a way the time alone may not show, or None."""
        return None

    #: Fields that name something in the trace, and what: ``buffer`` (the kernel argument the
    #: accesses went through), ``site`` (a memory access site) or ``instruction site`` (a site
    #: whose instruction counts the change alters).
    refers_to: ClassVar[dict[str, str]] = {}

    def references(self) -> dict[str, set[int]]:
        """What the change names in the trace, by kind (:attr:`refers_to`): a change that names a
        buffer or site the trace does not have would change nothing, so it is refused."""
        out: dict[str, set[int]] = {}
        for name, kind in self.refers_to.items():
            value = getattr(self, name, None)
            if value is None:
                continue
            out.setdefault(kind, set()).update(value if isinstance(value, (tuple, list)) else (value,))
        return out


# -- helpers ---------------------------------------------------------------------------

def occurrence(acc: pd.DataFrame) -> np.ndarray:
    """How many times each row's work-item had run its site before (canonical order)."""
    return acc.groupby(["group", "item", "site"], sort=False).cumcount().to_numpy()


def scale_counts(ins: pd.DataFrame, removed: pd.Series, total: pd.Series, opclass: str) -> pd.DataFrame:
    """Instruction counts of ``opclass`` at each site cut by the share of its accesses removed."""
    if ins.empty or removed.empty:
        return ins
    keep = (1.0 - removed / total.reindex(removed.index)).clip(lower=0.0)
    hit = (ins["opclass"] == opclass) & ins["site"].isin(keep.index)
    ins = ins.copy()
    factor = ins.loc[hit, "site"].map(keep).to_numpy()
    ins.loc[hit, "count"] = np.round(ins.loc[hit, "count"].to_numpy() * factor).astype(np.int64)
    return ins[ins["count"] > 0].reset_index(drop=True)


def drop_rows(launch: Launch, drop: np.ndarray) -> Launch:
    """Accesses with ``drop`` set removed, the load/store counts of their sites cut to match."""
    acc = launch.accesses
    if not drop.any():
        return launch
    gone = acc[drop]
    total = acc.groupby("site").size()
    ins = launch.instructions
    for op, opclass in (("load", "load"), ("store", "store"), ("atomic", "atomic")):
        removed = gone[gone["op"] == op].groupby("site").size()
        ins = scale_counts(ins, removed, total, opclass)
    return launch.with_(accesses=acc[~drop].reset_index(drop=True), instructions=ins)


# -- the changes -----------------------------------------------------------------------

@dataclass(frozen=True)
class PadLocal(Change):
    """Rows of ``row_bytes`` of a local array grow by ``pad_bytes``; ``buffer`` names the array
    (None: every local access)."""

    row_bytes: int
    pad_bytes: int
    buffer: int | None = None
    name = "pad-local"
    refers_to = {"buffer": "buffer"}

    @property
    def spec(self) -> str:
        tail = "" if self.buffer is None else f":{self.buffer}"
        return f"pad-local={self.row_bytes}:{self.pad_bytes}{tail}"

    def describe(self) -> str:
        return f"pad each {self.row_bytes}-byte row of the local array by {self.pad_bytes} bytes"

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        sel = acc["space"].to_numpy() == "local"
        if self.buffer is not None and "buffer" in acc and (acc["buffer"] == self.buffer).any():
            sel &= acc["buffer"].to_numpy() == self.buffer
        if not sel.any():
            return launch
        addr = acc["address"].to_numpy().astype(np.uint64) & _MASK
        origin = addr[sel].min()
        off = (addr[sel] - origin).astype(np.int64)
        rows, col = np.divmod(off, self.row_bytes)
        new = addr.copy()
        new[sel] = origin + (rows * (self.row_bytes + self.pad_bytes) + col).astype(np.uint64)
        acc = acc.copy()
        acc["address"] = new
        extent = int(off.max()) + 1
        row = dict(launch.row)
        if row.get("local_mem_bytes"):
            grown = math.ceil(extent / self.row_bytes) * self.pad_bytes
            row["local_mem_bytes"] = int(row["local_mem_bytes"]) + grown
        return launch.with_(accesses=acc, row=row)


@dataclass(frozen=True)
class Coalesce(Change):
    """Buffer ``buffer`` laid out in first-touch order of the waves' requests."""

    buffer: int
    name = "coalesce"
    refers_to = {"buffer": "buffer"}

    @property
    def spec(self) -> str:
        return f"coalesce={self.buffer}"

    def describe(self) -> str:
        return f"lay out argument {self.buffer} in the order the waves read it (each wave's lanes on " \
               "neighbouring elements)"

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        if "buffer" not in acc:
            return launch
        sel = (acc["buffer"] == self.buffer).to_numpy() & (acc["space"] != "local").to_numpy()
        if not sel.any():
            return launch
        sub = acc[sel]
        width = int(target.simd.width)
        occ = occurrence(sub)
        order = np.lexsort((sub["item"].to_numpy(), sub["site"].to_numpy(), occ,
                            sub["item"].to_numpy() // width, sub["group"].to_numpy()))
        addr = sub["address"].to_numpy().astype(np.uint64) & _MASK
        size = sub["size"].to_numpy().astype(np.int64)
        codes, uniq = pd.factorize(addr[order], sort=False)
        first_size = np.zeros(len(uniq), np.int64)
        np.maximum.at(first_size, codes, size[order])
        offsets = np.concatenate([[0], np.cumsum(first_size)[:-1]]).astype(np.uint64)
        base = addr.min()
        moved = np.empty(len(sub), np.uint64)
        moved[order] = base + offsets[codes]
        acc = acc.copy()
        col = acc["address"].to_numpy().astype(np.uint64).copy()
        col[sel] = moved
        acc["address"] = col
        return launch.with_(accesses=acc)


@dataclass(frozen=True)
class Align(Change):
    """Every request of ``site`` shifted down to start on a transaction boundary."""

    site: int
    name = "align"
    refers_to = {"site": "site"}

    @property
    def spec(self) -> str:
        return f"align={self.site}"

    def describe(self) -> str:
        return f"start every request of site {self.site} on a transaction boundary"

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        sel = (acc["site"] == self.site).to_numpy()
        if not sel.any():
            return launch
        sub = acc[sel]
        width = int(target.simd.width)
        key = pd.DataFrame({"g": sub["group"].to_numpy(), "w": sub["item"].to_numpy() // width,
                            "o": occurrence(sub)})
        addr = pd.Series(sub["address"].to_numpy().astype(np.uint64) & _MASK)
        low = addr.groupby([key["g"], key["w"], key["o"]]).transform("min").to_numpy()
        shift = low % np.uint64(target.transaction_bytes)
        acc = acc.copy()
        col = acc["address"].to_numpy().astype(np.uint64).copy()
        col[sel] = addr.to_numpy() - shift
        acc["address"] = col
        return launch.with_(accesses=acc)


@dataclass(frozen=True)
class DropStaging(Change):
    """Local loads of staged words read the global data directly; the copy and barriers go."""

    name = "drop-staging"

    def describe(self) -> str:
        return "read the staged data straight from global memory and drop the local copy and its barrier"

    def side_effect(self, before, after) -> str | None:
        """The copy often exists to turn a column walk into row reads: when the reads that replace
        the local loads would be uncoalesced, the staging is doing its job."""
        if before.memory is None or after.memory is None or after.memory.patterns is None:
            return None
        was = before.memory.per_site
        local_loads = set(was.loc[(was["space"] == "local") & (was["op"] == "load"), "site"])
        now = after.memory.per_site.merge(after.memory.patterns.sites, on="site", how="left")
        moved = now[now["site"].isin(local_loads) & (now["space"] == "global") & (now["requests"] > 0)]
        if moved.empty:
            return None
        req = float(moved["requests"].sum())
        # at transaction grain, then in units of the first cache (analyzers.scatter): Adreno's
        # 16-byte transactions stay full when rows scatter over lines, its 64-byte lines do not
        for used, extra, ideal, unit in (("transactions", None, "ideal_transactions", "transactions"),
                                         ("cache_units", "misaligned_cache_units", "ideal_cache_units",
                                          "cache lines")):
            if used not in moved or ideal not in moved:
                continue
            n, best = float(moved[used].fillna(0).sum()), float(moved[ideal].fillna(0).sum())
            if extra is not None and extra in moved:
                n -= float(moved[extra].fillna(0).sum())
            if best and n >= 1.5 * best:
                return (f"reading the data directly would take {n / req:.3g} {unit} per request where "
                        f"{best / req:.3g} would do: the local copy is what keeps the accesses coalesced")
        return None

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        if acc.empty:
            return launch
        space, op = acc["space"].to_numpy(), acc["op"].to_numpy()
        same_item = np.zeros(len(acc), bool)
        same_item[1:] = (acc["group"].to_numpy()[1:] == acc["group"].to_numpy()[:-1]) & \
            (acc["item"].to_numpy()[1:] == acc["item"].to_numpy()[:-1])
        prev_global_load = np.zeros(len(acc), bool)
        prev_global_load[1:] = (space[:-1] == "global") & (op[:-1] == "load")
        staged_store = (space == "local") & (op == "store") & same_item & prev_global_load
        if not staged_store.any():
            return launch
        idx = np.flatnonzero(staged_store)
        src = idx - 1
        addr = acc["address"].to_numpy().astype(np.uint64) & _MASK
        words = pd.DataFrame({"group": acc["group"].to_numpy()[idx], "local": addr[idx],
                              "global": addr[src], "gsize": acc["size"].to_numpy()[src],
                              "gbuffer": acc["buffer"].to_numpy()[src] if "buffer" in acc else -1})
        words = words.drop_duplicates(["group", "local"], keep="last")
        loads = np.flatnonzero((space == "local") & (op == "load"))
        found = pd.DataFrame({"row": loads, "group": acc["group"].to_numpy()[loads],
                              "local": addr[loads]}).merge(words, on=["group", "local"], how="inner")
        acc = acc.copy()
        col = addr.copy()
        col[found["row"].to_numpy()] = found["global"].to_numpy().astype(np.uint64)
        acc["address"] = col
        rows = found["row"].to_numpy()
        acc.loc[rows, "space"] = "global"
        acc.loc[rows, "size"] = found["gsize"].to_numpy()
        if "buffer" in acc:
            acc.loc[rows, "buffer"] = found["gbuffer"].to_numpy()
        drop = np.zeros(len(acc), bool)
        drop[idx] = True
        drop[src] = True
        out = drop_rows(launch.with_(accesses=acc), drop)
        ins = out.instructions
        ins = ins[ins["opclass"] != "barrier"].reset_index(drop=True)
        row = dict(out.row)
        if not (out.accesses["space"] == "local").any():
            row["local_mem_bytes"] = 0
        return out.with_(instructions=ins, row=row)


@dataclass(frozen=True)
class VectorLoads(Change):
    """A work-item's neighbouring narrow global loads merged into loads of ``width_bytes``."""

    width_bytes: int = 16
    name = "vector-loads"

    @property
    def spec(self) -> str:
        return "vector-loads" if self.width_bytes == 16 else f"vector-loads={self.width_bytes}"

    def describe(self) -> str:
        return f"load neighbouring values with {8 * self.width_bytes}-bit vector loads"

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        n = len(acc)
        if n < 2:
            return launch
        g, it = acc["group"].to_numpy(), acc["item"].to_numpy()
        space, op, site = acc["space"].to_numpy(), acc["op"].to_numpy(), acc["site"].to_numpy()
        addr = acc["address"].to_numpy().astype(np.uint64) & _MASK
        size = acc["size"].to_numpy().astype(np.int64)
        narrow = (space == "global") & (op == "load") & (size < self.width_bytes)
        joins = np.zeros(n, bool)   # row i continues the run of row i - 1
        joins[1:] = (narrow[1:] & narrow[:-1] & (g[1:] == g[:-1]) & (it[1:] == it[:-1])
                     & (site[1:] != site[:-1]) & (addr[1:] == addr[:-1] + size[:-1].astype(np.uint64)))
        run = np.cumsum(~joins) - 1
        start = np.flatnonzero(~joins)
        pos = np.arange(n) - start[run]
        run_bytes = np.bincount(run, weights=size).astype(np.int64)
        before = np.concatenate([[0], np.cumsum(size)])      # bytes of the rows before row i
        offset = before[:-1] - before[start[run]]              # a row's byte offset in its run
        chunk = offset // self.width_bytes
        first_of_chunk = np.ones(n, bool)
        first_of_chunk[1:] = ~(joins[1:] & (chunk[1:] == chunk[:-1]))
        keep = first_of_chunk | (pos == 0)
        acc = acc.copy()
        new_size = np.minimum(self.width_bytes, run_bytes[run] - chunk * self.width_bytes)
        merged = keep & (np.bincount(run)[run] > 1)
        acc.loc[merged, "size"] = new_size[merged]
        return drop_rows(launch.with_(accesses=acc), ~keep)


@dataclass(frozen=True)
class KeepInRegister(Change):
    """A work-item's repeated loads of one address at ``site`` served from the first."""

    site: int
    name = "keep-in-register"
    refers_to = {"site": "site"}

    @property
    def spec(self) -> str:
        return f"keep-in-register={self.site}"

    def describe(self) -> str:
        return f"load site {self.site}'s value once per work-item and keep it in a private variable"

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        sel = (acc["site"] == self.site).to_numpy()
        if not sel.any():
            return launch
        dup = acc[sel].duplicated(["group", "item", "address"]).to_numpy()
        drop = np.zeros(len(acc), bool)
        drop[np.flatnonzero(sel)[dup]] = True
        return drop_rows(launch, drop)


@dataclass(frozen=True)
class NoPrivate(Change):
    """Private arrays kept in registers: their memory accesses go."""

    name = "no-private"

    def describe(self) -> str:
        return "keep the private arrays in registers"

    def apply(self, launch: Launch, target) -> Launch:
        return drop_rows(launch, (launch.accesses["space"] == "private").to_numpy())


@dataclass(frozen=True)
class WorkGroupSize(Change):
    """The grid cut into work-groups of ``local`` (x, y, z) items."""

    local: tuple[int, int, int]
    name = "work-group"

    @property
    def spec(self) -> str:
        dims = list(self.local)
        while len(dims) > 1 and dims[-1] == 1:
            dims.pop()
        return "work-group=" + ",".join(str(d) for d in dims)

    def describe(self) -> str:
        return "use work-groups of " + " x ".join(str(d) for d in self.local if d > 1 or d == self.local[0])

    def apply(self, launch: Launch, target) -> Launch:
        row = dict(launch.row)
        gsize = [int(x) for x in row["global_size"]]
        old = [max(int(x), 1) for x in row["local_size"]]
        new = [max(int(x), 1) for x in self.local]
        if new == old:
            return launch
        if int(np.prod(new)) > target.occupancy.max_work_group_size:
            raise TracekitError(f"work-group {self.spec}: {int(np.prod(new))} items is more than the "
                                f"target's {target.occupancy.max_work_group_size}")

        def regroup(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
            if df.empty:
                return df
            gx, gy, gz = _global_ids(df["group"].to_numpy(), df["item"].to_numpy(), gsize, old)
            g, i = _local_ids(gx, gy, gz, gsize, new)
            df = df.assign(group=g, item=i)
            return df.sort_values(keys, kind="stable").reset_index(drop=True)

        acc = regroup(launch.accesses, ["group", "item", "seq"])
        ins = launch.instructions
        ins = _regroup_runs(ins, gsize, old, new) if "items" in ins.columns else \
            regroup(ins, ["group", "item", "site"])
        # keep only work-groups the head of the launch holds whole
        full = _whole_groups([acc, ins], int(np.prod(new)))
        if not len(full):
            raise TracekitError(f"work-group {self.spec}: the launch's first work-groups do not fill one "
                                "work-group of that size")
        acc = acc[acc["group"].isin(full)].reset_index(drop=True)
        ins = ins[ins["group"].isin(full)].reset_index(drop=True)
        row["local_size"] = new
        total = int(np.prod([math.ceil(g / loc) for g, loc in zip(gsize, new, strict=True)]))
        meta = dict(row.get("metadata") or {})
        meta.pop("sampling", None)
        if len(full) < total:
            meta["sampling"] = {"mode": "first", "total_groups": total, "groups_recorded": int(len(full))}
        row["metadata"] = meta
        return launch.with_(accesses=acc, instructions=ins, row=row)


def _regroup_runs(ins: pd.DataFrame, gsize, old, new) -> pd.DataFrame:
    """Instruction runs of work-groups of ``old`` items recut for work-groups of ``new``, still runs.

    A run's items are consecutive along x inside one row of its work-group; cut at the rows
    and then where the new work-groups' columns start, each piece is consecutive along x in
    one new work-group too, so it moves whole."""
    run, start, length = split_runs(ins["item"].to_numpy(np.int64), ins["items"].to_numpy(np.int64), old[0])
    gx, gy, gz = _global_ids(ins["group"].to_numpy(np.int64)[run], start, gsize, old)
    piece, gx, length = split_runs(gx, length, new[0])
    g, i = _local_ids(gx, gy[piece], gz[piece], gsize, new)
    out = ins.take(run[piece]).assign(group=g, item=i, items=length)
    return out.sort_values(["group", "item", "site"], kind="stable").reset_index(drop=True)


def _whole_groups(frames: list[pd.DataFrame], size: int) -> np.ndarray:
    """The work-groups whose ``size`` items all have a row in ``frames`` (instruction runs count
    every item they stand for).

    Each row covers items ``[item, item + items)`` of its group; a difference table per group
    (+1 where a row's items start, -1 where they end) summed along the items shows which are
    covered, without a row per item."""
    groups, starts, ends = [], [], []
    for df in frames:
        g, i = df["group"].to_numpy(np.int64), df["item"].to_numpy(np.int64)
        n = df["items"].to_numpy(np.int64) if "items" in df.columns else 1
        groups.append(g)
        starts.append(np.clip(i, 0, size))
        ends.append(np.clip(i + n, 0, size))
    g = np.concatenate(groups)
    if not len(g):
        return g
    have, row = np.unique(g, return_inverse=True)
    width = size + 1
    edges = (np.bincount(row * width + np.concatenate(starts), minlength=len(have) * width)
             - np.bincount(row * width + np.concatenate(ends), minlength=len(have) * width))
    covered = np.cumsum(edges.reshape(len(have), width)[:, :size], axis=1) > 0
    return have[covered.all(axis=1)]


def _global_ids(group, item, gsize, local):
    groups = [math.ceil(g / loc) for g, loc in zip(gsize, local, strict=True)]
    g = group.astype(np.int64)
    i = item.astype(np.int64)
    bx, by, bz = g % groups[0], (g // groups[0]) % groups[1], g // (groups[0] * groups[1])
    lx, ly, lz = i % local[0], (i // local[0]) % local[1], i // (local[0] * local[1])
    return bx * local[0] + lx, by * local[1] + ly, bz * local[2] + lz


def _local_ids(gx, gy, gz, gsize, local):
    groups = [math.ceil(g / loc) for g, loc in zip(gsize, local, strict=True)]
    bx, by, bz = gx // local[0], gy // local[1], gz // local[2]
    lx, ly, lz = gx % local[0], gy % local[1], gz % local[2]
    return bx + groups[0] * (by + groups[1] * bz), lx + local[0] * (ly + local[1] * lz)


@dataclass(frozen=True)
class FastMath(Change):
    """Built with ``-cl-fast-relaxed-math``: the target's relaxed prices apply."""

    name = "fast-math"
    needs_replay = False

    def describe(self) -> str:
        return "build with -cl-fast-relaxed-math"

    def apply(self, launch: Launch, target) -> Launch:
        row = dict(launch.row)
        opts = (row.get("build_options") or "").split()
        if FAST_MATH_FLAG not in opts:
            row["build_options"] = " ".join([*opts, FAST_MATH_FLAG])
        return launch.with_(row=row)


@dataclass(frozen=True)
class NativeMath(Change):
    """Precise math built-ins that have a ``native_`` version (and a price for it) called natively."""

    name = "native-math"
    needs_replay = False

    def describe(self) -> str:
        return "call the native_ versions of the math built-ins"

    def apply(self, launch: Launch, target) -> Launch:
        ins = launch.instructions
        if ins.empty:
            return launch
        names = {c: f"math_native_{c[5:]}" for c in ins["opclass"].unique()
                 if c.startswith("math_") and not c.startswith(("math_native_", "math_half_"))
                 and c[5:] in NATIVE_BUILTINS and f"math_native_{c[5:]}" in target.alu_cycles}
        if not names:
            return launch
        return launch.with_(instructions=ins.assign(opclass=ins["opclass"].astype(str).replace(names)))


@dataclass(frozen=True)
class Combined(Change):
    """Several fixes applied one after the other (the order they are given in)."""

    changes: tuple[Change, ...]
    name = "combined"

    @property
    def spec(self) -> str:
        return "+".join(c.spec for c in self.changes)

    def describe(self) -> str:
        return "; ".join(c.describe() for c in self.changes)

    @property
    def needs_replay(self) -> bool:
        return any(c.needs_replay for c in self.changes)

    @property
    def machine(self) -> bool:
        return any(c.machine for c in self.changes)

    def apply(self, launch: Launch, target) -> Launch:
        for c in self.changes:
            launch = c.apply(launch, target)
        return launch

    def side_effect(self, before, after) -> str | None:
        return next((why for c in self.changes if (why := c.side_effect(before, after))), None)

    def references(self) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {}
        for c in self.changes:
            for kind, values in c.references().items():
                out.setdefault(kind, set()).update(values)
        return out


CHANGES = {c.name: c for c in (PadLocal, Coalesce, Align, DropStaging, VectorLoads, KeepInRegister, NoPrivate,
                              WorkGroupSize, FastMath, NativeMath)}


def register(cls: type[Change]) -> type[Change]:
    """Add a change kind defined in its own module (it parses its value with ``from_arg``)."""
    CHANGES[cls.name] = cls
    return cls


def parse_change(text: str) -> Change:
    """A change from its text form: ``pad-local=ROW:PAD[:BUFFER]``, ``coalesce=BUFFER``,
    ``align=SITE``, ``drop-staging``, ``vector-loads[=BYTES]``, ``keep-in-register=SITE``,
    ``no-private``, ``work-group=X[,Y[,Z]]``, ``fast-math``, ``native-math``, ``fp32[=SITES]``,
    ``pad-pitch=BUFFER:PITCH:PAD``; several joined with ``+`` are applied together."""
    if isinstance(text, Change):
        return text
    if "+" in str(text):
        return Combined(tuple(parse_change(part) for part in str(text).split("+")))
    name, _, arg = str(text).strip().partition("=")
    name = name.strip()
    if name not in CHANGES:
        raise TracekitError(f"unknown what-if change '{name}' (known: {', '.join(CHANGES)})")

    def ints(n_min: int, n_max: int) -> list[int]:
        parts = [p.strip() for p in arg.replace(":", ",").split(",") if p.strip()] if arg else []
        try:
            vals = [int(p) for p in parts]
        except ValueError:
            raise TracekitError(f"what-if '{text}': expected whole numbers after '='") from None
        if not n_min <= len(vals) <= n_max:
            raise TracekitError(f"what-if '{text}': expected {n_min} to {n_max} numbers, got {len(vals)}")
        if any(v < 0 for v in vals):
            raise TracekitError(f"what-if '{text}': numbers must be 0 or more")
        return vals

    if name == "pad-local":
        v = ints(2, 3)
        if v[0] <= 0 or v[1] <= 0:
            raise TracekitError(f"what-if '{text}': row and pad bytes must be positive")
        return PadLocal(v[0], v[1], v[2] if len(v) > 2 else None)
    if name == "coalesce":
        return Coalesce(ints(1, 1)[0])
    if name == "align":
        return Align(ints(1, 1)[0])
    if name == "keep-in-register":
        return KeepInRegister(ints(1, 1)[0])
    if name == "vector-loads":
        v = ints(0, 1)
        width = v[0] if v else 16
        if width not in (4, 8, 16, 32, 64):
            raise TracekitError(f"what-if '{text}': vector width must be 4, 8, 16, 32 or 64 bytes")
        return VectorLoads(width)
    if name == "work-group":
        v = ints(1, 3)
        if any(x <= 0 for x in v):
            raise TracekitError(f"what-if '{text}': work-group sizes must be positive")
        return WorkGroupSize(tuple((v + [1, 1])[:3]))
    if hasattr(CHANGES[name], "from_arg"):
        return CHANGES[name].from_arg(text, ints)
    if arg:
        raise TracekitError(f"what-if '{name}' takes no value")
    return CHANGES[name]()
