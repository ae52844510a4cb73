"""What-if: a 2D buffer's rows laid out with a padded pitch.

Rows whose pitch is a multiple of a cache's set span (a power of two, typically)
map the same column of every row to the same few sets: a wave walking down a column,
or lanes each walking their own row, then evicts its own lines.  Padding each row by
a line spreads the rows over the sets.  The change remaps every address of the buffer
row by row, ``origin + row * (pitch + pad) + column``, and the replay then says what
the caches make of it; whether a pitch thrashes depends on each target's set
mapping (some hash their set index), so only the replay can tell.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analyzers.whatif.changes import _MASK, Change, Launch

#: Recorded global buffers start on 4 KiB (``tracekit record --align``); a row start is taken
#: on the largest power of two that divides the pitch, up to that.
BUFFER_ALIGNMENT = 4096


@dataclass(frozen=True)
class PadPitch(Change):
    """Rows of ``pitch`` bytes of global buffer ``buffer`` grown by ``pad_bytes``."""

    buffer: int
    pitch: int
    pad_bytes: int
    name = "pad-pitch"
    refers_to = {"buffer": "buffer"}
    speculative = True    # whether a pitch thrashes depends on each cache's set mapping

    @property
    def spec(self) -> str:
        return f"pad-pitch={self.buffer}:{self.pitch}:{self.pad_bytes}"

    def describe(self) -> str:
        return (f"pad each {self.pitch}-byte row of argument {self.buffer} by {self.pad_bytes} bytes "
                f"(row pitch {self.pitch + self.pad_bytes})")

    def apply(self, launch: Launch, target) -> Launch:
        acc = launch.accesses
        if "buffer" not in acc or self.pitch <= 0:
            return launch
        sel = (acc["buffer"] == self.buffer).to_numpy() & (acc["space"] != "local").to_numpy()
        if not sel.any():
            return launch
        addr = acc["address"].to_numpy().astype(np.uint64) & _MASK
        low = int(addr[sel].min())
        align = min(self.pitch & -self.pitch, BUFFER_ALIGNMENT)
        origin = np.uint64(low - low % align)
        rows, col = np.divmod((addr[sel] - origin).astype(np.int64), self.pitch)
        new = addr.copy()
        new[sel] = origin + (rows * (self.pitch + self.pad_bytes) + col).astype(np.uint64)
        return launch.with_(accesses=acc.assign(address=new))

    @classmethod
    def from_arg(cls, text: str, ints) -> PadPitch:
        from tracekit.errors import TracekitError

        buffer, pitch, pad = ints(3, 3)
        if pitch <= 0 or pad <= 0:
            raise TracekitError(f"what-if '{text}': pitch and pad bytes must be positive")
        return cls(buffer, pitch, pad)
