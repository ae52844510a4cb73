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
