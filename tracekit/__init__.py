"""tracekit: trace-driven GPU kernel profiling for mobile and integrated GPUs.

Notebook entry points: :func:`open_trace` to read a trace, ``analyzers.analyze``
to replay it on a target model.
"""

from .errors import TraceFormatError, TracekitError
from .store import TraceWriter, write_trace
from .trace import Trace, open_trace


def compare(before, after, target):
    """Compare two traces of the same kernel on one target (see :mod:`tracekit.report.compare`)."""
    from .report.compare import compare as _compare
    return _compare(before, after, target)


__version__ = "0.1.0"
__all__ = ["Trace", "compare", "TraceFormatError", "TraceWriter", "TracekitError", "open_trace",
           "write_trace", "__version__"]
