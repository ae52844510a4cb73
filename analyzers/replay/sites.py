"""The replay's per-site table, declared once for every module that builds, sums or merges it.

A row is one (kernel, launch, site, space, op); its counts add up over chunks, work-groups
and compute units, and every rate of the table (transactions per request, hit rates) is
recomputed from those sums rather than averaged.
"""

from __future__ import annotations

#: The key of a per-site row.
SITE_KEYS = ("kernel", "launch", "site", "space", "op")
#: Counts of a per-site row that add up over chunks, work-groups and compute units.
SITE_SUMS = ("requests", "accesses", "transactions", "bytes_requested", "bytes_moved", "local_cycles")
#: Address spaces that go through the cache hierarchy (local memory and private registers do not).
MEMORY_SPACES = ("global", "constant", "image")
#: Operations that read through the caches (an atomic reads its line too).
LOAD_OPS = ("load", "atomic")
