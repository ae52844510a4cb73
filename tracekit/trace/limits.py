"""Limits on what one trace may declare, checked before the work (or the memory) it would cost.

A few kilobytes of compressed input can declare millions of launches or kernel names,
or a bitmap that inflates to gigabytes.  Every command reads a trace through the same
reader, so these checks live here and every command refuses such a trace the same way:
a :class:`~tracekit.errors.TraceFormatError` (exit 2) naming the file, what it declares
and the limit.  docs/trace-format.md ("Limits") lists them.
"""

from __future__ import annotations

from tracekit.errors import TraceFormatError

#: Launches in one trace (rows of ``launches``, or distinct launch ids of ``accesses``).
MAX_LAUNCHES = 100_000
#: Distinct kernel names in one trace (``launches``, or the dictionary of an ``accesses`` batch).
MAX_KERNEL_NAMES = 10_000
#: Granules one launch's footprint may describe, all buffers together: 2^28 granules are
#: 8 GiB of buffers at the recorder's 32-byte granules (256 MiB of flags in memory).
MAX_FOOTPRINT_GRANULES = 1 << 28
#: Bytes of launch metadata (JSON) per launch.
MAX_METADATA_BYTES = 64 << 20
#: Decompressed bytes of one text column chunk of a stored table, beyond 8 per value (names,
#: launch metadata, kernel source): Parquet says how large each chunk inflates, so a larger
#: claim is refused before anything is inflated.
MAX_TEXT_BYTES = 1 << 30


def refuse(what: str, count: int, limit: int, *, path: str | None = None, hint: str | None = None) -> None:
    """Raise when ``count`` (of ``what``) is over ``limit``."""
    if count > limit:
        raise TraceFormatError(f"declares {count:,} {what}, more than the {limit:,} a trace may hold",
                               path=path, hint=hint or "split the recording into several traces "
                               "(docs/trace-format.md, Limits)")


def check_launches(count: int, *, path: str | None = None) -> None:
    refuse("launches", count, MAX_LAUNCHES, path=path)


def check_kernel_names(count: int, *, path: str | None = None) -> None:
    refuse("distinct kernel names", count, MAX_KERNEL_NAMES, path=path)
