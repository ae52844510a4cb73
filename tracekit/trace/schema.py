"""Trace format v1: the Arrow schemas every reader and analyzer relies on.

docs/trace-format.md is the prose version of this module; keep them in step.
A trace has four tables and an optional fifth:

* ``accesses``: one row per memory access of one work-item (the big one);
* ``instructions``: executed-instruction counts per (work-item, site, opclass),
  optionally as runs over consecutive work-items with equal counts (``items``);
* ``launches``: one row per kernel launch (sizes, build options, metadata);
* ``sites``: one row per static instruction (source file, line, column);
* ``machine_code`` (optional): Intel machine code of the kernels, built offline
  per device (SIMD width, registers, scratch, the labelled listing).

Canonical row order of ``accesses`` is (launch, group, item, seq): the order in
which one work-item issued its accesses, work-item by work-item.  Analyzers that
need wave order re-sort; keeping the stored order simple makes it compress well
and makes writers (recorder, ingest) easy to check.
"""

from __future__ import annotations

import pyarrow as pa

from tracekit.trace.arrow_numpy import empty_table

# The words of the format live in tracekit.trace.vocabulary (no pyarrow); re-exported here.
from tracekit.trace.vocabulary import (  # noqa: F401
    CHANNEL_ORDERS,
    CHANNEL_TYPES,
    OPCLASSES,
    OPS,
    ROLES,
    SAMPLER_ADDRESSING,
    SAMPLER_FILTERS,
    SPACES,
    is_opclass,
)

FORMAT_VERSION = 1

_DICT_STR = pa.dictionary(pa.int32(), pa.string())

ACCESSES = pa.schema([
    pa.field("kernel", _DICT_STR, nullable=False),
    pa.field("launch", pa.int32(), nullable=False),
    pa.field("group", pa.int64(), nullable=False),
    pa.field("item", pa.int32(), nullable=False),
    pa.field("site", pa.int32(), nullable=False),
    pa.field("seq", pa.int64(), nullable=False),
    pa.field("space", _DICT_STR, nullable=False),
    pa.field("op", _DICT_STR, nullable=False),
    pa.field("address", pa.uint64(), nullable=False),
    pa.field("size", pa.uint16(), nullable=False),
    pa.field("buffer", pa.int32(), nullable=True),
    # which issue of its site by the wave the access belongs to: the trip counts of the loops
    # around the site (outermost first, packed into 63 bits), equal in every lane that runs the
    # same loop iteration; null where not recorded (requests then pair each lane's k-th access)
    pa.field("issue", pa.int64(), nullable=True),
])
#: Columns an accesses table must have; ``buffer`` and ``issue`` are optional.
ACCESS_REQUIRED = tuple(f.name for f in ACCESSES if f.name not in ("buffer", "issue"))

#: Optional columns of ``accesses`` for ``image`` rows (read_image*/write_image*): which texel
#: was read or written, the image's channel format, and the sampler of a read.  Null on every
#: other row, and on an image write's sampler columns.  A trace without image accesses need
#: not have them; readers add them as nulls.
IMAGE_FIELDS = (
    pa.field("texel_x", pa.int32(), nullable=True),
    pa.field("texel_y", pa.int32(), nullable=True),
    pa.field("texel_z", pa.int32(), nullable=True),
    pa.field("image_format", _DICT_STR, nullable=True),
    pa.field("sampler_addressing", _DICT_STR, nullable=True),
    pa.field("sampler_filter", _DICT_STR, nullable=True),
    pa.field("sampler_normalized", pa.bool_(), nullable=True),
)
IMAGE_COLUMNS = tuple(f.name for f in IMAGE_FIELDS)
#: ``accesses`` with the image columns: the schema of a trace that has them.
ACCESSES_WITH_IMAGES = pa.schema(list(ACCESSES) + list(IMAGE_FIELDS))


def accesses_schema(names) -> pa.Schema:
    """The accesses schema for a table with these column names: with the image columns
    when it has any of them, the plain v1 columns otherwise."""
    return ACCESSES_WITH_IMAGES if any(n in IMAGE_COLUMNS for n in names) else ACCESSES

INSTRUCTIONS = pa.schema([
    pa.field("kernel", _DICT_STR, nullable=False),
    pa.field("launch", pa.int32(), nullable=False),
    pa.field("group", pa.int64(), nullable=False),
    pa.field("item", pa.int32(), nullable=False),
    pa.field("site", pa.int32(), nullable=False),
    pa.field("opclass", _DICT_STR, nullable=False),
    pa.field("count", pa.int64(), nullable=False),
    # a run: this row stands for ``items`` consecutive work-items from ``item`` on,
    # each with the same count at the site; null (or no column) means one
    pa.field("items", pa.int32(), nullable=True),
])

_DIM3 = pa.list_(pa.int64(), 3)
LAUNCHES = pa.schema([
    pa.field("kernel", pa.string(), nullable=False),
    pa.field("launch", pa.int32(), nullable=False),
    pa.field("global_size", _DIM3, nullable=False),
    pa.field("local_size", _DIM3, nullable=False),
    pa.field("local_mem_bytes", pa.int64(), nullable=False),
    pa.field("build_options", pa.string(), nullable=True),
    pa.field("device", pa.string(), nullable=True),
    pa.field("source", pa.string(), nullable=True),
    pa.field("registers_per_item", pa.int32(), nullable=True),
    # JSON object: address layout, work-group sampling, recorder status, notes.
    pa.field("metadata", pa.string(), nullable=True),
])

SITES = pa.schema([
    pa.field("kernel", pa.string(), nullable=False),
    pa.field("site", pa.int32(), nullable=False),
    pa.field("opcode", pa.string(), nullable=True),
    pa.field("file", pa.string(), nullable=True),
    pa.field("line", pa.int32(), nullable=True),
    pa.field("column", pa.int32(), nullable=True),
    # what the instruction is for (tracekit/recorder/roles.h): "address" (only feeds
    # addresses), "indirect" (address arithmetic on a loaded value), "loop" (loop
    # control), null (the kernel's work, or not known)
    pa.field("role", pa.string(), nullable=True),
    # instructions of the site's class on its source line after an optimizing (LLVM O3)
    # compile of the kernel (tracekit/recorder/compiled.h): 0 where the compile removed them
    pa.field("compiled", pa.int32(), nullable=True),
    # what one execution adds to the site's ``instructions`` count: its vector lanes for
    # arithmetic, 1 for memory instructions and image calls (tracekit/recorder/convert.py)
    pa.field("lanes", pa.int32(), nullable=True),
    # the sites whose results the instruction takes as operands (same kernel, same function):
    # the data-flow graph that analyzers/dataflow.py slices
    pa.field("operands", pa.list_(pa.int32()), nullable=True),
])

#: One machine instruction of a kernel built offline for one device (tracekit/isa/).
MACHINE_INSTRUCTION = pa.struct([
    pa.field("pc", pa.int32()), pa.field("block", pa.int32()), pa.field("op", pa.string()),
    pa.field("function", pa.string()), pa.field("exec_size", pa.int16()),
    pa.field("channel_offset", pa.int16()), pa.field("write_enable", pa.bool_()),
    pa.field("dst_type", pa.string()), pa.field("group", pa.string()), pa.field("opclass", pa.string()),
    pa.field("send_kind", pa.string()), pa.field("bti", pa.int16()), pa.field("bytes_read", pa.int32()),
    pa.field("bytes_written", pa.int32()), pa.field("weight", pa.float32()), pa.field("file", pa.string()),
    pa.field("line", pa.int32()), pa.field("column", pa.int32()), pa.field("text", pa.string()),
])

#: Optional: one row per (device, kernel, build options) built with Intel's offline compiler.
MACHINE_CODE = pa.schema([
    pa.field("device", pa.string(), nullable=False),
    pa.field("target", pa.string(), nullable=True),
    pa.field("kernel", pa.string(), nullable=False),
    pa.field("build_options", pa.string(), nullable=True),
    pa.field("compiler", pa.string(), nullable=True),
    pa.field("simd_width", pa.int32(), nullable=False),
    pa.field("grf_count", pa.int32(), nullable=False),
    pa.field("grf_used", pa.int32(), nullable=True),
    pa.field("slm_bytes", pa.int64(), nullable=True),
    pa.field("barrier_count", pa.int32(), nullable=True),
    pa.field("scratch_bytes", pa.int64(), nullable=False),
    pa.field("private_memory", pa.bool_(), nullable=True),
    pa.field("line_mapping", pa.string(), nullable=False),
    pa.field("instructions", pa.list_(MACHINE_INSTRUCTION), nullable=False),
])

TABLES = {
    "accesses": ACCESSES,
    "instructions": INSTRUCTIONS,
    "launches": LAUNCHES,
    "sites": SITES,
    "machine_code": MACHINE_CODE,
}


def empty(table: str) -> pa.Table:
    """An empty table of the given kind, with the canonical schema."""
    return empty_table(TABLES[table])
