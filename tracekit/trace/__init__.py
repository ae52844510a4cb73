"""Trace format v1: its schema, how it is stored and read, validated, partitioned and summarised.

The bottom layer of tracekit: nothing here imports the models, the report or the
command line.  :class:`Trace` is one trace (read lazily, table by table);
:func:`tracekit.open_trace` opens any input, converting other tools' exports
through :mod:`tracekit.formats`.
"""

from tracekit.trace.reader import Trace, open_stored
from tracekit.trace.store import TraceWriter, write_trace

__all__ = ["Trace", "TraceWriter", "open_stored", "write_trace"]
