"""Writing a trace partitioned by launch (the layout :mod:`tracekit.trace.partition` reads).

One Parquet file per launch and table, so a Dask worker that analyses a launch
opens only that launch's bytes.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from tracekit.files import output_error, refuse_overwriting_inputs, replace_entry
from tracekit.trace import schema, store
from tracekit.trace.reader import Trace


def write_partitioned(src, dst: str | os.PathLike, *, batch_rows: int = 1 << 20) -> Path:
    """Copy the trace ``src`` (a path or a Trace) to ``dst`` partitioned by launch; returns ``dst``.

    Streams: at most one batch per table is in memory, plus one open writer per
    launch seen so far.  Like every writer here it works under a temporary name
    and renames into place only when complete.
    """
    trace = src if isinstance(src, Trace) else Trace(src)
    dst = Path(dst)
    refuse_overwriting_inputs(dst, [trace.path])
    tmp = store.temporary_beside(dst)
    writers: dict[tuple[str, int], pq.ParquetWriter] = {}
    rows = {"accesses": 0, "instructions": 0}
    try:
        for kind in ("accesses", "instructions"):
            target = schema.TABLES[kind]
            (tmp / kind).mkdir()
            for batch in trace.iter_batches(kind, batch_size=batch_rows, runs=True):  # runs stay runs
                t = store.conform(batch, kind)
                launch = t.column("launch")
                values = pc.unique(launch).to_pylist()
                for value in values:
                    part = t if len(values) == 1 else t.filter(pc.equal(launch, value))
                    w = writers.get((kind, value))
                    if w is None:
                        d = tmp / kind / f"launch={value}"
                        d.mkdir()
                        schema_ = t.schema if kind == "accesses" else target  # image columns kept
                        w = writers[(kind, value)] = pq.ParquetWriter(
                            d / "part-0.parquet", schema_, **store._parquet_options(schema_))
                    w.write_table(part, row_group_size=batch_rows)
                rows[kind] += t.num_rows
        for w in writers.values():
            w.close()
        writers.clear()
        for kind in ("launches", "sites"):
            t = getattr(trace, kind)
            pq.write_table(t, tmp / f"{kind}.parquet", **store._parquet_options(t.schema))
        (tmp / store.MANIFEST).write_text(json.dumps(
            {"format": "tracekit-trace", "version": schema.FORMAT_VERSION, "layout": "partitioned",
             "partition_by": "launch", "rows": rows}, indent=1) + "\n")
        replace_entry(tmp, dst, folder=True)
    except BaseException as exc:
        for w in writers.values():
            try:
                w.close()
            except Exception:  # noqa: BLE001 - best effort while unwinding
                pass
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):  # the disk refused a write: full, read-only, size limit
            raise output_error(dst, exc) from None
        raise
    return dst
