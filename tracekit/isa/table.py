"""The trace's optional ``machine_code`` table <-> :class:`~tracekit.isa.kernel.KernelISA`.

One row per kernel built for one device with one set of build options; the
listing is a nested list column (one struct per instruction), so a whole
compiled kernel is one row and a trace without Intel targets carries nothing.
"""

from __future__ import annotations

import pyarrow as pa

from tracekit.isa.kernel import INSTRUCTION_COLUMNS, KernelISA
from tracekit.trace import schema
from tracekit.trace.arrow_numpy import empty_table, from_numpy, table_from_rows

_SCALARS = ("device", "target", "kernel", "build_options", "compiler", "simd_width", "grf_count", "grf_used",
            "slm_bytes", "barrier_count", "scratch_bytes", "private_memory", "line_mapping")


def to_table(kernels: list[KernelISA]) -> pa.Table:
    """A ``machine_code`` table (schema :data:`tracekit.trace.schema.MACHINE_CODE`) of ``kernels``."""
    rows = []
    for k in kernels:
        row = {name: getattr(k, name) for name in _SCALARS}
        row["build_options"] = k.build_options or None
        row["instructions"] = [{c: r.get(c) for c in INSTRUCTION_COLUMNS} for r in k.listing]
        rows.append(row)
    if not rows:
        return empty_table(schema.MACHINE_CODE)
    return table_from_rows(rows, schema.MACHINE_CODE)


def from_table(table: pa.Table) -> list[KernelISA]:
    """The kernels a ``machine_code`` table holds."""
    out = []
    for row in table.to_pylist():
        args = {name: row[name] for name in _SCALARS}
        args["build_options"] = args["build_options"] or ""
        out.append(KernelISA(listing=row["instructions"] or [], **args))
    return out


def merge(old: pa.Table, new: pa.Table) -> pa.Table:
    """``new`` rows, plus the ``old`` rows whose (device, kernel, build options) ``new`` lacks."""
    if old.num_rows == 0:
        return new
    key = {(r["device"], r["kernel"], r["build_options"] or "")
           for r in new.select(["device", "kernel", "build_options"]).to_pylist()}
    keep = [i for i, r in enumerate(old.select(["device", "kernel", "build_options"]).to_pylist())
            if (r["device"], r["kernel"], r["build_options"] or "") not in key]
    return pa.concat_tables([old.take(from_numpy(keep, pa.int64())), new]) if keep else new
