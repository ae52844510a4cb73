"""What a what-if change names (buffers, sites) checked against what the trace holds.

A change applied to a buffer or a site no access uses leaves every launch as it
was, and the replay would report a change of +0.0 %: an answer to a typo.  The
trace's buffers and sites are gathered in one pass over the two small columns
that hold them, only for a change that names any.
"""

from __future__ import annotations

import weakref

import numpy as np

from tracekit.errors import TracekitError

#: Values listed in the message before "...".
SHOWN = 30
#: Where each kind of reference is looked for: (table, column).
_SOURCES = {"buffer": ("accesses", "buffer"), "site": ("accesses", "site"),
            "instruction site": ("instructions", "site")}
#: Per trace, the values found per kind (a notebook asks several targets about one trace).
_FOUND: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _distinct(trace, table: str, column: str) -> set[int]:
    seen: set[int] = set()
    kw = {"runs": True} if table == "instructions" else {}
    for batch in trace.iter_batches(table, columns=[column], **kw):
        col = batch.column(0).drop_null()
        if len(col):
            seen.update(np.unique(col.to_numpy(zero_copy_only=False)).tolist())
    return seen


def present(trace, kind: str) -> set[int]:
    """The values of ``kind`` (``buffer``, ``site``, ``instruction site``) the trace's rows use."""
    try:
        cache = _FOUND.setdefault(trace, {})
    except TypeError:
        cache = {}
    if kind not in cache:
        cache[kind] = _distinct(trace, *_SOURCES[kind])
    return cache[kind]


def _listing(values: set[int]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    text = ", ".join(str(v) for v in ordered[:SHOWN])
    return text + (f", ... ({len(ordered)} in all)" if len(ordered) > SHOWN else "")


def check_references(trace, change) -> None:
    """Refuse ``change`` (TracekitError) when it names a buffer or site the trace does not have."""
    for kind, wanted in sorted(change.references().items()):
        have = present(trace, kind)
        missing = sorted(wanted - have)
        if missing:
            what = {"buffer": "buffer argument", "site": "access site",
                    "instruction site": "instruction site"}[kind]
            raise TracekitError(
                f"what-if '{change.spec}': the trace has no {what} {', '.join(map(str, missing))}; "
                f"{what}s in the trace: {_listing(have)}")
