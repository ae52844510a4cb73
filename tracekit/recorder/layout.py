"""A device-like address layout for global buffers.

Oclgrind addresses are ``buffer number << 48 | offset``: useless to a cache
model, where every buffer would land on set 0.  The recorder replays the
program's allocations through a simple device allocator instead: buffers get
base addresses in allocation order, starting at a page-aligned heap base, each
base rounded up to ``alignment`` bytes.  Freed space is not reused, so a base
never changes while a trace is being written and two live buffers never
overlap.  The result is recorded in every launch's metadata under ``layout``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NumPy loads when the first launch is converted, not before the program starts
    import numpy as np

PAGE = 4096
DEFAULT_HEAP_BASE = 0x1000_0000
DEFAULT_ALIGNMENT = 4096


@dataclass
class Allocation:
    handle: int      # Oclgrind's buffer number
    base: int        # device address we give it
    size: int
    order: int       # allocation sequence number


@dataclass
class DeviceLayout:
    """Bump allocator mirroring the program's global-memory allocations."""

    alignment: int = DEFAULT_ALIGNMENT
    heap_base: int = DEFAULT_HEAP_BASE
    live: dict[int, Allocation] = field(default_factory=dict)
    _next: int = 0
    _order: int = 0

    def __post_init__(self) -> None:
        if self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise ValueError(f"alignment must be a power of two, got {self.alignment}")
        self.heap_base = -(-self.heap_base // PAGE) * PAGE
        self._next = self.heap_base

    def allocate(self, handle: int, size: int) -> Allocation:
        base = -(-self._next // self.alignment) * self.alignment
        a = Allocation(handle, base, size, self._order)
        self._order += 1
        self._next = base + max(size, 1)
        self.live[handle] = a
        return a

    def free(self, handle: int) -> None:
        self.live.pop(handle, None)

    def base_table(self) -> np.ndarray:
        """``table[handle]`` = base address of each live buffer (0 where none)."""
        import numpy as np
        n = max(self.live, default=0) + 1
        t = np.zeros(n, dtype=np.uint64)
        for h, a in self.live.items():
            t[h] = a.base
        return t

    def describe(self, arg_of_handle: dict[int, tuple[int, str]]) -> dict:
        """JSON-ready description: live buffers in allocation order, with the
        kernel argument (index, name) that points to each, where one does."""
        bufs = []
        for a in sorted(self.live.values(), key=lambda a: a.order):
            entry = {"base": a.base, "size": a.size, "order": a.order}
            if a.handle in arg_of_handle:
                idx, name = arg_of_handle[a.handle]
                entry.update(arg=idx, name=name)
            bufs.append(entry)
        return {"alignment": self.alignment, "heap_base": self.heap_base, "page": PAGE,
                "global_buffers": bufs,
                "local": "offset in the work-group's local memory; buffers packed in "
                         "allocation order, 16-byte aligned",
                "private": "offset in the work-item's private memory; buffers packed in "
                           "allocation order, 16-byte aligned"}
