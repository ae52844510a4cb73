"""GPU target models: TOML data files shipped with the package, and their loader."""

from tracekit.targets.loader import list_targets, load_target, target_path
from tracekit.targets.model import (
    CacheLevel,
    DramSpec,
    IsaSpec,
    LocalMemorySpec,
    OccupancySpec,
    SimdSpec,
    Target,
)

__all__ = ["CacheLevel", "DramSpec", "IsaSpec", "LocalMemorySpec", "OccupancySpec", "SimdSpec", "Target",
           "list_targets", "load_target", "target_path"]
