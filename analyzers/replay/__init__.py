"""The memory replay engine: a launch's accesses through a target's memory system.

What goes in is a trace (or one launch's head of it) and a :class:`~tracekit.targets.Target`;
what comes out is typed: a :class:`MemoryReplay` per run, a :class:`LaunchMemory` per launch
(the :class:`MemoryTraffic` the time model reads, and the per-site table), and the
:class:`Patterns` the rules read.  Inside, in the order a chunk of rows meets them:

* ``waves`` forms SIMD requests and schedules work-groups on compute units;
* ``coalescing`` turns requests into transactions and cache units;
* ``cache`` / ``cache_kernels`` replay the cache levels (one compiled kernel per geometry),
  ``constant_cache``, ``texture`` and ``texture_replay`` the constant and image paths,
  ``banks`` and ``request_cost`` local memory and per-request prices, ``atomics`` and
  ``inflight`` the queues and lines still being filled;
* ``patterns`` gathers the per-site facts the rules need in the same pass;
* ``memory`` drives all of that chunk by chunk (:func:`replay_memory`); ``warm_sample``
  replays a recorded head at steady state and ``sampling`` estimates a launch from sampled
  blocks; ``memory_adapter`` hands each launch's counts to the time model
  (:func:`memory_by_launch`); ``merge`` puts replays of a launch's parts back together.

Code outside the package uses the names below; the modules are the package's own.  The
names are loaded on first use, so importing the package costs nothing until a replay runs.
"""

from __future__ import annotations

from importlib import import_module

#: Public name -> module of the package that defines it.
_PUBLIC = {
    "MemoryReplay": "memory", "replay_memory": "memory", "sum_levels": "memory",
    "LaunchMemory": "memory_adapter", "memory_by_launch": "memory_adapter", "launch_memory": "memory_adapter",
    "LevelTraffic": "traffic", "MemoryTraffic": "traffic",
    "CacheHierarchy": "cache",
    "Patterns": "patterns", "LaunchPatterns": "patterns", "merge_patterns": "patterns",
    "merge_replays": "merge",
    "pack_factor": "waves",
    "sample_trace": "sampling",
    "BufferRows": "texture_whatif", "SAMPLE_ROWS": "texture_whatif", "row_pitches": "texture_whatif",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'analyzers.replay' has no attribute {name!r}")
    value = getattr(import_module(f"analyzers.replay.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
