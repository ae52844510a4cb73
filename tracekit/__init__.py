"""tracekit: trace-driven GPU kernel profiling for mobile and integrated GPUs.

Notebook entry points: :func:`open_trace` to read a trace, ``analyzers.analyze``
to replay it on a target model, :func:`compare` for two traces of one kernel.
Names are imported on first use, so ``import tracekit`` (and the command line's
start-up) does not pay for pandas, pyarrow or the models until they are needed.
"""

from __future__ import annotations

from tracekit.errors import TraceFormatError, TracekitError
from tracekit.lazy import lazy_attributes

__version__ = "0.1.0"

#: Public name -> module that defines it (imported when first asked for).
_LAZY = {"Trace": "tracekit.trace.reader", "TraceWriter": "tracekit.trace.store",
         "write_trace": "tracekit.trace.store", "open_trace": "tracekit.formats",
         "compare": "tracekit.pipeline"}


__getattr__, __dir__ = lazy_attributes("tracekit", _LAZY, globals())


__all__ = ["Trace", "compare", "TraceFormatError", "TraceWriter", "TracekitError", "open_trace",
           "write_trace", "__version__"]
