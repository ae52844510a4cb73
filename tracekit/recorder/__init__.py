"""The recorder: runs OpenCL kernels on Oclgrind with our plugin and writes trace v1.

* :func:`record_kernel` records one launch of a kernel from its ``.cl`` file,
  with arguments described by the ``--arg`` mini-language (:mod:`.argspec`);
* :func:`record_command` records every launch of any OpenCL host program.

The plugin (``plugin.cpp``) is compiled on first use (:mod:`.toolchain`); it
streams binary columns (:mod:`.stream`) that :mod:`.convert` turns into
Parquet while the program runs.  docs/recording.md is the user's guide.

The names below are imported on first use: ``tracekit record -- COMMAND`` starts
the program before it loads NumPy and pyarrow, which then load while the program
starts up on the simulator.
"""

from __future__ import annotations

from tracekit.lazy import lazy_attributes

#: Public name -> module that defines it (imported when first asked for).
_LAZY = {"record_kernel": "tracekit.recorder.kernel", "DeviceLayout": "tracekit.recorder.layout",
         "RecordResult": "tracekit.recorder.runner", "run_recording": "tracekit.recorder.runner"}


def record_command(command: list[str], out, **options):
    """Record every kernel launch of ``command`` (an OpenCL host program) into ``out``.

    Options are those of :func:`~tracekit.recorder.runner.run_recording`
    (``sample``, ``alignment``, ``heap_base``, ``echo``); returns its
    :class:`~tracekit.recorder.runner.RecordResult`.
    """
    if not command:
        from tracekit.errors import RecordError
        raise RecordError("give the host program to run after --, e.g. -- python host.py")
    from tracekit.recorder.runner import run_recording
    return run_recording(list(command), out, **options)


__getattr__, __dir__ = lazy_attributes("tracekit.recorder", _LAZY, globals())


__all__ = ["DeviceLayout", "RecordResult", "record_command", "record_kernel", "run_recording"]
