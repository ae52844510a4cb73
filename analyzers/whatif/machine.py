"""What-ifs on the compiled code: changes whose effect only Intel's machine code shows.

Two fixes the Intel rules advise change the machine code and not the kernel's IR:
keeping fewer values live (the spill and fill messages to scratch memory go) and
indexing with 32-bit integers (64-bit integer arithmetic done at 32 bits, the
widening moves gone).  The IR model cannot express either, so these changes are
replayed with the trace's machine code on both sides (:attr:`Change.machine`):
the unchanged launch and the changed one are both priced from the listing, and
the change rewrites the listing as the compiler would emit it after the fix.

- :class:`NoSpills` (``no-spills``): every scratch message (``send_kind`` scratch)
  removed and the thread's scratch size set to zero; the spills' traffic through
  the first cache level goes with them (:func:`analyzers.machine_code.add_scratch_traffic`).
- :class:`Int32Index` (``int32-index``): instructions computing on 64-bit integers
  take their 32-bit class and type (``int64_add`` as ``int_add``, ``:q`` as ``:d``),
  and moves that only widen a 32-bit value to 64 bits are removed.  64-bit loads'
  addresses stay 64-bit: the message payload is not arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from analyzers.machine_code import INT64_TYPES, NARROW_INT64
from analyzers.whatif.changes import Change, Launch
from tracekit.errors import TracekitError

#: 64-bit integer types and their 32-bit forms (Gen assembly type suffixes)
_NARROW_TYPE = {"q": "d", "uq": "ud"}


def _kernels(launch: Launch, target):
    """The launch's machine code for ``target``'s device, as KernelISA objects."""
    from analyzers.machine_code import pa_equal
    from tracekit.isa.table import from_table

    isa = getattr(target, "isa", None)
    table = launch.machine_code
    if isa is None or table is None or table.num_rows == 0:
        raise TracekitError(f"the trace has no machine code for {target.name}: the fix changes compiled code "
                            "the IR replay cannot see")
    return from_table(table.filter(pa_equal(table, "device", isa.ocloc_device))), table


def _rewrite(launch: Launch, target, edit, nothing: str) -> Launch:
    """``launch`` with ``edit`` applied to each of its kernels' machine code for ``target`` (other
    devices' rows kept).  ``edit`` returns the rewritten kernel, or None where it has nothing to
    change; a launch where nothing changes is refused with ``nothing``."""
    from tracekit.isa.table import merge, to_table

    kernels, table = _kernels(launch, target)
    edited = [edit(k) for k in kernels]
    if all(e is None for e in edited):
        raise TracekitError(nothing)
    out = [k if e is None else e for k, e in zip(kernels, edited, strict=True)]
    return launch.with_(machine_code=merge(table, to_table(out)))


@dataclass(frozen=True)
class NoSpills(Change):
    """The spill and fill messages of the machine code removed (fewer values live: they fit)."""

    name = "no-spills"
    machine = True

    def describe(self) -> str:
        return "keep few enough values live that the compiled kernel needs no spill or fill messages"

    def apply(self, launch: Launch, target) -> Launch:
        def edit(k):
            listing = [r for r in k.listing if r.get("send_kind") != "scratch"]
            if len(listing) == len(k.listing) and not k.scratch_bytes:
                return None
            return replace(k, listing=listing, scratch_bytes=0)

        return _rewrite(launch, target, edit,
                        f"no-spills: the machine code for {target.name} has no spill or fill messages")

    @classmethod
    def from_arg(cls, text: str, ints) -> NoSpills:
        return cls()


@dataclass(frozen=True)
class Int32Index(Change):
    """64-bit integer arithmetic of the machine code done at 32 bits, widening moves removed."""

    name = "int32-index"
    machine = True

    def describe(self) -> str:
        return "index with 32-bit integers, so the compiled index arithmetic runs at 32 bits"

    def apply(self, launch: Launch, target) -> Launch:
        def edit(k):
            listing, changed = [], False
            for r in k.listing:
                if r.get("dst_type") not in INT64_TYPES or r.get("group") == "send":
                    listing.append(r)
                    continue
                changed = True
                op = r.get("opclass")
                if op != "convert":     # a move that only widens is not needed at 32 bits
                    listing.append(dict(r, dst_type=_NARROW_TYPE.get(r.get("dst_type"), r.get("dst_type")),
                                        opclass=NARROW_INT64.get(op, op)))
            return replace(k, listing=listing) if changed else None

        return _rewrite(launch, target, edit,
                        f"int32-index: the machine code for {target.name} has no 64-bit integer arithmetic")

    @classmethod
    def from_arg(cls, text: str, ints) -> Int32Index:
        return cls()
