"""Which loads are gathers: addresses that depend on a value the kernel loaded.

A gather (``x[col[j]]``, a pointer chase, a look-up by a computed key) has no layout
that puts its lanes on neighbouring elements; the fixes a programmer can make are to
sort the work by what it gathers, or to read the data through a cache that keeps
what neighbouring items share (the texture path).  The rules that price those fixes
ask this module whether a site gathers.
"""

from __future__ import annotations


def is_gather(f, site: int) -> bool:
    """Whether the address of ``site`` depends on a value the kernel loaded (an index array, a
    pointer chase): its address arithmetic (the sites the recorder marks ``address``, walked back
    through the data-flow graph where the trace has it) reaches arithmetic on a loaded value
    (``indirect``); without the graph, ``indirect`` address arithmetic on the site's source line.
    A stored value's own arithmetic has no address role, so a store is not a scatter because it
    stores what it loaded."""
    o = f.ops
    if not len(o) or "role" not in o:
        return False
    roles = dict(zip(o["site"].astype(int), o["role"], strict=True))
    g = getattr(f.result, "dataflow", None)
    if g is not None:
        seen, todo = set(), list(g.operands.get(site, ()))
        while todo:
            s = todo.pop()
            if s in seen:
                continue
            seen.add(s)
            if roles.get(s) == "indirect":
                return True
            if roles.get(s) == "address":
                todo.extend(g.operands.get(s, ()))
        return False
    line = f.sites_lines.get(site)
    if line is None or line[1] <= 0:
        return False
    same = [s for s, ln in f.sites_lines.items() if ln == line]
    return bool((o.loc[o["site"].isin(same), "role"] == "indirect").any())


def hottest_read_only_gather(f, *, named_buffer: bool = False) -> dict | None:
    """The hot global load site (most bytes moved first) that gathers from a buffer the kernel
    never stores to or updates atomically, as evidence: ``buffer`` (-1 when unknown), ``site``,
    ``accesses``, ``bytes_moved``; or None.  A written buffer cannot be read through another path
    (a copy, the texture caches) and trusted; ``named_buffer`` also asks for the kernel argument
    to be known."""
    loads = f.hot(f.space("global", "load"), "bytes_moved")
    written = set(f.space("global", "store")["buffer"]) | set(f.space("global", "atomic")["buffer"])
    for r in loads.itertuples():
        buffer = int(r.buffer) if r.buffer == r.buffer else -1
        if (named_buffer and buffer < 0) or buffer in written or not is_gather(f, int(r.site)):
            continue
        return {"buffer": buffer, "site": int(r.site), "accesses": int(r.accesses),
                "bytes_moved": int(r.bytes_moved)}
    return None
