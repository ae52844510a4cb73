"""What-if: a gather's data staged in local memory by its work-group (``stage-local=SITE``).

A gather (``x[col[j]]``) has no layout that puts its lanes on neighbouring
elements, but when the elements one work-group gathers fall in a window of the
array, the group can copy that window into local memory first, every item
loading neighbouring elements (coalesced, in turn), wait at a barrier, and then
gather from local memory, where scattered lanes cost bank conflicts rather than
transactions and cache lines.  The change does exactly that to the trace:

- per work-group, the window is the span of the addresses ``SITE`` reads (so the
  fixed kernel must be able to bound it: a band of a matrix, a table, a tile of a
  mesh); it is placed after the kernel's own local arrays;
- item ``i`` of a group of ``W`` copies elements ``i, i + W, i + 2W ...`` of the
  window (a global load and a local store each, with their loop's address and
  control arithmetic) before its first access, then every item passes a barrier;
- the gathers read the same elements from the local copy.

The window costs local memory (and so resident work-groups, which the occupancy
model sees through ``local_mem_bytes``), and the copy moves the whole window even
where the gathers touch a few of its elements: the replay weighs both against the
transactions saved, and a window larger than the target's local memory is refused
(the change does not apply).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analyzers.whatif.changes import _MASK, Change, Launch
from tracekit.errors import TracekitError

#: local arrays start on this boundary (OpenCL aligns a local array to its type; 16 covers float4)
_ALIGN = 16
#: per copied element, besides its load and store: the index add, the loop's compare and branch
_COPY_ALU = ("int_add", "compare", "branch")


@dataclass(frozen=True)
class StageLocal(Change):
    """The elements ``site`` gathers copied into local memory by each work-group, then read there."""

    site: int
    name = "stage-local"
    speculative = True
    refers_to = {"site": "site"}

    @property
    def spec(self) -> str:
        return f"stage-local={self.site}"

    def describe(self) -> str:
        return (f"copy the window of the array each work-group gathers at site {self.site} into local memory "
                "(every item loading neighbouring elements, then a barrier) and gather from the copy")

    @classmethod
    def from_arg(cls, text: str, ints) -> StageLocal:
        return cls(ints(1, 1)[0])

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        site = acc["site"].to_numpy()
        mine = (site == self.site) & (acc["space"].astype(str).to_numpy() == "global") & \
            (acc["op"].astype(str).to_numpy() == "load")
        if not mine.any():
            raise TracekitError(f"stage-local: the launch has no global loads at site {self.site}")
        launch = launch.per_item()   # the copy adds instruction rows an item
        row = dict(launch.row)
        local = [int(x) for x in row.get("local_size") or (1, 1, 1)]
        items = max(1, int(np.prod(local)))
        addr = acc["address"].to_numpy().astype(np.uint64) & _MASK
        size = acc["size"].to_numpy().astype(np.int64)
        group = acc["group"].to_numpy()
        elem = int(np.bincount(size[mine]).argmax())
        windows = _windows(group[mine], addr[mine].astype(np.int64), size[mine], elem)
        base = -(-int(row.get("local_mem_bytes") or 0) // _ALIGN) * _ALIGN
        need = base + int(windows["bytes"].max())
        limit = int(target.local_memory.size_bytes)
        if need > limit:
            widest = int(windows["bytes"].max())
            raise TracekitError(
                f"stage-local: a work-group gathers from a window of {widest} bytes at site {self.site}; "
                f"with the kernel's own {base} bytes that is more than the {limit} bytes of local memory on "
                f"{target.name}")
        # the gathers read the copy
        out = acc.copy()
        rows = np.flatnonzero(mine)
        lo = windows.set_index("group")["lo"].reindex(group[rows]).to_numpy()
        local_buffer = _local_buffer(acc)
        out["address"] = addr
        out.loc[rows, "address"] = (base + (addr[rows].astype(np.int64) - lo)).astype(np.uint64)
        out["space"] = out["space"].astype(str)
        out.loc[rows, "space"] = "local"
        if "buffer" in out:
            out["buffer"] = out["buffer"].astype("Int64")
            out.loc[rows, "buffer"] = local_buffer
        gbuffer = acc["buffer"].iloc[rows[0]] if "buffer" in acc else pd.NA
        sites = np.concatenate([site, launch.instructions["site"].to_numpy()])
        load_site, store_site, barrier_site = (int(sites.max()) + k for k in (1, 2, 3))
        copy = _copy_rows(out, windows, items, elem, base, load_site, store_site, gbuffer, local_buffer)
        out = _sequence(pd.concat([copy, out], ignore_index=True))
        row["local_mem_bytes"] = need
        ins = _copy_instructions(launch.instructions, copy, (load_site, store_site, barrier_site))
        return launch.with_(accesses=out, instructions=ins, row=row)


def _windows(group: np.ndarray, addr: np.ndarray, size: np.ndarray, elem: int) -> pd.DataFrame:
    """Per work-group: ``lo`` (first byte, on an element boundary), ``bytes`` and ``elements`` of the
    span the gathers read."""
    df = pd.DataFrame({"group": group, "lo": addr, "hi": addr + size})
    w = df.groupby("group", sort=True).agg(lo=("lo", "min"), hi=("hi", "max")).reset_index()
    w["lo"] = (w["lo"] // elem) * elem
    w["elements"] = -(-(w["hi"] - w["lo"]) // elem)
    w["bytes"] = w["elements"] * elem
    return w


def _local_buffer(acc: pd.DataFrame):
    """The ``buffer`` value the trace gives local rows (the layout's, usually null)."""
    if "buffer" not in acc:
        return pd.NA
    space = acc["space"].astype(str).to_numpy()
    existing = acc.loc[space == "local", "buffer"]
    return existing.iloc[0] if len(existing) and not pd.isna(existing.iloc[0]) else pd.NA


def _copy_rows(acc, windows, items, elem, base, load_site, store_site, gbuffer, local_buffer) -> pd.DataFrame:
    """The cooperative copy: item ``i`` loads and stores elements ``i, i + items, ...`` of its group's
    window; trip ``j`` of the copy loop is the access's issue tag, so a wave's lanes meet per trip."""
    first = acc.drop_duplicates("group").set_index("group")
    groups, lo, count = (windows[c].to_numpy() for c in ("group", "lo", "elements"))
    g = np.repeat(groups, count)
    k = np.concatenate([np.arange(c) for c in count]) if len(count) else np.zeros(0, np.int64)
    start = np.repeat(lo, count)
    item, trip = k % items, k // items
    load = pd.DataFrame({"group": g, "item": item, "trip": trip, "site": load_site, "space": "global",
                         "op": "load", "address": (start + k * elem).astype(np.uint64), "size": elem,
                         "buffer": gbuffer, "pair": 0})
    store = load.assign(site=store_site, space="local", op="store",
                        address=(base + k * elem).astype(np.uint64), buffer=local_buffer, pair=1)
    rows = pd.concat([load, store], ignore_index=True).sort_values(["group", "item", "trip", "pair"],
                                                                   kind="stable")
    for col in acc.columns:
        if col not in rows:
            rows[col] = first[col].reindex(rows["group"]).to_numpy() if col in ("kernel", "launch") else pd.NA
    if "issue" in acc:
        rows["issue"] = rows["trip"].astype("Int64")
    rows["seq"] = -1  # before the item's own accesses (renumbered by _sequence)
    return rows.drop(columns=["trip", "pair"])[list(acc.columns)]


def _sequence(acc: pd.DataFrame) -> pd.DataFrame:
    """Canonical order with each item's copy first, and ``seq`` renumbered per item."""
    acc = acc.assign(_copy=(acc["seq"] < 0).astype(np.int8) * -1)
    acc = acc.sort_values(["group", "item", "_copy", "seq"], kind="stable").drop(columns="_copy")
    acc["seq"] = acc.groupby(["group", "item"], sort=False).cumcount().to_numpy()
    return acc.reset_index(drop=True)


def _copy_instructions(ins: pd.DataFrame, copy: pd.DataFrame, new_sites: tuple) -> pd.DataFrame:
    """The copy's instruction counts per item (a load, a store and the loop's arithmetic per element)
    and one barrier for every item of the staged groups."""
    load_site, store_site, barrier_site = new_sites
    loads = copy[copy["site"] == load_site].groupby(["group", "item"]).size().rename("count").reset_index()
    parts = [ins]
    fixed = ("group", "item", "site", "opclass", "count")
    template = {c: ins[c].iloc[0] for c in ins.columns if c not in fixed}
    for opclass, site in (("load", load_site), ("store", store_site), *((c, load_site) for c in _COPY_ALU)):
        parts.append(loads.assign(site=site, opclass=opclass, **template))
    every = ins[ins["group"].isin(loads["group"].unique())][["group", "item"]].drop_duplicates()
    parts.append(every.assign(site=barrier_site, opclass="barrier", count=1, **template))
    out = pd.concat(parts, ignore_index=True)
    return out[list(ins.columns)]
