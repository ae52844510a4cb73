"""Damaged copies of a valid trace, through the command line: every one ends in exit 0 or 2.

A small valid trace is written in both layouts (one ``.parquet`` file; a ``.tkt``
directory of four Parquet files) and damaged three ways:

* truncated: cut to nothing, to the magic bytes, before the footer length, one byte
  short, and at seeded random points;
* bytes flipped inside each page (every column chunk's dictionary page and data
  pages, and the footer), the page offsets read from the file's own metadata;
* column types swapped: a column stored as another type (text for numbers, numbers
  for text, negative or empty values, lists), as another tool might write it.

Each variant goes through ``validate``, ``info`` and ``analyze``: exit 0 (the damage
did not touch what the command reads, or decoded to usable values) or exit 2 (a
message), never a traceback or a hang.  All variants are generated; a seeded sample
runs (``TRACEKIT_FUZZ_SAMPLES``, ``TRACEKIT_FUZZ_SEED`` widen or move it).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from conftest import access_pattern, launches_for, sites_for

from tracekit.trace.store import conform, write_trace

SEED = int(os.environ.get("TRACEKIT_FUZZ_SEED", "14"))
SAMPLES = int(os.environ.get("TRACEKIT_FUZZ_SAMPLES", "30"))
TABLES = ("accesses", "instructions", "launches", "sites")
COMMANDS = (["validate"], ["info"], ["analyze", "-t", "intel-hd530", "-f", "json"])


def _instructions(acc: pa.Table) -> pa.Table:
    """One instruction row per (work-item, site): the access itself, plus one fp32 op per item."""
    n = acc.num_rows
    mem = {"kernel": acc["kernel"], "launch": acc["launch"], "group": acc["group"], "item": acc["item"],
           "site": acc["site"], "opclass": acc["op"], "count": pa.array(np.ones(n, np.int64))}
    first = pc.equal(acc["seq"], 0)
    alu = acc.filter(first)
    ops = {"kernel": alu["kernel"], "launch": alu["launch"], "group": alu["group"], "item": alu["item"],
           "site": pa.array(np.full(alu.num_rows, 9, np.int32)),
           "opclass": pa.array(["fp32_fma"] * alu.num_rows).dictionary_encode(),
           "count": pa.array(np.full(alu.num_rows, 4, np.int64))}
    table = pa.concat_tables([conform(pa.table(mem), "instructions"), conform(pa.table(ops), "instructions")])
    return table.sort_by([("launch", "ascending"), ("group", "ascending"), ("item", "ascending"),
                          ("site", "ascending")])


@pytest.fixture(scope="module")
def originals(tmp_path_factory) -> dict[str, Path]:
    """The valid trace in both layouts (two work-groups of a local-memory tile kernel)."""
    root = tmp_path_factory.mktemp("fuzz-originals")
    acc = access_pattern("local_tile", global_size=128, local_size=64)
    tables = dict(instructions=_instructions(acc), launches=launches_for(acc, global_size=128, local_size=64),
                  sites=sites_for(acc))
    return {layout: write_trace(root / f"tile.{layout}", acc, layout=layout, **tables)
            for layout in ("parquet", "tkt")}


@dataclass
class Variant:
    name: str
    layout: str
    table: str            # which stored file is damaged ("accesses" for the single file)
    damage: Callable[[Path], None]


def _files(layout: str) -> list[str]:
    return ["accesses"] if layout == "parquet" else list(TABLES)


def _stored(trace: Path, layout: str, table: str) -> Path:
    return trace if layout == "parquet" else trace / f"{table}.parquet"


def _flip(offset: int, count: int, mask: int) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        data = bytearray(path.read_bytes())
        for i in range(offset, min(offset + count, len(data))):
            data[i] ^= mask
        path.write_bytes(bytes(data))
    return damage


def _cut(size: int) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        path.write_bytes(path.read_bytes()[:size])
    return damage


def page_regions(path: Path) -> list[tuple[str, int, int]]:
    """(name, start, end) of every page run in the file: per column chunk its dictionary page and
    its data pages, from the column-chunk metadata, then the footer."""
    md = pq.ParquetFile(path).metadata
    out = []
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            col = md.row_group(g).column(c)
            name, dictionary, data = col.path_in_schema, col.dictionary_page_offset, col.data_page_offset
            start = data if dictionary is None else dictionary
            if dictionary is not None:
                out.append((f"{name} dictionary page", dictionary, data))
            out.append((f"{name} data pages", data, start + col.total_compressed_size))
    size = path.stat().st_size
    out.append(("footer", size - 8 - md.serialized_size, size - 8))
    return out


def _retype(table: str, column: str, make: Callable[[pa.Array], pa.Array]) -> Callable[[Path], None]:
    """Rewrite one stored table with ``column`` replaced (its type changed), as another writer might."""
    def damage(path: Path) -> None:
        pf = pq.ParquetFile(path)
        t = pf.read()
        i = t.schema.get_field_index(column)
        t = t.set_column(i, column, make(t.column(i).combine_chunks()))
        meta = pf.metadata.metadata  # a single file keeps its small tables here
        pq.write_table(t.replace_schema_metadata({**(t.schema.metadata or {}), **(meta or {})}), path)
    return damage


def _plain(a: pa.Array) -> pa.Array:
    return a.cast(a.type.value_type) if pa.types.is_dictionary(a.type) else a


#: (table, column, how) -> the replacement column.
RETYPES = {
    ("accesses", "address", "text"): lambda a: _plain(a).cast(pa.string()),
    ("accesses", "address", "words"): lambda a: pa.array(["0x10 and more"] * len(a)),
    ("accesses", "group", "float"): lambda a: pc.add(_plain(a).cast(pa.float64()), 0.5),
    ("accesses", "site", "negative"): lambda a: pc.negate(_plain(a).cast(pa.int64())),
    ("accesses", "item", "int8 wrapped"): lambda a: pc.cast(pc.add(_plain(a), 100),
                                                                     pa.int8(), safe=False),
    ("accesses", "space", "numbers"): lambda a: pa.array(np.arange(len(a)) % 7),
    ("accesses", "op", "booleans"): lambda a: pa.array(np.ones(len(a), bool)),
    ("accesses", "kernel", "empty"): lambda a: pa.nulls(len(a), pa.string()),
    ("accesses", "launch", "lists"): lambda a: pa.array([[0, 1]] * len(a)),
    ("accesses", "size", "bytes"): lambda a: pa.array([b"\xff\xfe"] * len(a), pa.binary()),
    ("instructions", "items", "zero"): lambda a: pa.array(np.zeros(len(a), np.int32)),
    ("instructions", "opclass", "lists"): lambda a: pa.array([[1]] * len(a)),
    ("instructions", "count", "text"): lambda a: pa.array(["many"] * len(a)),
    ("launches", "global_size", "text"): lambda a: pa.array(["128,1,1"] * len(a)),
    ("launches", "local_size", "zeros"): lambda a: pa.array([[0, 0, 0]] * len(a), pa.list_(pa.int64())),
    ("launches", "metadata", "numbers"): lambda a: pa.array(np.arange(len(a))),
    ("sites", "line", "text"): lambda a: pa.array(["ten"] * len(a)),
    ("sites", "kernel", "numbers"): lambda a: pa.array(np.zeros(len(a), np.int64)),
}


def all_variants(originals: dict[str, Path], rng: random.Random) -> list[Variant]:
    out = []
    for layout, trace in originals.items():
        for table in _files(layout):
            path = _stored(trace, layout, table)
            for region, lo, hi in page_regions(path):
                at = rng.randrange(lo, hi)
                out.append(Variant(f"{layout} {table}: {region} flipped at byte {at}", layout, table,
                                   _flip(at, rng.choice((1, 1, 2, 4)), rng.choice((0xFF, 0x01, 0x80, 0x5A)))))
            size = path.stat().st_size
            cuts = {0, 4, size - 8, size - 1, rng.randrange(8, size - 8), rng.randrange(8, size - 8)}
            for cut in sorted(cuts):
                out.append(Variant(f"{layout} {table}: cut to {cut} of {size} bytes", layout, table,
                                   _cut(cut)))
        for (table, column, how), make in RETYPES.items():
            if table in _files(layout):
                out.append(Variant(f"{layout} {table}: column {column} as {how}", layout, table,
                                   _retype(table, column, make)))
    return out


def sample(variants: list[Variant], rng: random.Random, n: int) -> list[Variant]:
    """A seeded sample with every kind of damage and both layouts in it."""
    kinds = {"flipped": [], "cut to": [], "column": []}
    for v in variants:
        kinds[next(k for k in kinds if k in v.name)].append(v)
    per = max(1, n // len(kinds))
    picked = [v for group in kinds.values() for v in rng.sample(group, min(per, len(group)))]
    return picked


@pytest.fixture
def no_hang():
    def alarm(signum, frame):
        raise TimeoutError("the command blocked for 30 s")
    old = signal.signal(signal.SIGALRM, alarm)
    yield lambda: signal.alarm(30)
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def test_variants_cover_every_page_and_kind(originals):
    variants = all_variants(originals, random.Random(SEED))
    names = " | ".join(v.name for v in variants)
    for layout in ("parquet", "tkt"):
        md = pq.ParquetFile(_stored(originals[layout], layout, "accesses")).metadata
        for c in range(md.num_columns):  # every column chunk of the big table has its pages damaged
            assert f"{layout} accesses: {md.row_group(0).column(c).path_in_schema} data pages" in names
    assert "tkt launches: footer" in names and "parquet accesses: cut to 0 of" in names
    assert "tkt instructions: column items as zero" in names
    picked = sample(variants, random.Random(SEED), SAMPLES)
    assert {v.layout for v in picked} == {"parquet", "tkt"}


def test_damaged_variants_end_in_a_message_or_a_result(run_cli, originals, tmp_path, no_hang):
    rng = random.Random(SEED)
    variants = sample(all_variants(originals, rng), rng, SAMPLES)
    failures, codes = [], {0: 0, 2: 0}
    for k, v in enumerate(variants):
        trace = tmp_path / f"v{k}" / originals[v.layout].name
        trace.parent.mkdir()
        (shutil.copytree if v.layout == "tkt" else shutil.copy)(originals[v.layout], trace)
        v.damage(_stored(trace, v.layout, v.table))
        for command in COMMANDS:
            no_hang()
            try:
                r = run_cli(command[0], trace, *command[1:])
            except BaseException as exc:  # noqa: BLE001 - collected, so one run reports every failure
                failures.append(f"{v.name} | {command[0]}: {type(exc).__name__}: {exc}")
                continue
            if r.code not in (0, 2) or "Traceback" in r.text:
                failures.append(f"{v.name} | {command[0]}: exit {r.code}: {r.err.strip()[-300:]}")
            elif r.code == 2:
                assert str(trace) in r.text, f"{v.name} | {command[0]}: the message names no file: {r.text}"
            codes[r.code] = codes.get(r.code, 0) + 1
    assert not failures, "\n".join(failures)
    assert codes[2] > 0  # the damage is seen, not only survived
