"""Atomic updates that queue behind each other in the last-level cache.

An atomic is performed where the line lives (the L2 on GPUs), one line at a time: the
H200 probe (``tests/data/h200_real/PROBES.md``, "Same-address atomics") shows a line busy
for about the same time per SIMD request that updates it, whatever the number of words,
and updates of a single word in turn.  So a request's atomics in one line cost the line
``max(line_cycles, word_cycles x the most lanes on one word)``, requests on one line add
up, and different lines proceed side by side: the launch's atomics take at least as long
as its busiest line.  A histogram of 256 bins (8 lines) is bound by that, not by bytes.

The target's ``[atomics]`` section gives the two costs; a target without it does not
model the queue (its atomics are priced like stores).
"""

from __future__ import annotations

import numpy as np

from analyzers.replay.intdiv import ADDR_MASK


class AtomicLines:
    """Cycles each line spends on the atomics of one launch, chunk by chunk."""

    def __init__(self, target):
        spec = getattr(target, "atomics", None) or {}
        self.line_cycles = float(spec.get("line_cycles", 0.0))
        self.word_cycles = float(spec.get("word_cycles", 0.0))
        line = int(target.caches[-1].line_bytes) if target.caches else 128
        self.shift = line.bit_length() - 1
        self._lines: list[np.ndarray] = []     # per chunk: lines touched, and their cycles
        self._cycles: list[np.ndarray] = []

    @classmethod
    def for_target(cls, target) -> AtomicLines | None:
        return cls(target) if getattr(target, "atomics", None) else None

    def add(self, order: np.ndarray, req_ptr: np.ndarray, address: np.ndarray, size: np.ndarray,
            atomic_req: np.ndarray) -> None:
        """Fold the atomic requests (``atomic_req`` per request) of one chunk."""
        if not atomic_req.any():
            return
        counts = np.diff(req_ptr)
        req = np.repeat(np.arange(len(counts)), counts)          # request of each entry of ``order``
        keep = atomic_req[req]
        req, rows = req[keep], order[keep]
        addr = address[rows].astype(np.int64) & ADDR_MASK
        line = addr >> self.shift
        word = addr // np.maximum(size[rows].astype(np.int64), 1)
        # lanes per (request, line, word), then the busiest word of each (request, line)
        pairs, lanes = np.unique(np.stack([req, line, word]), axis=1, return_counts=True)
        rl, inv = np.unique(pairs[:2], axis=1, return_inverse=True)
        most = np.zeros(rl.shape[1], np.int64)
        np.maximum.at(most, inv.ravel(), lanes)
        cost = np.maximum(self.line_cycles, self.word_cycles * most)
        self._lines.append(rl[1])
        self._cycles.append(cost)

    def cycles(self) -> float:
        """Cycles of the busiest line (0 without atomics)."""
        if not self._lines:
            return 0.0
        _, at = np.unique(np.concatenate(self._lines), return_inverse=True)
        return float(np.bincount(at.ravel(), weights=np.concatenate(self._cycles)).max())
