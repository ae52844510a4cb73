"""The simulated device's limits: what Oclgrind offers a recorded kernel.

Oclgrind's device has 32 KiB of local memory unless told otherwise, less than most
GPUs tracekit models (64 KiB on Intel, 80 KiB on PowerVR, 228 KiB on the H200), so a
kernel tuned for one of them would be refused before it runs.  The recorder sets the
limit instead: from ``--local-mem-size``, from the targets named with ``--target``
(the largest of their local memories), or, by default, the largest local memory of
the shipped targets, so that whatever runs on one of the modelled GPUs records.  The
analysis then refuses a launch on a target whose local memory it does not fit.
"""

from __future__ import annotations

from tracekit.errors import RecordError

#: Largest local memory the simulated device may be given (bytes); a work-group's local memory
#: is allocated whole for every simulated group, so more would only exhaust the host.
MAX_LOCAL_MEM_SIZE = 1 << 30


def check_local_mem_size(nbytes) -> int:
    """``nbytes`` as a local memory size, or a :class:`RecordError` naming the allowed range."""
    try:
        n = int(nbytes)
    except (TypeError, ValueError):
        raise RecordError(f"--local-mem-size '{nbytes}' is not a whole number of bytes") from None
    if isinstance(nbytes, float) and n != nbytes:
        raise RecordError(f"--local-mem-size {nbytes} is not a whole number of bytes")
    if not 1 <= n <= MAX_LOCAL_MEM_SIZE:
        raise RecordError(f"--local-mem-size {n} is outside 1 to {MAX_LOCAL_MEM_SIZE:,} bytes")
    return n


def local_memory_limit(local_mem_size: int | None = None, targets=()) -> int:
    """The local memory (bytes per work-group) the simulated device offers.

    ``local_mem_size`` wins; else the largest local memory of ``targets`` (names or target
    files, loaded and checked); else the largest of the shipped targets.
    """
    if local_mem_size is not None:
        return check_local_mem_size(local_mem_size)
    if targets:
        from tracekit.targets import load_target
        return check_local_mem_size(max(int(load_target(n).local_memory.size_bytes) for n in targets))
    return check_local_mem_size(max(shipped_local_memory().values()))


def shipped_local_memory() -> dict[str, int]:
    """Target name -> its ``local_memory.size_bytes``, read straight from the shipped files (the
    shipped files are checked by their tests; parsing every model here would delay the program)."""
    import tomllib

    from tracekit.targets.loader import list_targets, target_path
    out = {}
    for name in list_targets():
        with open(target_path(name), "rb") as f:
            size = tomllib.load(f)["local_memory"]["size_bytes"]
        out[name] = int(size["value"] if isinstance(size, dict) else size)
    return out
