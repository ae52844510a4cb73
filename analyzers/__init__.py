"""Performance models that replay a trace on a target GPU.

Each module is one model and a set of pure functions over Arrow/NumPy/pandas
data, importable from a notebook without the CLI.  The entry point is
:func:`analyze` (every model on every launch of a trace, for one target)::

    from analyzers import analyze
    result = analyze("sample_traces/vector_add.tkt", "powervr-g6400")
    result.summary          # one row per launch: verdict, times, utilisation, occupancy
    result.per_site         # per-site memory, ALU and SIMD columns
    result.to_dict()        # the JSON of ``tracekit analyze`` for this target
    what_if(trace, "powervr-g6400", "pad-local=64:4")   # the launch before and after a fix
"""

from __future__ import annotations

# The function shadows its module's name on purpose: ``from analyzers import analyze``
# gives the function; the module stays reachable as ``sys.modules["analyzers.analyze"]``.
from analyzers.analyze import AnalysisResult, LaunchResult, analyze, analyze_many
from analyzers.jit_cache import install as _best_effort_jit_cache

_best_effort_jit_cache()  # kernels compile at their first call: a full disk must not end an analysis


def what_if(trace, target, change, **options):
    """Each launch before and after a fix, replayed through the same model
    (:func:`analyzers.whatif.what_if`; ``change`` such as ``"pad-local=64:4"``)."""
    from analyzers.whatif import what_if as run
    return run(trace, target, change, **options)


__all__ = ["AnalysisResult", "LaunchResult", "analyze", "analyze_many", "what_if"]
