"""The recorder: runs OpenCL kernels on Oclgrind with our plugin and writes trace v1.

* :func:`record_kernel` records one launch of a kernel from its ``.cl`` file,
  with arguments described by the ``--arg`` mini-language (:mod:`.argspec`);
* :func:`record_command` records every launch of any OpenCL host program.

The plugin (``plugin.cpp``) is compiled on first use (:mod:`.toolchain`); it
streams binary columns (:mod:`.stream`) that :mod:`.convert` turns into
Parquet while the program runs.  docs/recording.md is the user's guide.
"""

from __future__ import annotations

from tracekit.recorder.kernel import record_kernel
from tracekit.recorder.layout import DeviceLayout
from tracekit.recorder.runner import RecordResult, run_recording


def record_command(command: list[str], out, **options) -> RecordResult:
    """Record every kernel launch of ``command`` (an OpenCL host program) into ``out``.

    Options are those of :func:`~tracekit.recorder.runner.run_recording`
    (``sample``, ``alignment``, ``heap_base``, ``echo``).
    """
    if not command:
        from tracekit.errors import RecordError
        raise RecordError("give the host program to run after --, e.g. -- python host.py")
    return run_recording(list(command), out, **options)


__all__ = ["DeviceLayout", "RecordResult", "record_command", "record_kernel", "run_recording"]
