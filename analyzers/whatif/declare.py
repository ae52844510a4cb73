"""What-if: the work-group size declared at compile time (``reqd_work_group_size``).

A kernel with barriers whose work-group size the compiler does not know gets one
work-group per wave on targets that otherwise pack small groups side by side
(PowerVR: groups of 4, 8 or 16 items share a 32-lane task only when the size is
fixed).  Declaring the size is a one-line change to the kernel; the change records
the launch's own local size as declared, and the SIMD model packs the groups
(:func:`analyzers.simd.wave_layout`).  The memory replay is redone, since packed
groups share a wave's requests.
"""

from __future__ import annotations

from dataclasses import dataclass

from analyzers.whatif.changes import Change, Launch


@dataclass(frozen=True)
class DeclareSize(Change):
    """The launch's local size declared with ``reqd_work_group_size``."""

    name = "declare-size"

    def describe(self) -> str:
        return "declare the work-group size with __attribute__((reqd_work_group_size(X, Y, Z)))"

    def apply(self, launch: Launch, target) -> Launch:
        row = dict(launch.row)
        meta = dict(row.get("metadata") or {})
        if meta.get("reqd_work_group_size"):
            return launch
        meta["reqd_work_group_size"] = [int(v) for v in (row.get("local_size") or [1, 1, 1])]
        row["metadata"] = meta
        return launch.with_(row=row)
