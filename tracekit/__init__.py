"""tracekit: trace-driven GPU kernel profiling for mobile and integrated GPUs.

Notebook entry points: :func:`open_trace` to read a trace, ``analyzers.analyze``
to replay it on a target model, :func:`compare` for two traces of one kernel.
Names are imported on first use, so ``import tracekit`` (and the command line's
start-up) does not pay for pandas, pyarrow or the models until they are needed.
"""

from __future__ import annotations

from tracekit.errors import TraceFormatError, TracekitError

__version__ = "0.1.0"

#: Public name -> module that defines it (imported when first asked for).
_LAZY = {"Trace": "tracekit.trace.reader", "TraceWriter": "tracekit.trace.store",
         "write_trace": "tracekit.trace.store", "open_trace": "tracekit.formats",
         "compare": "tracekit.pipeline"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tracekit' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = ["Trace", "compare", "TraceFormatError", "TraceWriter", "TracekitError", "open_trace",
           "write_trace", "__version__"]
