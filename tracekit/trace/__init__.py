"""Trace format v1: its schema, how it is stored and read, validated, partitioned and summarised.

The bottom layer of tracekit: nothing here imports the models, the report or the
command line.  :class:`Trace` is one trace (read lazily, table by table);
:func:`tracekit.open_trace` opens any input, converting other tools' exports
through :mod:`tracekit.formats`.  The names below are imported on first use, so
importing one submodule (the vocabulary, say) does not load pyarrow and pandas.
"""

from __future__ import annotations

#: Public name -> module that defines it (imported when first asked for).
_LAZY = {"Trace": "tracekit.trace.reader", "open_stored": "tracekit.trace.reader",
         "TraceWriter": "tracekit.trace.store", "write_trace": "tracekit.trace.store"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tracekit.trace' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = ["Trace", "TraceWriter", "open_stored", "write_trace"]
