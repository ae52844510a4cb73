"""Trace format v1: its schema, how it is stored and read, validated, partitioned and summarised.

The bottom layer of tracekit: nothing here imports the models, the report or the
command line.  :class:`Trace` is one trace (read lazily, table by table);
:func:`tracekit.open_trace` opens any input, converting other tools' exports
through :mod:`tracekit.formats`.  The names below are imported on first use, so
importing one submodule (the vocabulary, say) does not load pyarrow and pandas.
"""

from __future__ import annotations

from tracekit.lazy import lazy_attributes

#: Public name -> module that defines it (imported when first asked for).
_LAZY = {"Trace": "tracekit.trace.reader", "open_stored": "tracekit.trace.reader",
         "TraceWriter": "tracekit.trace.store", "write_trace": "tracekit.trace.store"}


__getattr__, __dir__ = lazy_attributes("tracekit.trace", _LAZY, globals())


__all__ = ["Trace", "TraceWriter", "open_stored", "write_trace"]
