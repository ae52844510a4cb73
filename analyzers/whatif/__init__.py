"""What-if replay: how long a launch would take after a fix, by replaying the changed trace.

A fix that changes where data lives or who reads it (pad a local array, make a
wave's loads contiguous, drop a staging copy, merge neighbouring loads, change the
work-group size, build with relaxed math, read a buffer as an image) is estimated
by *doing* it to the trace and replaying the result through the same model, not by
a formula: the gain is the difference of the two model times, and the result says
which bound moved.  A change that makes the launch slower says so, which is how the
checklist avoids advice that would hurt.

``what_if(trace, target, change)`` takes a :class:`~analyzers.whatif.changes.Change`
or its text form (``"pad-local=64:4"``, ``"coalesce=12"``, ``"drop-staging"``,
``"vector-loads"``, ``"work-group=64"``, ``"fast-math"``, ``"native-math"``,
``"align=7"``, ``"keep-in-register=3"``, ``"no-private"``, ``"fp32"``, ``"pad-pitch=0:2048:128"``,
``"coarsen=4"`` (:mod:`analyzers.whatif.coarsen`), ``"retype=int_div>fp32_div.convert.convert@12"``
(:mod:`analyzers.whatif.retype`), ``"regroup=4,9"`` and ``"sort-work=7"`` (:mod:`analyzers.whatif.regroup`),
``"declare-size"`` (:mod:`analyzers.whatif.declare`), ``"swizzle=4"`` (:mod:`analyzers.whatif.swizzle`),
``"stage-local=7"`` (:mod:`analyzers.whatif.stage`), ``"no-spills"`` and ``"int32-index"``
(:mod:`analyzers.whatif.machine`, priced on the trace's machine code),
and the image changes of :mod:`analyzers.whatif.images`: ``"as-image=0"``, ``"filter-image=0:12,13"``,
``"sampler-borders=26,27"``, ``"read-imageh"``, and ``"vector-loop-loads=5"`` of
:mod:`analyzers.whatif.loops`); see :func:`parse_change`.

Long launches are compared on the same head of their work-groups (both the
unchanged and the changed replay), at most ``max_accesses`` accesses, so a what-if
costs a bounded replay whatever the trace's size; the relative change measured
there scales the full launch's estimate.
"""

from __future__ import annotations

from analyzers.whatif import changes as _changes
from analyzers.whatif import replay as _replay
from analyzers.whatif.changes import Change, Combined, register
from analyzers.whatif.coarsen import Coarsen
from analyzers.whatif.declare import DeclareSize
from analyzers.whatif.images import IMAGE_CHANGES, parse_image_change
from analyzers.whatif.loops import LOOP_CHANGES, parse_loop_change
from analyzers.whatif.machine import Int32Index, NoSpills
from analyzers.whatif.pitch import PadPitch
from analyzers.whatif.precision import SinglePrecision
from analyzers.whatif.references import check_references
from analyzers.whatif.regroup import Regroup, SortWork
from analyzers.whatif.replay import WhatIf
from analyzers.whatif.retype import Retype
from analyzers.whatif.stage import StageLocal
from analyzers.whatif.swizzle import Swizzle
from tracekit.arguments import ArgumentTypeError

register(SinglePrecision)
register(Coarsen)
register(PadPitch)
register(Retype)
register(Regroup)
register(SortWork)
register(DeclareSize)
register(Swizzle)
register(StageLocal)
register(NoSpills)
register(Int32Index)

#: Every change kind by name: the memory and launch changes, then the image and loop changes.
CHANGES = {**_changes.CHANGES, **IMAGE_CHANGES, **LOOP_CHANGES}


def parse_change(text) -> Change:
    """A change from its text form (:func:`analyzers.whatif.changes.parse_change` for the memory,
    precision, pitch and launch changes, :func:`analyzers.whatif.images.parse_image_change` for the
    image ones); several joined with ``+`` are applied together."""
    if isinstance(text, Change):
        return text
    if not isinstance(text, str):
        raise ArgumentTypeError(f"change must be a what-if such as 'pad-local=64:4' or a Change, got "
                                f"{type(text).__name__} {text!r}")
    if "+" in str(text):
        return Combined(tuple(parse_change(part) for part in str(text).split("+")))
    name, _, arg = str(text).strip().partition("=")
    if name.strip() in IMAGE_CHANGES:
        return parse_image_change(name.strip(), arg.strip(), str(text))
    if name.strip() in LOOP_CHANGES:
        return parse_loop_change(name.strip(), arg.strip(), str(text))
    return _changes.parse_change(text)


def what_if(trace, target, change, **options) -> list[WhatIf]:
    """:func:`analyzers.whatif.replay.what_if` with every change kind's text form understood.

    A change naming a buffer or site the trace does not have is refused
    (:func:`check_references`) instead of reported as a change of +0.0 %.
    """
    from analyzers.analyze import resolve_trace

    trace, change = resolve_trace(trace), parse_change(change)
    check_references(trace, change)
    return _replay.what_if(trace, target, change, **options)


__all__ = ["CHANGES", "Change", "Combined", "DeclareSize", "Int32Index", "NoSpills", "PadPitch", "Regroup",
           "Retype", "SinglePrecision", "SortWork", "StageLocal", "Swizzle", "WhatIf", "check_references",
           "parse_change", "register", "what_if"]
