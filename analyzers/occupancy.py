"""Occupancy: how many waves a compute unit keeps resident, and what stops it keeping more.

Resident waves are what hide latency: while one waits on memory the unit
switches to another.  A unit holds whole work-groups, so the number resident is
the smallest of several limits, each in work-groups per compute unit:

* ``waves``: the unit's wave (task / hardware-thread) pool over the waves one
  work-group needs;
* ``work_groups``: a separate cap on resident work-groups, where the target has one;
* ``local_memory``: local memory per unit over one work-group's allocation,
  rounded up to the target's allocation granularity (Intel: at least 4 KB, in
  1 KB steps) -- only for kernels that use local memory;
* ``barriers``: barrier registers per unit (Intel: 16 per subslice) -- only for
  kernels that execute a barrier;
* ``registers``: the unit's register file over one work-group's registers, when
  both the target and the trace know them;
* ``grid_size``: the work-groups the launch has for each unit.  Not a hardware
  limit, but small grids leave units nearly empty and that is worth saying.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from analyzers.geometry import LaunchGeometry
from analyzers.simd import WaveLayout
from tracekit.errors import TracekitError

#: Order in which equal limits are named (hardware limits before the grid).
FACTORS = ("local_memory", "barriers", "registers", "work_groups", "waves", "grid_size")


class LaunchDoesNotFit(TracekitError):
    """The launch cannot run on this target at all (work-group or allocation too large)."""


@dataclass(frozen=True)
class OccupancyResult:
    """Residency of one launch on one target's compute unit."""

    work_groups_per_cu: int           # resident at once (all limits, grid included)
    waves_per_cu: int                 # resident at once
    max_waves_per_cu: int
    limiting_factor: str              # one of FACTORS
    hardware_work_groups_per_cu: int  # limit without the grid term
    hardware_limiting_factor: str
    limits: dict[str, int]            # work-groups per unit, each factor that applies
    local_mem_alloc_bytes: int = 0
    notes: tuple[str, ...] = field(default=())

    @property
    def occupancy(self) -> float:
        """Resident waves over the unit's wave pool."""
        return self.waves_per_cu / self.max_waves_per_cu if self.max_waves_per_cu else 0.0

    def to_dict(self) -> dict:
        return {"work_groups_per_cu": self.work_groups_per_cu, "waves_per_cu": self.waves_per_cu,
                "max_waves_per_cu": self.max_waves_per_cu, "occupancy": self.occupancy,
                "limiting_factor": self.limiting_factor,
                "hardware_work_groups_per_cu": self.hardware_work_groups_per_cu,
                "hardware_limiting_factor": self.hardware_limiting_factor,
                "limits": dict(sorted(self.limits.items())),
                "local_mem_alloc_bytes": self.local_mem_alloc_bytes, "notes": list(self.notes)}


def local_mem_allocation(nbytes: int, occ) -> int:
    """Bytes the target actually reserves for a work-group asking for ``nbytes`` of local memory."""
    if nbytes <= 0:
        return 0
    step = int(occ.local_mem_alloc_step_bytes or 0)
    alloc = math.ceil(nbytes / step) * step if step else int(nbytes)
    return max(alloc, int(occ.local_mem_alloc_min_bytes or 0))


def check_fits(geo: LaunchGeometry, target) -> None:
    """Raise :class:`LaunchDoesNotFit` when the launch cannot run on ``target``."""
    occ = target.occupancy
    if geo.work_group_size > occ.max_work_group_size:
        raise LaunchDoesNotFit(
            f"launch {geo.launch} ({geo.kernel}): work-group of {geo.work_group_size} items "
            f"(local size {'x'.join(map(str, geo.local_size))}) exceeds {target.name}'s maximum "
            f"work-group size of {occ.max_work_group_size}")
    alloc = local_mem_allocation(geo.local_mem_bytes, occ)
    if alloc > target.local_memory.size_bytes:
        raise LaunchDoesNotFit(
            f"launch {geo.launch} ({geo.kernel}): {geo.local_mem_bytes} bytes of local memory per "
            f"work-group (allocated as {alloc}) exceed {target.name}'s {target.local_memory.size_bytes} "
            "bytes per compute unit")


def occupancy(geo: LaunchGeometry, layout: WaveLayout, target) -> OccupancyResult:
    """Resident work-groups and waves per compute unit, and the factor that limits them."""
    check_fits(geo, target)
    occ = target.occupancy
    notes: list[str] = []
    limits: dict[str, int] = {}
    max_waves = int(occ.max_waves_per_cu)
    if layout.packed:
        limits["waves"] = max_waves * layout.groups_per_wave
    else:
        limits["waves"] = max_waves // max(layout.waves_per_group, 1)
    if occ.max_work_groups_per_cu:
        limits["work_groups"] = int(occ.max_work_groups_per_cu)
    alloc = local_mem_allocation(geo.local_mem_bytes, occ)
    if alloc:
        limits["local_memory"] = int(target.local_memory.size_bytes // alloc)
    if geo.has_barrier and occ.barrier_slots_per_cu:
        limits["barriers"] = int(occ.barrier_slots_per_cu)
    regs = geo.registers_per_item or 0
    if regs and occ.registers_per_cu:
        lanes = layout.waves_per_group * layout.width if not layout.packed else layout.slot_items
        limits["registers"] = int(occ.registers_per_cu // (regs * lanes))
        if occ.max_registers_per_item and regs > occ.max_registers_per_item:
            notes.append(f"{regs} registers per item exceed the target's {occ.max_registers_per_item}: "
                         "expect spilling to memory")
    for name, value in list(limits.items()):
        if value < 1:
            limits[name] = 1
            notes.append(f"the {name} limit leaves no room for even one work-group; assumed 1 "
                         "(the driver would shrink the work-group or spill)")
    groups = geo.total_groups or geo.num_groups
    limits["grid_size"] = max(1, math.ceil(groups / max(int(target.compute_units), 1)))

    def pick(names):
        best = min(limits[n] for n in names)
        return best, next(n for n in FACTORS if n in names and limits[n] == best)

    hw_names = [n for n in limits if n != "grid_size"]
    hw_groups, hw_factor = pick(hw_names)
    groups_cu, factor = pick(list(limits))
    if layout.packed:
        waves = math.ceil(groups_cu / layout.groups_per_wave)
    else:
        waves = groups_cu * layout.waves_per_group
    return OccupancyResult(groups_cu, min(waves, max_waves), max_waves, factor, hw_groups, hw_factor,
                           limits, alloc, tuple(notes))
