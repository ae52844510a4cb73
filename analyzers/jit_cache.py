"""Numba's on-disk cache of compiled kernels, kept best-effort.

The replay kernels are compiled once and saved next to their source (``cache=True``).
Saving is an optimisation: on a full disk, a quota or a file-size limit the write
fails with an OSError, and numba would let that end the analysis although the kernel
is compiled and ready in memory.  The guard drops the failed save; numba writes a
cache entry's data before its index, so a half-written data file is never read.
"""

from __future__ import annotations


def install() -> None:
    """Make numba's cache saves ignore OSError (idempotent)."""
    from numba.core import caching

    save = caching.Cache.save_overload
    if getattr(save, "_best_effort", False):
        return

    def save_overload(self, sig, data):
        try:
            save(self, sig, data)
        except OSError:
            pass  # nothing cached on disk this time; the compiled kernel is used as is

    save_overload._best_effort = True
    caching.Cache.save_overload = save_overload
