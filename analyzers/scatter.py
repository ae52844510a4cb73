"""Which sites scatter their requests: more memory units than their bytes need.

A request is coalesced when it touches as few units as its bytes allow.  Two units
matter: the **transaction** (what the memory pipeline moves per request, the
``transaction_bytes`` of a target) and the **unit of the first data cache** (its sector,
or its line when it has none), which is what each request asks the cache for.  Most
targets make them equal.  Where the cache unit is coarser (Adreno: 16-byte
transactions, 64-byte L2 lines), a wave whose rows of 16 bytes each land in a different
line uses every byte of its transactions, yet asks for four times the lines a contiguous
wave would (adreno §7.6: each line a store touches is filled and written back whole),
so both counts are checked.

Two patterns exceed the ideal without being a scatter and are left out: contiguous runs
that straddle a boundary more than they need (a neighbour read such as ``a[i-1]``;
``misaligned_requests`` counts requests one transaction over, ``misaligned_cache_units``
the cache units beyond what each run would take if it started on a unit boundary, so
the rows of a 2-D work-group read one row each are not a scatter) and a request that
moves fewer bytes than its lanes ask for (lanes sharing an address, a broadcast).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def first_unit_bytes(target) -> int:
    """Bytes of the unit a request asks of the first data cache (sector, else line); the
    transaction size when the target has no cache."""
    caches = getattr(target, "caches", None)
    tx = int(target.transaction_bytes)
    if not caches:
        return tx
    c = caches[0]
    return max(tx, int(c.sector_bytes or c.line_bytes))


def _col(df: pd.DataFrame, name: str) -> np.ndarray:
    return df[name].fillna(0).to_numpy(dtype=float) if name in df else np.zeros(len(df))


def excess(df: pd.DataFrame, target) -> pd.DataFrame:
    """Per site: scattered units against the ideal, at transaction and cache-unit grain.

    Columns ``tx_scattered`` / ``tx_ideal`` (transactions less the misaligned extra, and the
    ideal) and ``unit_scattered`` / ``unit_ideal`` (the same in first-level cache units), with
    ``tx_wasteful`` / ``unit_wasteful``: the units move more bytes than the lanes asked for."""
    req = _col(df, "bytes_requested")
    unit = first_unit_bytes(target)
    units = _col(df, "cache_units")
    has_units = units > 0
    tx = _col(df, "transactions")
    return pd.DataFrame({
        "tx_scattered": tx - _col(df, "misaligned_requests"),
        "tx_ideal": _col(df, "ideal_transactions"),
        "tx_wasteful": _col(df, "bytes_moved") > req,
        "unit_scattered": np.where(has_units, units - _col(df, "misaligned_cache_units"), 0.0),
        "unit_ideal": np.where(has_units, _col(df, "ideal_cache_units"), 0.0),
        "unit_wasteful": has_units & (units * unit > req),
    }, index=df.index)


def scattered(df: pd.DataFrame, target, ratio: float) -> pd.Series:
    """True for sites whose requests take at least ``ratio`` times the ideal units, at either
    grain, and move bytes nobody asked for."""
    e = excess(df, target)
    by_tx = (e["tx_scattered"] >= ratio * e["tx_ideal"]) & (e["tx_ideal"] > 0) & e["tx_wasteful"]
    by_unit = (e["unit_scattered"] >= ratio * e["unit_ideal"]) & (e["unit_ideal"] > 0) & e["unit_wasteful"]
    return by_tx | by_unit


def saved_fraction(df: pd.DataFrame, target) -> pd.Series:
    """Per site: the share of its memory units a coalesced layout would not need (the larger
    of the two grains)."""
    e = excess(df, target)
    tx = _col(df, "transactions")
    units = _col(df, "cache_units")
    with np.errstate(invalid="ignore", divide="ignore"):
        by_tx = np.where(tx > 0, 1 - (e["tx_ideal"] + (tx - e["tx_scattered"])) / np.maximum(tx, 1), 0.0)
        by_unit = np.where(units > 0, 1 - (e["unit_ideal"] + (units - e["unit_scattered"]))
                           / np.maximum(units, 1), 0.0)
    return pd.Series(np.clip(np.maximum(by_tx, by_unit), 0.0, 1.0), index=df.index)
