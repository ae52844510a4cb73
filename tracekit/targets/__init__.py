"""GPU target models: TOML data files shipped with the package, and their loader."""

from .model import CacheLevel, DramSpec, LocalMemorySpec, OccupancySpec, SimdSpec, Target

__all__ = ["CacheLevel", "DramSpec", "LocalMemorySpec", "OccupancySpec", "SimdSpec", "Target"]
