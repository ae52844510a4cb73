"""The methods appendix: what the model assumes, stated plainly for the reader.

These are the assumptions that hold for every target; each target adds its own
(from its file's ``assumptions`` table and the analysis result).  The longer
account with derivations is docs/model.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_BASE = (
    ("What is replayed",
     "Numbers come from replaying the recorded trace on a model of each GPU; nothing runs on the "
     "device. Behaviour that depends on data follows the inputs the trace was recorded with, and "
     "a sampled trace stands for the work-groups it kept."),
    ("Waves and requests",
     "Work-items of a work-group are cut into waves of the target's SIMD width in linear local-id "
     "order. One memory request is what a wave's lanes issue at one site on the same occurrence of "
     "that site."),
    ("Coalescing",
     "A request costs one transaction per distinct block of the target's transaction size that its "
     "lanes touch; transactions per request is the ratio over all requests of a site or launch."),
    ("Caches",
     "Each cache level is set-associative with LRU replacement and the write policy of the target "
     "file. Work-groups are placed on compute units round-robin and their requests interleaved in "
     "the order docs/model.md describes; DRAM bytes are the misses and write-backs of the last level."),
    ("Local memory",
     "A local-memory request takes as many cycles as its busiest bank needs after the target's "
     "broadcast rule; the conflict degree is that count relative to a conflict-free request."),
    ("Time and verdict",
     "The ALU term adds the issue cost of every executed instruction class; each memory level's "
     "term is its bytes over its bandwidth; the latency term applies Little's law to the requests "
     "resident waves can keep in flight. The estimate is the largest term and the verdict names it."),
    ("Roofline",
     "Ops are the arithmetic lane-operations counted in the trace. The flat roof is the rate the "
     "ALU model gives this kernel's own instruction mix, so it differs between kernels; slanted "
     "roofs are the bandwidths of the target file."),
    ("Estimated gains",
     "A checklist item's gain is the model's time with the fix applied, subtracted from its time "
     "now. It is an estimate to rank fixes by, not a measurement."),
    ("Not modelled",
     "Instruction caches, clock and thermal changes, driver and launch overheads, contention with "
     "other work on the GPU, and register allocation where the target file gives no numbers."),
)


def base_assumptions() -> list[tuple[str, str]]:
    return list(_BASE)


def _fields(keys: list[str]) -> str:
    """``a.b.x, a.b.y, c`` shown as ``a.b.{x, y}, c``: short enough for a table cell."""
    groups: dict[str, list[str]] = {}
    for key in keys:
        prefix, _, leaf = key.rpartition(".")
        groups.setdefault(prefix, []).append(leaf)
    parts = []
    for prefix, leaves in groups.items():
        inner = leaves[0] if len(leaves) == 1 else "{" + ", ".join(leaves) + "}"
        parts.append(f"{prefix}.{inner}" if prefix else inner)
    return ", ".join(parts)


def target_assumptions(value: Any, target: Any = None) -> list[tuple[str, str]]:
    """A target's assumptions as (fields, text), fields sharing one text merged into one row.

    ``value`` is the analysis result's own list or mapping; ``target`` the Target
    whose file says what it assumed where its sources are silent.
    """
    by_text: dict[str, list[str]] = {}
    for src in (value, getattr(target, "assumptions", None)):
        if isinstance(src, Mapping):
            for key, text in src.items():
                keys = by_text.setdefault(str(text), [])
                if str(key) not in keys:
                    keys.append(str(key))
        elif isinstance(src, (list, tuple)):
            for text in src:
                by_text.setdefault(str(text), [])
    return [(_fields(keys), text) for text, keys in by_text.items()]
