"""Out-of-core sort of an accesses stream into canonical (launch, group, item, seq) order.

Exports from simulators list accesses in issue order (warp by warp, interleaved
across work-groups), while trace v1 stores them work-item by work-item.  The
stream is first spilled to a scratch Parquet file while counting rows per
(launch, group); the (launch, group) keys are then cut into buckets of at most
about ``budget_rows`` rows, and each bucket is gathered with one scan of the
scratch file, sorted in memory and written.  Memory is bounded by the bucket
size; the cost is one scan of the scratch file per bucket.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from tracekit.files import temporary_folder
from tracekit.trace import schema
from tracekit.trace.store import TraceWriter, conform

SORT_KEYS = [(c, "ascending") for c in ("launch", "group", "item", "seq")]


def write_sorted(tables: Iterable[pa.Table], writer: TraceWriter, scratch_dir: Path | None = None, *,
                 budget_rows: int = 4 << 20) -> int:
    """Write every row of ``tables`` to ``writer`` in canonical order; returns the row count.

    The scratch file lives in a temporary folder named after the writer's destination
    (in its folder), so a killed run's scratch is cleaned up like its other temporaries;
    ``scratch_dir`` puts it elsewhere.
    """
    tmp = (Path(tempfile.mkdtemp(prefix=".tracekit-sort-", dir=scratch_dir)) if scratch_dir is not None
           else temporary_folder(writer.path))
    try:
        scratch = tmp / "unsorted.parquet"
        counts = None
        with pq.ParquetWriter(scratch, schema.ACCESSES, compression="lz4") as pw:
            for t in tables:
                t = conform(t, "accesses")
                pw.write_table(t)
                c = pd.DataFrame({"launch": t["launch"].to_numpy(),
                                  "group": t["group"].to_numpy()}).value_counts()
                counts = c if counts is None else counts.add(c, fill_value=0)
        if counts is None:
            return 0
        total = 0
        pf = pq.ParquetFile(scratch)
        for lo, hi in buckets(counts.sort_index(), budget_rows):
            parts = [_select(pa.Table.from_batches([b]), lo, hi) for b in pf.iter_batches(batch_size=1 << 20)]
            part = pa.concat_tables(parts).sort_by(SORT_KEYS)
            writer.write_accesses(part)
            total += part.num_rows
        return total
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def buckets(counts: pd.Series, budget_rows: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Cut sorted (launch, group) row counts into inclusive key ranges of about ``budget_rows`` rows."""
    n = counts.to_numpy(np.int64)
    before = np.cumsum(n) - n
    bucket = before // max(budget_rows, 1)
    keys = counts.index
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    ends = np.r_[starts[1:] - 1, len(n) - 1]
    return [(tuple(map(int, keys[s])), tuple(map(int, keys[e]))) for s, e in zip(starts, ends, strict=True)]


def _select(t: pa.Table, lo: tuple[int, int], hi: tuple[int, int]) -> pa.Table:
    launch, group = t["launch"].to_numpy(), t["group"].to_numpy()
    after = (launch > lo[0]) | ((launch == lo[0]) & (group >= lo[1]))
    before = (launch < hi[0]) | ((launch == hi[0]) & (group <= hi[1]))
    return t.filter(pa.array(after & before))
