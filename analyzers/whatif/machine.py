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

from dataclasses import dataclass

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


def _with(launch: Launch, table, kernels) -> Launch:
    """``launch`` with ``kernels`` in place of their rows of ``table`` (other devices' rows kept)."""
    from tracekit.isa.table import merge, to_table

    return launch.with_(machine_code=merge(table, to_table(kernels)))


@dataclass(frozen=True)
class NoSpills(Change):
    """The spill and fill messages of the machine code removed (fewer values live: they fit)."""

    name = "no-spills"
    machine = True

    def describe(self) -> str:
        return "keep few enough values live that the compiled kernel needs no spill or fill messages"

    def apply(self, launch: Launch, target) -> Launch:
        from dataclasses import replace

        kernels, table = _kernels(launch, target)
        out, changed = [], False
        for k in kernels:
            listing = [r for r in k.listing if r.get("send_kind") != "scratch"]
            changed |= len(listing) != len(k.listing) or bool(k.scratch_bytes)
            out.append(replace(k, listing=listing, scratch_bytes=0))
        if not changed:
            raise TracekitError(f"no-spills: the machine code for {target.name} has no spill or fill "
                                "messages")
        return _with(launch, table, out)

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
        from dataclasses import replace

        kernels, table = _kernels(launch, target)
        out, changed = [], False
        for k in kernels:
            listing = []
            for r in k.listing:
                wide = r.get("dst_type") in INT64_TYPES and r.get("group") != "send"
                if not wide:
                    listing.append(r)
                    continue
                changed = True
                op = r.get("opclass")
                if op == "convert":
                    continue        # a move that only widens: not needed at 32 bits
                r = dict(r, dst_type=_NARROW_TYPE.get(r.get("dst_type"), r.get("dst_type")),
                         opclass=NARROW_INT64.get(op, op))
                listing.append(r)
            out.append(replace(k, listing=listing))
        if not changed:
            raise TracekitError(f"int32-index: the machine code for {target.name} has no 64-bit integer "
                                "arithmetic")
        return _with(launch, table, out)

    @classmethod
    def from_arg(cls, text: str, ints) -> Int32Index:
        return cls()
