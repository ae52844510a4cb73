"""SIMD utilisation: how many lanes of each wave do useful work.

Two things waste lanes.  *Partial waves*: a work-group whose size is not a
multiple of the wave width leaves the last wave of every work-group partly
empty (PowerVR can instead pack several small work-groups into one task).
*Divergence*: lanes of a wave that skip a branch sit idle while the others run
it, because a wave issues an instruction as often as its busiest lane needs it.

Both show up in one number per site, computed from the trace's per-lane
instruction counts::

    utilization = lane executions / (issues x width)

where ``issues`` sums, over the waves, the largest count of any lane of the wave.
Everything here is vectorised over the ``instructions`` table; nothing loops over
rows in Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from analyzers.geometry import LaunchGeometry
from tracekit.trace.runs import run_lengths


@dataclass(frozen=True)
class WaveLayout:
    """How one launch's work-items map onto the waves of one target."""

    width: int
    work_group_size: int
    #: Waves one (full) work-group occupies; 1 when work-groups are packed.
    waves_per_group: int
    #: Work-groups sharing one wave; above 1 only when small groups are packed.
    groups_per_wave: int
    #: Lanes one work-group holds: its size, or its share of a packed wave.
    slot_items: int
    packed: bool
    #: Packing would apply but the kernel has barriers and no compile-time work-group size.
    packing_blocked_by_barrier: bool
    waves: int
    items: int

    @property
    def lanes(self) -> int:
        return self.waves * self.width

    @property
    def idle_lanes(self) -> int:
        return self.lanes - self.items

    @property
    def partial_wave_utilization(self) -> float:
        """Share of the launch's lanes that hold a work-item (1.0: no partial waves)."""
        return self.items / self.lanes if self.lanes else 0.0

    @property
    def idle_lanes_per_group(self) -> int:
        """Lanes left empty by one full work-group (its share of a packed wave when packed)."""
        if self.packed:
            return self.slot_items - self.work_group_size
        return self.waves_per_group * self.width - self.work_group_size

    def to_dict(self) -> dict:
        return {
            "width": self.width, "work_group_size": self.work_group_size,
            "waves_per_work_group": self.waves_per_group, "work_groups_per_wave": self.groups_per_wave,
            "packed": self.packed, "packing_blocked_by_barrier": self.packing_blocked_by_barrier,
            "waves": self.waves, "lanes": self.lanes, "idle_lanes": self.idle_lanes,
            "idle_lanes_per_work_group": self.idle_lanes_per_group,
            "partial_wave_utilization": self.partial_wave_utilization,
        }


def wave_layout(geo: LaunchGeometry, target) -> WaveLayout:
    """Split the launch's work-groups into waves of ``target.simd.width``.

    Work-groups of at most ``simd.pack_small_groups_up_to`` items share a wave,
    ``width // size`` of them side by side (each taking at least
    ``simd.pack_slot_min_items`` lanes when the target gives it), as
    :func:`analyzers.replay.waves.pack_factor` folds them for the memory replay.  A
    kernel with barriers whose work-group size is not fixed at compile time gets
    one work-group per wave: the compiler cannot then keep the groups' barriers
    apart (PowerVR guide, §Execution).
    """
    width = int(target.simd.width)
    size = max(geo.work_group_size, 1)
    limit = int(target.simd.pack_small_groups_up_to or 0)
    slot_min = int(target.simd.pack_slot_min_items or 1)
    per_wave = width // max(size, slot_min)
    could_pack = 0 < size <= limit and size < width and per_wave >= 2
    blocked = could_pack and geo.has_barrier and not geo.compile_time_work_group_size
    packed = could_pack and not blocked
    hist = geo.group_size_histogram()
    groups = sum(n for _, n in hist)
    if packed:
        waves = -(-groups // per_wave)
        return WaveLayout(width, size, 1, per_wave, width // per_wave, True, False, waves, geo.items)
    waves = sum(n * -(-s // width) for s, n in hist)
    return WaveLayout(width, size, -(-size // width), 1, size, False, blocked, waves, geo.items)


def wave_ids(group: np.ndarray, item: np.ndarray, layout: WaveLayout) -> np.ndarray:
    """Wave of each (work-group, item): linear local id order, packed groups side by side."""
    group = group.astype(np.int64, copy=False)
    if layout.packed:
        return group // layout.groups_per_wave
    return group * layout.waves_per_group + item.astype(np.int64) // layout.width


def wave_group(wave: np.ndarray, layout: WaveLayout) -> np.ndarray:
    """First work-group of each wave (used to place waves on compute units)."""
    if layout.packed:
        return wave * layout.groups_per_wave
    return wave // layout.waves_per_group


def _codes(col: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    if not pa.types.is_dictionary(col.type):
        col = pc.dictionary_encode(col)
    arr = col.unify_dictionaries().combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    return arr.indices.to_numpy(zero_copy_only=False).astype(np.int64), arr.dictionary.to_pylist()


def run_segments(group: np.ndarray, item: np.ndarray, items: np.ndarray, layout: WaveLayout):
    """Cut runs of work-items (rows with ``items`` > 1) where they cross a wave.

    Returns (row, wave, lanes): for every piece, the row it comes from, its wave
    and how many of the run's work-items (lanes) fall in that wave.  A run never
    leaves its work-group, so with packed groups it stays in one wave.
    """
    group = group.astype(np.int64, copy=False)
    item = item.astype(np.int64, copy=False)
    rows = np.arange(len(group), dtype=np.int64)
    if layout.packed:
        return rows, group // layout.groups_per_wave, items
    w = layout.width
    first, last = item // w, (item + items - 1) // w
    pieces = last - first + 1
    row = np.repeat(rows, pieces)
    k = np.arange(len(row), dtype=np.int64) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    lane_wave = first[row] + k
    lo = np.maximum(item[row], lane_wave * w)
    hi = np.minimum(item[row] + items[row], (lane_wave + 1) * w)
    return row, group[row] * layout.waves_per_group + lane_wave, hi - lo


@njit(cache=True)
def _reduce_by_wave(wave, pair, count, lane_total, n_pairs):
    """Per (wave, pair) max of ``count`` and sum of ``lane_total`` (``count`` times the
    lanes a row stands for); rows of one wave must be contiguous.

    One pass with a small dense accumulator per wave (pairs are the few
    (site, opclass) combinations of the launch), so no hashing and no sort.
    """
    n = wave.shape[0]
    out_wave = np.empty(n, np.int64)
    out_pair = np.empty(n, np.int64)
    out_max = np.empty(n, np.int64)
    out_sum = np.empty(n, np.int64)
    mx = np.full(n_pairs, -1, np.int64)
    sm = np.zeros(n_pairs, np.int64)
    touched = np.empty(n_pairs, np.int64)
    k = 0
    i = 0
    while i < n:
        w = wave[i]
        nt = 0
        j = i
        while j < n and wave[j] == w:
            p = pair[j]
            if mx[p] < 0:
                touched[nt] = p
                nt += 1
                mx[p] = count[j]
            elif count[j] > mx[p]:
                mx[p] = count[j]
            sm[p] += lane_total[j]
            j += 1
        touched[:nt].sort()
        for t in range(nt):
            p = touched[t]
            out_wave[k] = w
            out_pair[k] = p
            out_max[k] = mx[p]
            out_sum[k] = sm[p]
            mx[p] = -1
            sm[p] = 0
            k += 1
        i = j
    return out_wave[:k], out_pair[:k], out_max[:k], out_sum[:k]


def wave_issues(instructions: pa.Table, layout: WaveLayout) -> pd.DataFrame:
    """Per (wave, site, opclass): ``issues`` (busiest lane's count) and ``lane_executions``.

    ``instructions`` holds the rows of one launch, per work-item or as runs of
    work-items (``items``, see :mod:`tracekit.trace.runs`), which are cut at wave
    boundaries and weighted by their lanes, never expanded.  Rows are reduced
    wave by wave in one compiled pass (re-ordered by wave first when the table
    is not).
    """
    cols = ["wave", "site", "opclass", "issues", "lane_executions"]
    if instructions.num_rows == 0:
        return pd.DataFrame({c: pd.Series(dtype="int64") for c in cols})
    group = instructions["group"].to_numpy()
    item = instructions["item"].to_numpy()
    site = instructions["site"].to_numpy().astype(np.int64)
    count = instructions["count"].to_numpy().astype(np.int64)
    op, names = _codes(instructions["opclass"])
    items = run_lengths(instructions)
    if (items != 1).any():
        row, wave, lanes = run_segments(group, item, items, layout)
        site, count, op = site[row], count[row], op[row]
        lane_total = count * lanes
    else:
        wave = wave_ids(group, item, layout)
        lane_total = count
    n_ops = max(len(names), 1)
    site_lo = int(site.min())
    raw = (site - site_lo) * n_ops + op
    top = int(raw.max()) + 1
    if top <= 1 << 24:     # dense lookup: linear time, no sort
        present = np.zeros(top, np.bool_)
        present[raw] = True
        uniq = np.flatnonzero(present)
        pair = (np.cumsum(present) - 1)[raw]
    else:
        uniq, pair = np.unique(raw, return_inverse=True)
    if wave.size > 1 and (np.diff(wave) < 0).any():
        order = np.argsort(wave, kind="stable")
        wave, pair, count, lane_total = wave[order], pair[order], count[order], lane_total[order]
    w, p, mx, sm = _reduce_by_wave(wave, pair.astype(np.int64), count, lane_total, len(uniq))
    key = uniq[p]
    return pd.DataFrame({
        "wave": w,
        "site": key // n_ops + site_lo,
        "opclass": pd.Categorical.from_codes(key % n_ops, categories=names),
        "issues": mx,
        "lane_executions": sm,
    })


def wave_issues_batches(batches, layout: WaveLayout) -> pd.DataFrame:
    """:func:`wave_issues` over one launch's rows given in batches, so memory stays at a batch.

    Each batch is reduced on its own; a wave cut by a batch boundary appears in
    two partial results, which combine exactly: its busiest lane is the larger
    of the two maxima and lane executions add up.
    """
    parts = []
    for b in batches:
        t = pa.Table.from_batches([b]) if isinstance(b, pa.RecordBatch) else b
        if t.num_rows:
            parts.append(wave_issues(t, layout))
    if len(parts) <= 1:
        return parts[0] if parts else wave_issues(_EMPTY, layout)
    names = list(dict.fromkeys(c for p in parts for c in p["opclass"].cat.categories))
    df = pd.concat([p.assign(opclass=p["opclass"].cat.set_categories(names)) for p in parts],
                   ignore_index=True)
    out = df.groupby(["wave", "site", "opclass"], sort=True, observed=True).agg(
        issues=("issues", "max"), lane_executions=("lane_executions", "sum")).reset_index()
    return out[["wave", "site", "opclass", "issues", "lane_executions"]]


def wave_lanes(wave: np.ndarray, geo: LaunchGeometry, layout: WaveLayout) -> np.ndarray:
    """Lanes of each wave that hold a work-item: the width, less what a partial last wave leaves
    empty (edge work-groups of a non-uniform grid are smaller), or the packed groups' items."""
    wave = np.asarray(wave, np.int64)
    if layout.packed:
        groups = max(geo.total_groups or geo.num_groups, 1)
        first = wave * layout.groups_per_wave
        held = np.clip(groups - first, 0, layout.groups_per_wave)
        return np.minimum(held * layout.work_group_size, layout.width)
    group = wave // layout.waves_per_group
    k = wave % layout.waves_per_group
    size = _group_sizes(group, geo)
    return np.clip(size - k * layout.width, 0, layout.width)


def _group_sizes(group: np.ndarray, geo: LaunchGeometry) -> np.ndarray:
    """Items of each linear work-group id (edge groups of a non-uniform grid are smaller)."""
    per = geo.groups_per_dim
    size = np.ones(group.shape[0], np.int64)
    rest = group.copy()
    for d in range(3):
        idx = rest % max(per[d], 1)
        rest = rest // max(per[d], 1)
        loc = max(int(geo.local_size[d]), 1)
        size *= np.minimum(loc, np.maximum(int(geo.global_size[d]) - idx * loc, 0))
    return size


def site_utilization(issues: pd.DataFrame, width: int, lanes: np.ndarray | None = None) -> pd.DataFrame:
    """Per (site, opclass): issues, lane executions, waves that issued it and utilisation.

    ``lanes`` (per row of ``issues``: the lanes its wave holds, :func:`wave_lanes`) adds
    ``lane_slots`` and ``active_utilization``: lane executions against the lanes the waves
    really have, which isolates divergence from partial waves.
    """
    if issues.empty:
        return pd.DataFrame(columns=["site", "opclass", "issues", "lane_executions", "waves_issued",
                                     "utilization", "lane_slots", "active_utilization"])
    if lanes is not None:
        issues = issues.assign(lane_slots=issues["issues"].to_numpy() * lanes)
    g = issues.groupby(["site", "opclass"], observed=True, sort=True)
    aggs = dict(issues=("issues", "sum"), lane_executions=("lane_executions", "sum"),
                waves_issued=("issues", "size"))
    if lanes is not None:
        aggs["lane_slots"] = ("lane_slots", "sum")
    out = g.agg(**aggs).reset_index()
    if lanes is not None:
        out["active_utilization"] = out["lane_executions"] / out["lane_slots"].where(out["lane_slots"] > 0)
    out["opclass"] = out["opclass"].astype(str)
    out["utilization"] = out["lane_executions"] / (out["issues"] * width)
    return out


@dataclass(frozen=True)
class SimdResult:
    """SIMD utilisation of one launch on one target."""

    layout: WaveLayout
    #: Lane executions / (issues x width) over every instruction; falls back to
    #: the partial-wave figure when the trace has no instruction counts.
    utilization: float
    #: Utilisation if no lane diverged: the partial-wave share of busy lanes.
    partial_wave_utilization: float
    #: Utilisation lost to divergence alone (utilization / partial_wave_utilization).
    divergence_efficiency: float
    issues: int
    lane_executions: int
    source: str            # "instructions" | "geometry"
    per_site: pd.DataFrame

    def to_dict(self) -> dict:
        d = self.layout.to_dict()
        d.update(utilization=self.utilization, divergence_efficiency=self.divergence_efficiency,
                 issues=self.issues, lane_executions=self.lane_executions, source=self.source)
        return d


def simd_utilization(geo: LaunchGeometry, target, instructions: pa.Table | None = None,
                     issues: pd.DataFrame | None = None) -> SimdResult:
    """SIMD utilisation of one launch: partial waves from the geometry, divergence from the counts.

    Pass the launch's ``instructions`` rows (or their :func:`wave_issues` when
    already computed).  Counts are those of the recorded work-groups; a ratio
    needs no sampling correction.
    """
    layout = wave_layout(geo, target)
    if issues is None:
        issues = wave_issues(instructions if instructions is not None else _EMPTY, layout)
    lanes = wave_lanes(issues["wave"].to_numpy(), geo, layout) if not issues.empty else None
    per_site = site_utilization(issues, layout.width, lanes)
    pw = layout.partial_wave_utilization
    if per_site.empty:
        return SimdResult(layout, pw, pw, 1.0, 0, 0, "geometry", per_site)
    n_issue = int(per_site["issues"].sum())
    n_exec = int(per_site["lane_executions"].sum())
    util = n_exec / (n_issue * layout.width) if n_issue else pw
    return SimdResult(layout, util, pw, util / pw if pw else 0.0, n_issue, n_exec, "instructions", per_site)


_EMPTY = pa.table({"group": pa.array([], pa.int64()), "item": pa.array([], pa.int32()),
                   "site": pa.array([], pa.int32()), "opclass": pa.array([], pa.string()),
                   "count": pa.array([], pa.int64())})
