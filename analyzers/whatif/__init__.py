"""What-if replay: how long a launch would take after a fix, by replaying the changed trace.

A fix that changes where data lives or who reads it (pad a local array, make a
wave's loads contiguous, drop a staging copy, merge neighbouring loads, change the
work-group size, build with relaxed math) is estimated by *doing* it to the trace
and replaying the result through the same model, not by a formula: the gain is the
difference of the two model times, and the result says which bound moved.  A
change that makes the launch slower says so, which is how the checklist avoids
advice that would hurt.

``what_if(trace, target, change)`` takes a :class:`~analyzers.whatif.changes.Change`
or its text form (``"pad-local=64:4"``, ``"coalesce=12"``, ``"drop-staging"``,
``"vector-loads"``, ``"work-group=64"``, ``"fast-math"``, ``"native-math"``,
``"align=7"``, ``"keep-in-register=3"``, ``"no-private"``, ``"fp32"``, ``"pad-pitch=0:2048:128"``); see
:func:`~analyzers.whatif.changes.parse_change`.

Long launches are compared on the same head of their work-groups (both the
unchanged and the changed replay), at most ``max_accesses`` accesses, so a what-if
costs a bounded replay whatever the trace's size; the relative change measured
there scales the full launch's estimate.
"""

from __future__ import annotations

from analyzers.whatif.changes import CHANGES, Change, parse_change, register
from analyzers.whatif.pitch import PadPitch
from analyzers.whatif.precision import SinglePrecision
from analyzers.whatif.replay import WhatIf, what_if

register(SinglePrecision)
register(PadPitch)

__all__ = ["CHANGES", "Change", "PadPitch", "SinglePrecision", "WhatIf", "parse_change", "what_if"]
