"""One kernel's machine code for one device: :class:`KernelISA`, and its listing's columns.

Built by :mod:`.compile` (ocloc, iga64), stored and read back as the trace's
``machine_code`` table by :mod:`.table`, kept between recordings by :mod:`.described`;
the machine-code model (``analyzers.machine_code``) reads :attr:`KernelISA.instructions`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: Columns of :attr:`KernelISA.instructions`, one row per machine instruction.
INSTRUCTION_COLUMNS = ("pc", "block", "op", "function", "exec_size", "channel_offset", "write_enable",
                       "dst_type", "group", "opclass", "send_kind", "bti", "bytes_read", "bytes_written",
                       "weight", "file", "line", "column", "text")


@dataclass
class KernelISA:
    """One kernel's machine code for one device, and what the compiler said about it."""

    device: str
    kernel: str
    build_options: str
    compiler: str
    simd_width: int
    grf_count: int          # registers each hardware thread is given (32 bytes each)
    grf_used: int           # registers the listing touches
    slm_bytes: int
    barrier_count: int
    scratch_bytes: int      # per hardware thread: spills and private arrays kept in memory
    private_memory: bool
    line_mapping: str       # "source_line" or "basic_block"
    #: One dict per machine instruction, keyed by :data:`INSTRUCTION_COLUMNS` (None where unknown):
    #: what the ``machine_code`` table stores, so writing a trace needs no DataFrame.
    listing: list[dict] = field(repr=False)
    target: str | None = None

    @cached_property
    def instructions(self) -> pd.DataFrame:
        """The listing as a DataFrame (one row per instruction; ``line``/``column`` nullable Int32)."""
        import pandas as pd
        frame = pd.DataFrame(self.listing, columns=list(INSTRUCTION_COLUMNS))
        frame["line"] = frame["line"].astype("Int32")
        frame["column"] = frame["column"].astype("Int32")
        return frame

    @property
    def spill_fill(self) -> bool:
        """True when the code moves registers to and from scratch memory."""
        return bool((self.instructions["send_kind"] == "scratch").any())

    @property
    def group_counts(self) -> dict[str, int]:
        """Static instructions per group (float, int, math, move, logic, compare, control, send, other)."""
        return {str(k): int(v) for k, v in self.instructions["group"].value_counts().sort_index().items()}

    @property
    def send_counts(self) -> dict[str, int]:
        """Static messages per kind (global, slm, atomic, barrier, scratch, ...)."""
        s = self.instructions.loc[self.instructions["group"] == "send", "send_kind"]
        return {str(k): int(v) for k, v in s.value_counts().sort_index().items()}

    def summary(self) -> dict:
        return {"device": self.device, "kernel": self.kernel, "simd_width": self.simd_width,
                "grf_count": self.grf_count, "grf_used": self.grf_used, "scratch_bytes": self.scratch_bytes,
                "spill_fill": self.spill_fill, "slm_bytes": self.slm_bytes,
                "instructions": len(self.instructions), "line_mapping": self.line_mapping,
                "groups": self.group_counts, "sends": self.send_counts}
