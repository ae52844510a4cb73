"""The target-file schema: every key a target TOML may hold, its type and its rule.

Kept as data so the loader, the documentation (docs/targets.md) and the tests all
read the same table.  A *model* value (anything an analyzer computes with) must be
written as a sourced value, ``{ value = ..., source = "..." }`` or
``{ value = ..., assumed = "why" }``; only identity strings (name, vendor, family,
description, a cache's name) are plain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCOPES = ("compute_unit", "shared")
#: How a SIMD load request reaches the first cache level (``cache_lookup``).
CACHE_LOOKUPS = ("request", "lane")
WRITE_POLICIES = ("write_back", "write_through")
#: How a cache level picks the set of a line (``index``): ``modulo``, the line address
#: modulo the set count; ``xor``, the line address with its upper bits XOR-folded onto
#: the set bits first (analyzers/replay/cache_kernels.py, docs/targets.md).
SET_INDEXES = ("modulo", "xor")
#: What a level's throughput term counts (``cost_unit``): ``bytes`` moved at
#: ``bandwidth_bytes_per_cycle``, or per ``request`` the larger of its tag lookups
#: (distinct lines / ``lines_per_cycle``) and its data-bank wavefronts.
COST_UNITS = ("bytes", "request")
#: Which cache serves ``__constant`` loads (``constant_loads``).
CONSTANT_PATHS = ("caches", "constant_cache")
#: Keys of a sourced value table.
SOURCED_KEYS = ("value", "source", "assumed")


def _pow2(x: int) -> bool:
    return x > 0 and (x & (x - 1)) == 0


@dataclass(frozen=True)
class Field:
    """One key of a section: its type, whether it is required, and its value rule."""

    kind: str                   # "int" | "float" | "bool" | "str" | "int_list"
    required: bool = True
    rule: str = ""              # human text of the rule, used in errors and docs
    check: object = None        # callable(value) -> bool, None: type check only
    choices: tuple = ()         # for kind "str": allowed values
    doc: str = ""
    #: Plausible range of a number (inclusive); None: the default for its name (:func:`bounds`).
    lo: float | None = None
    hi: float | None = None


def positive(v) -> bool:
    return v > 0 and math.isfinite(v)


def non_negative(v) -> bool:
    return v >= 0 and math.isfinite(v)


#: Bounds on every number of a target file, so that a typo (``1e300`` MHz, 10^12 compute units, a
#: 1 PiB cache) is refused on load instead of overflowing or exhausting memory in the models.
#: They are wide (well beyond any GPU tracekit models) and documented in docs/targets.md.
#: By the key's name: the first matching suffix gives the largest value.
SUFFIX_MAX = (("_bytes", 2**30), ("_cycles", 1e6), ("_ns", 1e9))
#: Largest whole number and largest other number a key without a suffix rule takes.
INT_MAX = 2**20
FLOAT_MAX = 1e6
#: Smallest value of a number that must be > 0 (a positive float this small is a typo).
POSITIVE_MIN = 1e-6
#: Largest target file read, and deepest nesting of tables and lists in it.
FILE_MAX_BYTES = 1 << 20
NESTING_MAX = 8


def bounds(name: str, spec: Field) -> tuple[float | None, float | None]:
    """The (lowest, highest) value key ``name`` accepts: the field's own, else by name and kind."""
    if spec.kind not in ("int", "float", "int_list"):
        return None, None
    default = FLOAT_MAX if spec.kind == "float" else INT_MAX
    hi = spec.hi if spec.hi is not None else next(
        (m for suffix, m in SUFFIX_MAX if name.endswith(suffix)), default)
    lo = spec.lo
    if lo is None and spec.kind == "float" and spec.check is positive:
        lo = POSITIVE_MIN
    return lo, hi


POS = dict(rule="must be > 0", check=positive)
NONNEG = dict(rule="must be >= 0", check=non_negative)
POW2 = dict(rule="must be a power of two > 0", check=_pow2)

#: Top-level keys.  ``caches`` (list of tables), the sections below, ``extra``,
#: ``assumptions`` and the identity strings are handled by the loader.
TOP = {
    "compute_units": Field("int", doc="compute units (PowerVR USC, Adreno SP, Intel subslice, NVIDIA SM)",
                           hi=2**16, **POS),
    "clock_mhz": Field("float", doc="shader clock the throughput numbers assume", lo=1, hi=1e5, **POS),
    "transaction_bytes": Field("int", doc="coalescing granularity of a global memory request", hi=4096,
                               **POW2),
    "constant_loads": Field("str", required=False, choices=CONSTANT_PATHS,
                            rule=f"must be one of {', '.join(CONSTANT_PATHS)}",
                            doc="caches: constant loads go through [[caches]] like global ones (default); "
                                "constant_cache: through the [constant_cache] section"),
    "cache_lookup": Field("str", required=False, choices=CACHE_LOOKUPS,
                          rule=f"must be one of {', '.join(CACHE_LOOKUPS)}",
                          doc="request: a load's lanes look up the distinct units they touch once; "
                              "lane: every lane looks its access up on its own, in lane order"),
}
IDENTITY = ("name", "vendor", "family", "description")

SIMD = {
    "width": Field("int", doc="lanes of the wave the replay uses", hi=1024, **POS),
    "widths": Field("int_list", required=False, rule="all > 0 and must contain simd.width",
                    doc="widths the compiler may choose (default: [width])"),
    "pack_small_groups_up_to": Field("int", required=False, rule="must be >= 0 and < width",
                                     doc="work-groups up to this size share one wave (0: no packing)"),
    "issuers_per_cu": Field("int", required=False, doc="wave schedulers per compute unit", **POS),
    "lanes_per_issuer": Field("int", required=False, doc="32-bit ALU lanes behind one scheduler", **POS),
    "pack_slot_min_items": Field("int", required=False, doc="lanes a packed work-group takes at least",
                                 **POS),
    "dependent_issue_cycles": Field("float", required=False, **NONNEG,
                                    doc="cycles before a wave can issue an instruction that uses the "
                                        "last one's result (0: not modelled)"),
    "batched_load_overlap": Field("float", required=False, rule="must be >= 1",
                                  check=lambda v: 1.0 <= v < math.inf,
                                  doc="how many times faster a wave gets through the loads of a loop whose "
                                      "iterations the compiler may overlap (sites.role 'batched') than "
                                      "one dependent round trip per iteration (1: no overlap)"),
    "batched_load_unroll": Field("int", required=False, doc="times the compiler unrolls such a loop; "
                                 "the n mod unroll remainder iterations run one at a time", **POS),
    "batched_load_body": Field("int", required=False, doc="iterations of the largest unrolled body of such "
                               "a loop, whose loads go out together (default: batched_load_unroll)", **POS),
}

#: Largest cache level and longest line: the replay keeps a tag per line of every instance.
CACHE_MAX_BYTES = 2**28
LINE_MAX_BYTES = 4096
#: Most cache lines of all levels and instances together (compute units x lines per instance).
CACHE_LINES_MAX = 2**24

CACHE = {
    "scope": Field("str", choices=SCOPES, rule=f"must be one of {', '.join(SCOPES)}",
                   doc="one instance per compute unit, or one shared by all"),
    "size_bytes": Field("int", doc="capacity of one instance", hi=CACHE_MAX_BYTES, **POS),
    "line_bytes": Field("int", doc="line size", lo=4, hi=LINE_MAX_BYTES, **POW2),
    "ways": Field("int", rule="must be > 0 and divide size_bytes / line_bytes", check=positive,
                  doc="associativity"),
    "sector_bytes": Field("int", required=False,
                          rule="must be 0 or a power of two dividing line_bytes",
                          doc="unit of transfer inside a line (0: whole line)"),
    "write_policy": Field("str", required=False, choices=WRITE_POLICIES,
                          rule=f"must be one of {', '.join(WRITE_POLICIES)}", doc="what a store does"),
    "write_allocate": Field("bool", required=False, doc="a store miss brings the line in"),
    "latency_cycles": Field("float", required=False, doc="load-to-use latency of a hit", **NONNEG),
    "bandwidth_bytes_per_cycle": Field("float", required=False, doc="per instance", **NONNEG),
    "store_bandwidth_bytes_per_cycle": Field("float", required=False, doc="per instance, for stores "
                                             "(0: as bandwidth_bytes_per_cycle)", **NONNEG),
    "sustained_share": Field("float", required=False, rule="must be > 0 and <= 1",
                             check=lambda v: 0 < v <= 1,
                             doc="share of the level's peak its bandwidths sustain (default 1)"),
    "index": Field("str", required=False, choices=SET_INDEXES,
                   rule=f"must be one of {', '.join(SET_INDEXES)}",
                   doc="set index: line address modulo the sets, or with its upper bits XOR-folded "
                       "onto the set bits first (default modulo)"),
    "cost_unit": Field("str", required=False, choices=COST_UNITS,
                       rule=f"must be one of {', '.join(COST_UNITS)}",
                       doc="what the throughput term counts: bytes at bandwidth_bytes_per_cycle (default), "
                           "or per request max(distinct lines / lines_per_cycle, data-bank wavefronts)"),
    "lines_per_cycle": Field("float", required=False, doc="distinct lines the tag stage looks up per cycle "
                             "(cost_unit = request)", **POS),
    "data_banks": Field("int", required=False, doc="banks of the data stage, one word each per cycle "
                        "(cost_unit = request; 0: no data-stage term)", **NONNEG),
    "data_bank_width_bytes": Field("int", required=False, doc="bytes one data bank delivers per cycle",
                                   **POW2),
    "latency_tail_cycles": Field("float", required=False,
                                 doc="mean of the exponential part of a hit's latency (0: every hit "
                                     "takes latency_cycles); a request of k lines waits for the slowest",
                                 **NONNEG),
    "fetch_bytes": Field("int", required=False,
                         rule="must be 0 or a power of two, a multiple of sector_bytes and at most "
                              "line_bytes, on the last level only",
                         doc="bytes a load miss fetches from DRAM: the aligned block around the missing "
                             "sector (0: the sector alone)"),
    "partition_copy_share": Field("float", required=False, rule="must be >= 0 and <= 1",
                                  check=lambda v: 0 <= v <= 1,
                                  doc="share of store sectors and DRAM fills that a second partition of "
                                      "the level looks up too, as the device's counters count them "
                                      "(default 0)"),
}

#: ``[constant_cache]``: the per-unit read-only cache that serves ``__constant`` loads
#: (``constant_loads = "constant_cache"``); its misses are read from the level ``next``.
CONSTANT_CACHE = {
    "size_bytes": Field("int", doc="capacity of one instance (one per compute unit)", hi=CACHE_MAX_BYTES,
                        **POS),
    "line_bytes": Field("int", doc="line size", lo=4, hi=LINE_MAX_BYTES, **POW2),
    "ways": Field("int", rule="must be > 0 and divide size_bytes / line_bytes", check=positive,
                  doc="associativity"),
    "next": Field("str", rule="must name a level of [[caches]]",
                  doc="the data level its misses are read from"),
    "latency_cycles": Field("float", required=False, doc="load-to-use latency of a hit", **NONNEG),
}

LOCAL_MEMORY = {
    "size_bytes": Field("int", doc="per compute unit", hi=2**24, **NONNEG),
    "banks": Field("int", doc="number of banks", hi=4096, **POS),
    "bank_width_bytes": Field("int", doc="bytes one bank serves per cycle", **POW2),
    "lanes_per_cycle": Field("int", doc="lanes of a wave served per cycle at best", **POS),
    "read_broadcast": Field("bool", required=False, doc="same-address reads in a bank do not conflict"),
    "write_same_address_conflicts": Field("bool", required=False,
                                          doc="writes to one bank conflict even at the same address"),
    "latency_cycles": Field("float", required=False, doc="access latency", **NONNEG),
    "write_cost_factor": Field("float", required=False, doc="write cycles relative to a read", **POS),
    "bandwidth_bytes_per_cycle": Field("float", required=False,
                                       doc="bytes the lanes of one compute unit receive or send per cycle, "
                                           "on top of the banks (0: the banks alone)", **NONNEG),
}

DRAM = {
    "bandwidth_gb_per_s": Field("float", doc="peak bandwidth, 1e9 bytes per second", lo=1e-3, hi=1e5, **POS),
    "latency_ns": Field("float", doc="load latency from memory (of one access on its own)", lo=1e-3, **POS),
    "size_bytes": Field("int", required=False, doc="capacity (0: shared system memory)", hi=2**44, **NONNEG),
    "latency_tail_ns": Field("float", required=False,
                             doc="mean of the exponential part of latency_ns (0: fixed); a request of k "
                                 "scattered lines waits for the slowest of k", **NONNEG),
    "loaded_latency_ns": Field("float", required=False,
                               doc="latency of an access while DRAM streams lines (0: latency does not "
                                   "depend on load)", **NONNEG),
    "loaded_busy_share": Field("float", required=False,
                               doc="DRAM busy share at which 63 % of the extra loaded latency is reached "
                                   "(the delay rises as 1 - exp(-busy / this))", **NONNEG),
}

OCCUPANCY = {
    "max_work_group_size": Field("int", doc="largest work-group the device accepts", **POS),
    "max_waves_per_cu": Field("int", doc="resident waves per compute unit", **POS),
    "max_work_groups_per_cu": Field("int", required=False, doc="0: no separate limit", **NONNEG),
    "barrier_slots_per_cu": Field("int", required=False, doc="0: no barrier-register limit", **NONNEG),
    "local_mem_alloc_min_bytes": Field("int", required=False, doc="smallest local allocation", **NONNEG),
    "local_mem_alloc_step_bytes": Field("int", required=False,
                                        rule="must be >= 0 and divide local_mem_alloc_min_bytes",
                                        check=non_negative, doc="allocation granularity"),
    "registers_per_cu": Field("int", required=False, doc="0: unknown", **NONNEG),
    "max_registers_per_item": Field("int", required=False, doc="0: unknown", **NONNEG),
}

#: ``[texture]``: how images are laid out in memory and which cache serves their reads.
#: Optional (a target without it sends image accesses through ``caches`` at their linear
#: addresses); every shipped target has one.
TEXTURE = {
    "tile_bytes": Field("int", doc="bytes of one tile of the image layout: the texels one "
                                   "texture-cache line holds", **POW2),
    "tile_rows": Field("int", rule="must be >= 0 (0: as square as the tile allows)", check=non_negative,
                       doc="texel rows in one tile; its width is tile_bytes / tile_rows / texel bytes"),
    "shared_with": Field("str", required=False, rule="must name a level of [[caches]]",
                         doc="the data cache that is also the texture cache (no [[texture_caches]])"),
}

#: One ``[[texture_caches]]`` level: read-only, nearest first, in front of ``caches``.
TEXTURE_CACHE = {
    "scope": Field("str", choices=("compute_unit",), rule="must be compute_unit",
                   doc="one instance per compute_units_per_instance compute units"),
    "size_bytes": Field("int", doc="capacity of one instance", hi=CACHE_MAX_BYTES, **POS),
    "line_bytes": Field("int", doc="line size", lo=4, hi=LINE_MAX_BYTES, **POW2),
    "ways": Field("int", rule="must be > 0 and divide size_bytes / line_bytes", check=positive,
                  doc="associativity"),
    "compute_units_per_instance": Field("int", required=False, doc="compute units sharing one instance "
                                        "(PowerVR: a TPU per USC pair); default 1", **POS),
    "latency_cycles": Field("float", required=False, doc="load-to-use latency of a hit", **NONNEG),
    "bandwidth_bytes_per_cycle": Field("float", required=False, doc="per instance", **NONNEG),
}

LAUNCH = {
    "overhead_ns": Field("float", required=False, doc="fixed cost of a launch, start to finish", **NONNEG),
    "work_group_dispatch_cycles": Field("float", required=False,
                                        doc="cycles a compute unit takes to start one more work-group",
                                        **NONNEG),
    "sol_threshold": Field("float", required=False, rule="must be in (0, 1]",
                           check=lambda v: 0 < v <= 1,
                           doc="utilisation at which a unit is named the bottleneck (default 0.6)"),
}

SECTIONS = {"simd": SIMD, "local_memory": LOCAL_MEMORY, "dram": DRAM, "occupancy": OCCUPANCY}
#: Sections a target may leave out.
OPTIONAL_SECTIONS = {"launch": LAUNCH}

#: One row of ``[[peak_throughput]]``: the inputs of a vendor's peak table.
PEAK_ROW = {
    "data_type": Field("str", doc="half, float, int ..."),
    "operation": Field("str", doc="the operation the row counts"),
    "unit": Field("str", choices=("GFLOPS", "GILOPS"), rule="must be GFLOPS or GILOPS"),
    "opclass": Field("str", required=False, doc="the trace class the row prices"),
    "ops_per_instruction": Field("float", doc="operations one lane's instruction counts", **POS),
    "cycles_per_instruction": Field("float", doc="cycles one lane's instruction takes", **POS),
    "ops_per_result": Field("float", required=False, doc="operations one result counts (an FMA is 2)",
                            **POS),
}
#: Plain-text keys of a peak row (identity strings, not model numbers).
PEAK_TEXT = ("data_type", "operation", "unit", "opclass")

#: One entry of ``[math_classes.NAME]``: how a guide's cost class of built-ins is priced.
MATH_CLASS = {
    "cycles": Field("float", doc="issue cycles the class's built-ins are priced at", **NONNEG),
    "instructions": Field("float", required=False, doc="hardware instructions assumed", **NONNEG),
    "max_instructions": Field("float", required=False, doc="upper end of the class (0: unbounded)",
                              **NONNEG),
}

#: Optional ``[isa]``: the offline compiler that builds this GPU's machine code.
ISA = {
    "ocloc_device": Field("str", doc="device name for Intel's offline compiler (`ocloc -device`), e.g. skl"),
    "iga_platform": Field("str", doc="platform for the ISA disassembler (`iga64 -p`), e.g. 9 or 11"),
    "min_exec_lanes": Field("int", required=False, doc="lanes an instruction occupies at least (the "
                            "narrowest ALU's width); narrower instructions are priced at this width", **POS),
}

#: IR instruction groups a ``[ir_machine_factors]`` table may scale (see analyzers/machine_code.py).
IR_GROUPS = ("float", "int", "math", "convert", "logic", "compare", "control", "memory", "barrier", "other")
#: Optional ``[ir_machine_factors]``: machine instructions per IR instruction, by IR group,
#: for targets whose compiler cannot be run offline.
IR_MACHINE_FACTORS = {g: Field("float", required=False, doc=f"machine instructions per IR {g} instruction",
                               **NONNEG) for g in IR_GROUPS}

#: Instruction-role classes an ``[ir_role_factors]`` table may price (analyzers/roles.py).
IR_ROLE_CLASSES = ("address", "loop_address", "indirect", "loop")
#: Optional ``[ir_role_factors]``: machine instructions per IR instruction of each role class
#: (sites.role, docs/model.md "Instruction roles").
#: ``[atomics]`` (optional): how the last-level cache serialises atomic updates.  Updates to
#: one line queue behind each other: a SIMD request's atomics that fall in one line take
#: ``line_cycles``, or ``word_cycles`` per update of its busiest word when more lanes than that
#: pile onto one word.  Lines proceed side by side.  Without the section atomics are priced
#: like stores.
ATOMICS = {
    "line_cycles": Field("float", doc="cycles one line is busy per request whose atomics touch it", **POS),
    "word_cycles": Field("float", doc="cycles per atomic update of one word, updates of one word in "
                         "turn", **NONNEG),
}

IR_ROLE_FACTORS = {
    "address": Field("float", required=False, doc="per IR address instruction a wave issues once "
                     "(outside loops)", **NONNEG),
    "loop_address": Field("float", required=False, doc="per IR address instruction a wave repeats "
                          "(inside loops: strength-reduced and unrolled)", **NONNEG),
    "indirect": Field("float", required=False, doc="per IR address instruction on a loaded value "
                      "(gathers, pointer chases)", **NONNEG),
    "loop": Field("float", required=False, doc="per IR loop-control instruction (counter, exit "
                  "compare, back-edge and exit branches)", **NONNEG),
}

#: alu_cycles keys beyond the trace opclasses: the fallback for math_* builtins.
MATH_DEFAULT = "math_default"
ALU_RULE = "must be >= 0 (cycles one wave occupies its issuer per issue)"
#: The field of one price in ``[alu_cycles]`` and ``[alu_cycles_fast_math]``.
ALU_PRICE = Field("float", rule="must be >= 0", check=non_negative, hi=SUFFIX_MAX[1][1])
#: An alu_cycles entry written ``{ unsupported = true, source = "..." }``: the target
#: cannot execute the class at all (Adreno has no fp64), so it is not priced.
UNSUPPORTED = "unsupported"
UNSUPPORTED_KEYS = (UNSUPPORTED, "source", "assumed")
