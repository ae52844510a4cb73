"""Turning the plugin's stream into trace v1 tables, in one streaming pass.

Group blocks are collected until about 128K rows are pending, then
converted together with numpy (device addresses, per-item ``seq``, dictionary
columns) and handed to :class:`~tracekit.trace.store.TraceWriter`.  The plugin
already writes groups in increasing index and accesses item by item, so no
sorting is needed: the output is in canonical (launch, group, item, seq) order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from tracekit.recorder import stream
from tracekit.recorder.convert_images import ImageColumns, image_arguments, image_call_lanes
from tracekit.recorder.layout import DeviceLayout
from tracekit.trace import footprint, schema
from tracekit.trace.arrow_numpy import array, from_numpy, strings, table_from_rows
from tracekit.trace.store import TraceWriter

#: Classes whose instruction moves a whole vector at once: one memory instruction (one message)
#: whatever the width, where vector arithmetic is one operation per lane.
MEMORY_CLASSES = frozenset({"load", "store", "atomic"})

#: The plugin's space and op codes (stream.h) are positions in these lists, so an
#: access's ``kind`` byte holds both dictionary indices (tests/test_record.py checks).
_SPACES = strings(schema.SPACES)
_OPS = strings(schema.OPS)
_CHUNK_ROWS = 1 << 17
MAX_DIAGNOSTICS = 50


def execution_lanes(opcodes: list, opclasses: list, lanes: list) -> np.ndarray:
    """Per site, the count each execution adds to ``instructions``: the vector lanes of arithmetic
    (a float4 multiply is four multiplies on these GPUs' scalar lanes), but 1 for a memory
    instruction, however wide (a float4 load is one load message and one round trip to memory),
    and for an image built-in (:func:`image_call_lanes`)."""
    out = image_call_lanes(opcodes, lanes)
    memory = np.array([c in MEMORY_CLASSES for c in opclasses], dtype=bool)
    out[memory] = 1
    return out


@dataclass
class LaunchState:
    """What the converter knows about one launch while its groups stream in."""

    launch: int
    kernel: str
    info: dict
    # Oclgrind buffer number -> base address and kernel argument index (-1: none), with one
    # extra last slot (base 0, no argument) for every buffer the layout does not know
    base_slots: np.ndarray
    arg_slots: np.ndarray
    site_opclass: np.ndarray     # site -> index into opclasses
    site_lanes: np.ndarray
    opclasses: pa.Array
    layout: dict
    vector_sites: bool = False
    images: ImageColumns | None = None  # the launch's image arguments, if it has any
    kernel_dictionary: pa.Array | None = None
    end: dict | None = None
    #: What the whole grid touched, per buffer (sampled launches; the plugin's FOOTPRINT records)
    footprint: list[footprint.BufferFootprint] = field(default_factory=list)
    granule_bytes: int = 0
    diagnostics: list[str] = field(default_factory=list)
    errors: int = 0
    unmapped: int = 0
    #: Work-groups whose rows were converted: the recorded count of a launch that never
    #: reported its own (it did not finish).
    groups_seen: int = 0


class Converter:
    """Consumes stream records and writes them through a :class:`TraceWriter`."""

    def __init__(self, writer: TraceWriter, *, layout: DeviceLayout | None = None,
                 file_alias: dict[str, str] | None = None, device: str = "Oclgrind"):
        self.writer = writer
        self.layout = layout or DeviceLayout()
        self.file_alias = file_alias or {}
        self.device = device
        self.launches: list[LaunchState] = []
        self.current: LaunchState | None = None
        self._sites: dict[str, tuple] = {}       # kernel name -> site signature
        self._site_rows: list[pa.Table] = []
        self._blocks: list[stream.GroupBlock] = []
        self._pending = 0
        self._filled: dict[int, np.ndarray] = {}  # value -> an int32 array of it (constant columns)
        self._scratch = _Scratch()
        self.orphan_logs: list[str] = []

    # -- records ---------------------------------------------------------------
    def handle(self, rec: stream.Record) -> None:
        if rec.type == stream.GROUPS:
            block = stream.parse_groups(rec.payload)
            self._blocks.append(block)
            self._pending += len(block.offset) + len(block.count)
            if self._pending >= _CHUNK_ROWS:
                self.flush()
        elif rec.type == stream.ALLOC:
            handle, size, _flags = stream.parse_alloc(rec.payload)
            self.layout.allocate(handle, size)
        elif rec.type == stream.FREE:
            self.layout.free(stream.parse_free(rec.payload))
        elif rec.type == stream.LAUNCH_BEGIN:
            self.flush()
            self._begin(rec.launch, stream.parse_json(rec.payload))
        elif rec.type == stream.LAUNCH_END:
            self.flush()
            if self.current is not None:
                self.current.end = stream.parse_json(rec.payload)
                self.current = None
        elif rec.type == stream.FOOTPRINT:
            self._footprint(rec)
        elif rec.type == stream.LOG:
            level, text = stream.parse_log(rec.payload)
            target = self._launch(rec.launch)
            if target is None:
                self.orphan_logs.append(f"{level}: {text}")
            else:
                target.errors += level == "error"
                if len(target.diagnostics) < MAX_DIAGNOSTICS:
                    target.diagnostics.append(f"{level}: {text}")

    def _footprint(self, rec: stream.Record) -> None:
        """One buffer's whole-grid footprint, placed at the buffer's device address."""
        st = self._launch(rec.launch)
        handle, granule, read, written = stream.parse_footprint(rec.payload)
        alloc = self.layout.live.get(handle)
        if st is None or alloc is None:
            return  # a buffer the layout does not know has no device address to place it at
        arg = st.arg_slots[handle] if handle < len(st.arg_slots) - 1 else -1
        st.granule_bytes = granule
        st.footprint.append(footprint.BufferFootprint(alloc.base, alloc.size, read, written,
                                                      int(arg) if arg >= 0 else None))

    def _launch(self, launch: int) -> LaunchState | None:
        for s in reversed(self.launches):
            if s.launch == launch:
                return s
        return None

    def _begin(self, launch: int, info: dict) -> None:
        sites = info["sites"]
        lanes = execution_lanes(sites["opcode"], sites["opclass"], sites["lanes"])
        kernel = self._kernel_name(info["kernel"], sites, lanes)
        names = sorted({c for c in sites["opclass"] if c})  # "" marks uncounted sites
        lookup = {n: i for i, n in enumerate(names)}
        lookup[""] = 0
        arg_of: dict[int, tuple[int, str]] = {}
        for a in info["args"]:
            if "buffer" in a and a["buffer"] in self.layout.live:
                arg_of.setdefault(a["buffer"], (a["index"], a["name"]))
        base = np.append(self.layout.base_table(), np.uint64(0))  # the extra last slot
        args = np.full(len(base), -1, dtype=np.int32)
        for handle, (idx, _name) in arg_of.items():
            args[handle] = idx
        images = image_arguments(info["args"])
        state = LaunchState(
            launch=launch, kernel=kernel, info=info, base_slots=base, arg_slots=args,
            site_opclass=np.array([lookup[c] for c in sites["opclass"]], dtype=np.int32),
            site_lanes=lanes,
            opclasses=strings(names), layout=self.layout.describe(arg_of),
            vector_sites=bool((lanes != 1).any()),
            images=ImageColumns(images) if images else None,
            kernel_dictionary=strings([kernel]))
        self.launches.append(state)
        self.current = state

    def _kernel_name(self, name: str, sites: dict, lanes: np.ndarray) -> str:
        """The kernel's name, suffixed when another program reused it for other code."""
        sig = (tuple(sites["opcode"]), tuple(sites["line"]))
        candidate, n = name, 1
        while candidate in self._sites and self._sites[candidate] != sig:
            n += 1
            candidate = f"{name}#{n}"
        if candidate not in self._sites:
            self._sites[candidate] = sig
            files = [self.file_alias.get(f, f) if f is not None else None for f in sites["file"]]
            n = len(sites["opcode"])
            self._site_rows.append(pa.table({
                "kernel": strings([candidate] * n),
                "site": from_numpy(np.arange(n, dtype=np.int32)),
                "opcode": array(sites["opcode"], pa.string()),
                "file": array(files, pa.string()),
                "line": array(sites["line"], pa.int32()),
                "column": array(sites["column"], pa.int32()),
                "role": array([r or None for r in sites.get("role", [None] * n)], pa.string()),
                "compiled": array(sites.get("compiled", [None] * n), pa.int32()),
                "lanes": from_numpy(lanes.astype(np.int32)),
                "operands": array(sites.get("operands", [None] * n), pa.list_(pa.int32())),
            }))
        return candidate

    # -- vectorised conversion -------------------------------------------------
    def flush(self) -> None:
        """Convert and write the pending group blocks of the current launch.

        Each block is converted on its own and the batches go to the writer as one
        table (one row group): no block is copied into a concatenated array.
        """
        blocks, self._blocks, self._pending = self._blocks, [], 0
        st = self.current
        if not blocks or st is None:
            return
        out = self._scratch.start(sum(len(b.offset) for b in blocks))
        accesses, instructions = [], []
        for b in blocks:
            groups = b.groups.view(np.int64)
            st.groups_seen += len(groups)
            if len(b.offset):
                accesses.append(self._accesses(st, b, groups, out))
            if len(b.count):
                instructions.append(self._instructions(st, b, np.repeat(groups, b.ninss.view(np.int64))))
        if accesses:
            self.writer.write_accesses(pa.Table.from_batches(accesses))
        if instructions:
            self.writer.write_instructions(pa.Table.from_batches(instructions))

    @staticmethod
    def _dict(indices: np.ndarray, dictionary: pa.Array) -> pa.DictionaryArray:
        # the indices are built here from small lookup tables, so they are in range
        return pa.DictionaryArray.from_arrays(from_numpy(indices, pa.int32()), dictionary, safe=False)

    def _constant(self, value: int, n: int) -> np.ndarray:
        """``n`` int32 copies of ``value``, sliced from an array kept for the next block."""
        a = self._filled.get(value)
        if a is None or len(a) < n:
            if len(self._filled) >= 4:  # launch numbers come and go: keep a few
                self._filled.clear()
            a = self._filled[value] = np.full(max(n, _CHUNK_ROWS), value, dtype=np.int32)
        return a[:n]

    def _common(self, st: LaunchState, group: np.ndarray, item: np.ndarray, site: np.ndarray) -> dict:
        n = len(group)
        return {
            "kernel": self._dict(self._constant(0, n), st.kernel_dictionary),
            "launch": from_numpy(self._constant(st.launch, n)),
            "group": from_numpy(group),
            "item": from_numpy(item.view(np.int32)),
            # the plugin's "no site" (0xFFFFFFFF) reads as -1
            "site": from_numpy(site.view(np.int32)),
        }

    def _accesses(self, st: LaunchState, b: stream.GroupBlock, groups: np.ndarray,
                  out: _Scratch) -> pa.RecordBatch:
        """One block's access rows; computed columns go into this chunk's scratch arrays."""
        offset, item, site, buf, size, kind = b.offset, b.item, b.site, b.buffer, b.size, b.kind
        n = len(offset)
        group = out.take("group", np.int64, n)
        repeat_into(group, groups, b.naccs.view(np.int64))
        # One lookup places every access: buffers the layout knows get their base and
        # argument, everything else (local/private in their layouts, unknown
        # buffers) lands on the extra last slot, base 0 and no argument.
        nb = len(st.base_slots) - 1
        slot = out.take("slot", np.intp, n)
        image_cols = None
        if st.images is not None:  # image rows carry their sampler above the buffer number
            is_image = (kind & 7) == stream.SPACE_IMAGE
            image_cols = st.images.columns(offset, buf, size, is_image)
            buf = np.where(is_image, buf & 0xFFFF, buf)
        np.minimum(buf, nb, out=slot, casting="unsafe")
        address = np.take(st.base_slots, slot, out=out.take("address", np.uint64, n), mode="clip")
        address += offset
        arg = np.take(st.arg_slots, slot, out=out.take("arg", np.int32, n), mode="clip")
        unplaced = int(np.count_nonzero(buf >= nb))
        if unplaced:
            st.unmapped += unplaced - int(np.count_nonzero(buf == stream.LAYOUT32))
        seq = out.take("seq", np.int64, n)
        seq[:] = b.seq
        space = np.bitwise_and(kind, 7, out=out.take("space", np.int32, n), casting="unsafe")
        op = np.right_shift(kind, stream.KIND_OP_SHIFT, out=out.take("op", np.int32, n), casting="unsafe")
        cols = self._common(st, group, item, site)
        cols.update(
            seq=from_numpy(seq),
            space=self._dict(space, _SPACES),
            op=self._dict(op, _OPS),
            address=from_numpy(address),
            size=from_numpy(size),
            buffer=_nullable_int32(arg) if n and arg.min() < 0 else from_numpy(arg),
            issue=from_numpy(b.issue.view(np.int64)),
        )
        if image_cols is not None:
            cols.update(image_cols)
            return pa.RecordBatch.from_pydict(cols, schema=schema.ACCESSES_WITH_IMAGES)
        return pa.RecordBatch.from_pydict(cols, schema=schema.ACCESSES)

    def _instructions(self, st: LaunchState, b: stream.GroupBlock, group: np.ndarray) -> pa.RecordBatch:
        count = b.count.view(np.int64)
        item, site = b.ins_item, b.ins_site
        s = site.astype(np.intp)
        if st.vector_sites:
            count = count * st.site_lanes[s]
        cols = self._common(st, group, item, site)
        cols.update(opclass=self._dict(st.site_opclass[s], st.opclasses), count=from_numpy(count),
                    items=from_numpy(b.ins_items.view(np.int32)))
        return pa.RecordBatch.from_pydict(cols, schema=schema.INSTRUCTIONS)

    # -- end ---------------------------------------------------------------------
    def finish(self, *, host_exit_code: int | None = None, source_text: str | None = None,
               extra: dict | None = None) -> None:
        """Flush, then set the launches and sites tables (call before closing the writer)."""
        self.flush()
        rows = [self._launch_row(st, host_exit_code, source_text, extra or {}) for st in self.launches]
        launches = table_from_rows(rows, schema.LAUNCHES) if rows else schema.empty("launches")
        self.writer.set_launches(launches)
        sites = pa.concat_tables(self._site_rows) if self._site_rows else schema.empty("sites")
        self.writer.set_sites(sites)

    def _launch_row(self, st: LaunchState, host_exit_code, source_text, extra) -> dict:
        info, end = st.info, st.end or {}
        total = end.get("total_groups") or int(np.prod(info["num_groups"]))
        recorded = end.get("groups_recorded", st.groups_seen)
        sampling = dict(info["sampling"], groups_recorded=recorded, total_groups=total,
                        scale=(total / recorded) if recorded else None)
        diagnostics = list(st.diagnostics)
        status = status_of(st, host_exit_code)
        if st.end is None:
            diagnostics.append("the launch did not finish: the program stopped while it ran")
        if host_exit_code:
            diagnostics.append(f"the host program exited with status {host_exit_code}")
        if st.unmapped:
            diagnostics.append(f"{st.unmapped} access(es) fell outside every known buffer")
        meta = {
            "recorder": "tracekit-oclgrind", "status": status, "diagnostics": diagnostics,
            "oclgrind_errors": st.errors, "sampling": sampling, "layout": st.layout,
            "work_dim": info["work_dim"], "num_groups": info["num_groups"],
            "global_offset": info["global_offset"], "args": info["args"],
        }
        if st.footprint:
            meta["footprint"] = footprint.encode(st.granule_bytes, st.footprint)
        if st.images is not None:
            bases = {b["arg"]: b["base"] for b in st.layout["global_buffers"] if "arg" in b}
            meta["images"] = [i.describe(bases.get(i.arg)) for i in st.images.images]
        if host_exit_code is not None:
            meta["host_exit_code"] = host_exit_code
        meta.update(extra)
        local_bytes = max(end.get("local_mem_bytes", 0), info.get("static_local_bytes", 0))
        return {
            "kernel": st.kernel, "launch": st.launch, "global_size": info["global_size"],
            "local_size": info["local_size"], "local_mem_bytes": local_bytes,
            "build_options": info.get("build_options") or None, "device": self.device,
            "source": source_text if source_text is not None else info.get("source"),
            "registers_per_item": None, "metadata": json.dumps(meta, sort_keys=True),
        }


class _Scratch:
    """Column arrays reused from one chunk to the next.

    Every chunk needs the same computed columns (device address, group, widened
    sequence numbers, dictionary indices); fresh numpy arrays for them would be
    new memory each time, and the page faults of first touching it cost as much
    as the arithmetic.  The arrays only have to outlive one ``write_accesses``:
    the Parquet writer copies values into its own pages.
    """

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}
        self._used: dict[str, int] = {}
        self._rows = 0

    def start(self, rows: int) -> _Scratch:
        """Begin a chunk of ``rows`` rows: views handed out before are free again."""
        self._rows = rows
        self._used.clear()
        return self

    def take(self, name: str, dtype, n: int) -> np.ndarray:
        """The next ``n`` rows of column ``name`` within the current chunk."""
        at = self._used.get(name, 0)
        a = self._arrays.get(name)
        if a is None or a.dtype != dtype or len(a) < max(self._rows, at + n):
            if at:
                raise RuntimeError(f"scratch column {name} outgrew its chunk")
            a = self._arrays[name] = np.empty(max(self._rows, n), dtype)
        self._used[name] = at + n
        return a[at:at + n]


def repeat_into(out: np.ndarray, values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``out[:] = np.repeat(values, counts)`` without a temporary array.

    The differences between consecutive values land where each run starts and
    a running sum spreads them; values with a zero count are skipped.
    """
    keep = counts > 0
    if not keep.all():
        values, counts = values[keep], counts[keep]
    if not len(out):
        return out
    out.fill(0)
    out[0] = values[0]
    out[np.cumsum(counts[:-1])] = np.diff(values)
    return np.cumsum(out, out=out)


def _nullable_int32(values: np.ndarray) -> pa.Array:
    """``values`` (int32) as an Arrow array with negative values null, the validity
    bitmap packed straight from the comparison (cheaper than a boolean mask)."""
    valid = np.packbits(values >= 0, bitorder="little")
    return pa.Array.from_buffers(pa.int32(), len(values), [pa.py_buffer(valid), pa.py_buffer(values)])


def status_of(st: LaunchState, host_exit_code: int | None) -> str:
    """ok | errors (Oclgrind reported errors) | incomplete (never finished) |
    host_failed (finished cleanly, but the host program then failed)."""
    if st.end is None:
        return "incomplete"
    if st.errors:
        return "errors"
    return "host_failed" if host_exit_code else "ok"
