"""What-if: a loop that walks memory one element per iteration reads several elements per load.

``vector-loop-loads=SITE[,SITE...][:BYTES]`` (:class:`LoopVectorLoads`): among the loads
at the named sites, a work-item's narrow load that starts where its previous one
ended (the iterations of a loop over consecutive elements, whether the trace saw the
loop as one site or unrolled into several) is merged with it into loads of ``BYTES``
(16 by default: a ``vload4`` of floats), as the loop would read them written with
vector types.  The merged loads keep the first element's
address; the load instructions at the site shrink with the loads
(:func:`analyzers.whatif.changes.drop_rows`).  The same merge across *different*
sites is :class:`~analyzers.whatif.changes.VectorLoads`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analyzers.whatif.changes import Change, Launch, drop_rows
from tracekit.errors import TracekitError

_MASK = np.uint64((1 << 63) - 1)


@dataclass(frozen=True)
class LoopVectorLoads(Change):
    """Consecutive loads of one work-item at ``sites`` merged into loads of ``width_bytes``."""

    sites: tuple[int, ...]
    width_bytes: int = 16
    name = "vector-loop-loads"
    refers_to = {"sites": "site"}

    @property
    def spec(self) -> str:
        tail = "" if self.width_bytes == 16 else f":{self.width_bytes}"
        return "vector-loop-loads=" + ",".join(str(s) for s in self.sites) + tail

    def describe(self) -> str:
        return (f"read {8 * self.width_bytes}-bit vectors in the loop at site(s) "
                + ", ".join(str(s) for s in self.sites) + " instead of one element per iteration")

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        if acc.empty:
            return launch
        site = acc["site"].to_numpy()
        sel = np.isin(site, list(self.sites)) & (acc["op"].to_numpy() == "load") \
            & (acc["size"].to_numpy() < self.width_bytes)
        if not sel.any():
            raise TracekitError(f"{self.spec}: the launch has no narrow loads at those sites")
        idx = np.flatnonzero(sel)
        g, it = (acc[c].to_numpy()[idx] for c in ("group", "item"))
        addr = acc["address"].to_numpy().astype(np.uint64)[idx] & _MASK
        size = acc["size"].to_numpy().astype(np.int64)[idx]
        # the rows are in canonical order: each item's loads at these sites as it ran them
        n = len(idx)
        joins = np.zeros(n, bool)
        joins[1:] = (g[1:] == g[:-1]) & (it[1:] == it[:-1]) \
            & (addr[1:] == addr[:-1] + size[:-1].astype(np.uint64))
        run = np.cumsum(~joins) - 1
        start = np.flatnonzero(~joins)
        before = np.concatenate([[0], np.cumsum(size)])
        offset = before[:-1] - before[start[run]]
        chunk = offset // self.width_bytes
        first = np.ones(n, bool)
        first[1:] = ~(joins[1:] & (chunk[1:] == chunk[:-1]))
        run_bytes = np.bincount(run, weights=size).astype(np.int64)
        new_size = np.minimum(self.width_bytes, run_bytes[run] - chunk * self.width_bytes)
        out = acc.copy()
        keep_idx = idx[first]
        out.loc[keep_idx, "size"] = new_size[first]
        drop = np.zeros(len(acc), bool)
        drop[idx[~first]] = True
        return drop_rows(launch.with_(accesses=out), drop)


LOOP_CHANGES = {LoopVectorLoads.name: LoopVectorLoads}


def parse_loop_change(name: str, arg: str, text: str) -> Change:
    """``vector-loop-loads=SITE[,SITE...][:BYTES]``."""
    sites, _, width = arg.partition(":")
    try:
        vals = [int(p) for p in sites.split(",") if p.strip()]
        w = int(width) if width.strip() else 16
    except ValueError:
        raise TracekitError(f"what-if '{text}': expected vector-loop-loads=SITE[,SITE...][:BYTES]") from None
    if not vals or any(v < 0 for v in vals):
        raise TracekitError(f"what-if '{text}': name one or more sites")
    if w not in (8, 16, 32, 64):
        raise TracekitError(f"what-if '{text}': vector width must be 8, 16, 32 or 64 bytes")
    return LoopVectorLoads(tuple(vals), w)
