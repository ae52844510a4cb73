"""Shared fixtures: small canonical traces built in memory, and the real CLI run in-process.

``access_pattern`` builds the accesses of a few well-known kernels (vector add,
strided copy, local-memory tile) in canonical row order; ``make_trace`` writes
one to disk in either layout; ``run_cli`` runs ``tracekit.cli.main`` exactly as
the console script does and returns exit code, stdout and stderr.  Keep these
general: many test modules use them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tracekit.trace import schema
from tracekit.trace.store import conform, write_trace

BUFFER_BASES = (0x10000, 0x20000, 0x30000)  # page-aligned bases of arguments 0, 1, 2


def _tile(local: int, groups: int, per_item: int):
    """group, item, seq arrays for ``groups`` x ``local`` items with ``per_item`` accesses each."""
    g = np.repeat(np.arange(groups, dtype=np.int64), local * per_item)
    i = np.tile(np.repeat(np.arange(local, dtype=np.int32), per_item), groups)
    s = np.tile(np.arange(per_item, dtype=np.int64), groups * local)
    return g, i, s


def access_pattern(pattern: str = "vector_add", *, global_size: int = 256, local_size: int = 64,
                   kernel: str | None = None, launch: int = 0, stride: int = 1,
                   elem: int = 4) -> pa.Table:
    """Canonical accesses of one launch of a small, well-known kernel.

    * ``vector_add``: per item load a[gid], load b[gid], store c[gid] (sites 0, 1, 2);
    * ``strided``: per item load in[gid * stride], store out[gid] (sites 0, 1);
    * ``local_tile``: per item load global in[gid], store local tile[lid], load local
      tile[local_size - 1 - lid], store global out[gid] (sites 0..3).
    """
    groups = global_size // local_size
    per_item = {"vector_add": 3, "strided": 2, "local_tile": 4}[pattern]
    g, i, s = _tile(local_size, groups, per_item)
    gid = (g * local_size + i).astype(np.uint64)
    n = len(g)
    site = s.astype(np.int32)
    if pattern == "vector_add":
        base = np.array(BUFFER_BASES, dtype=np.uint64)[s]
        address = base + gid * elem
        space = ["global"] * n
        op = np.where(s == 2, "store", "load")
        buffer = s.astype(np.int32)
    elif pattern == "strided":
        address = np.where(s == 0, BUFFER_BASES[0] + gid * elem * stride, BUFFER_BASES[1] + gid * elem)
        space = ["global"] * n
        op = np.where(s == 1, "store", "load")
        buffer = s.astype(np.int32)
    elif pattern == "local_tile":
        lid = i.astype(np.uint64)
        address = np.select(
            [s == 0, s == 1, s == 2, s == 3],
            [BUFFER_BASES[0] + gid * elem, lid * elem, (local_size - 1 - lid) * elem,
             BUFFER_BASES[1] + gid * elem]).astype(np.uint64)
        space = np.where((s == 1) | (s == 2), "local", "global")
        op = np.where((s == 1) | (s == 3), "store", "load")
        buffer = np.where((s == 1) | (s == 2), -1, np.where(s == 0, 0, 1)).astype(np.int32)
    else:
        raise ValueError(pattern)
    kernel = kernel or pattern
    buf = pa.array(buffer, pa.int32(), mask=buffer < 0)
    return conform(pa.table({
        "kernel": _codes(np.full(n, kernel)), "launch": np.full(n, launch, np.int32), "group": g, "item": i,
        "site": site, "seq": s, "space": _codes(np.asarray(space)), "op": _codes(np.asarray(op)),
        "address": address.astype(np.uint64), "size": np.full(n, elem, np.uint16), "buffer": buf,
    }), "accesses")


def _codes(values: np.ndarray) -> pa.DictionaryArray:
    """Dictionary-encode a NumPy string array (Arrow does it in C, no Python objects per row)."""
    return pa.array(values).dictionary_encode()


def _distinct(table: pa.Table, keys: list[str]) -> list[tuple]:
    """Distinct key tuples of ``table``, sorted (computed by Arrow, fast on big tables)."""
    t = pa.table({k: table[k].cast(pa.string()) if pa.types.is_dictionary(table[k].type) else table[k]
                  for k in keys}).group_by(keys).aggregate([])
    return sorted(zip(*(t[k].to_pylist() for k in keys), strict=True))


def launches_for(accesses: pa.Table, *, global_size: int, local_size: int, metadata: dict | None = None):
    """A launches table with one row per (launch, kernel) in ``accesses`` (1-D sizes)."""
    pairs = _distinct(accesses, ["launch", "kernel"])
    return conform(pa.table({
        "kernel": [k for _, k in pairs], "launch": pa.array([lid for lid, _ in pairs], pa.int32()),
        "global_size": [[global_size, 1, 1]] * len(pairs), "local_size": [[local_size, 1, 1]] * len(pairs),
        "local_mem_bytes": [0] * len(pairs),
        "metadata": [json.dumps(metadata or {"layout": {"alignment": 4096}})] * len(pairs),
    }), "launches")


def sites_for(accesses: pa.Table, file: str = "kernel.cl") -> pa.Table:
    """A sites table naming every (kernel, site) used, on lines 10, 11, ..."""
    pairs = _distinct(accesses, ["kernel", "site"])
    return conform(pa.table({
        "kernel": [k for k, _ in pairs], "site": pa.array([s for _, s in pairs], pa.int32()),
        "opcode": ["load"] * len(pairs), "file": [file] * len(pairs),
        "line": pa.array([10 + s for _, s in pairs], pa.int32()),
        "column": pa.array([1] * len(pairs), pa.int32()),
    }), "sites")


@pytest.fixture
def make_trace(tmp_path):
    """Factory: write a small canonical trace and return its path.

    ``make_trace("strided", stride=8, layout="parquet")``; any keyword of
    :func:`access_pattern` is accepted, plus ``layout``, ``name``, ``sites`` (bool)
    and ``accesses`` (a ready table to write instead of a pattern).
    """
    def factory(pattern: str = "vector_add", *, layout: str = "tkt", name: str | None = None,
                sites: bool = True, accesses: pa.Table | None = None, global_size: int = 256,
                local_size: int = 64, **kw) -> Path:
        acc = accesses if accesses is not None else access_pattern(
            pattern, global_size=global_size, local_size=local_size, **kw)
        path = tmp_path / f"{name or pattern}.{layout}"
        write_trace(path, acc, launches=launches_for(acc, global_size=global_size, local_size=local_size),
                    sites=sites_for(acc) if sites else None, layout=layout)
        return path
    return factory


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        """stdout + stderr with runs of whitespace collapsed, for message checks."""
        return " ".join((self.out + "\n" + self.err).split())


@pytest.fixture
def run_cli(capsys, monkeypatch):
    """Run ``tracekit ARGS...`` in-process through the console entry point."""
    from tracekit.cli import main

    # A wide, fixed terminal for rich, so messages are never folded inside a path.
    monkeypatch.setenv("COLUMNS", "1000")

    def run(*args) -> CliResult:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        cap = capsys.readouterr()
        return CliResult(code, cap.out, cap.err)
    return run


@pytest.fixture
def write_csv(tmp_path):
    """Factory: write text (or bytes) to ``tmp_path/name`` and return the path."""
    def factory(name: str, content: str | bytes) -> Path:
        p = tmp_path / name
        p.write_bytes(content if isinstance(content, bytes) else content.encode())
        return p
    return factory


def canonical_schema() -> pa.Schema:
    return schema.ACCESSES
