"""Target GPU models as plain frozen dataclasses.

A target is data, not code (the kerncraft habit): one TOML file per GPU, loaded
by :mod:`tracekit.targets.loader` into these classes.  Every number in a TOML
file carries its source (a guide section or a public document); the loader
keeps those citations in :attr:`Target.sources`, keyed by the dotted field path
(``"caches.L1.size_bytes"``), and what was assumed where sources are silent in
:attr:`Target.assumptions`.

Analyzers read only these classes, never the TOML, and never hold a model
number of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SimdSpec:
    """How work-items are packed into hardware threads.

    ``width`` is the lanes of one wave (PowerVR task, Adreno wave, Intel EU
    thread at the chosen SIMD width, NVIDIA warp) used by the replay;
    ``widths`` lists the widths the compiler may choose (Intel 8/16/32).
    """

    width: int
    widths: tuple[int, ...] = ()
    #: Work-groups up to this many items may be packed into one wave (PowerVR
    #: packs 4/8/16-item groups into one 32-wide task); 0 means no packing.
    pack_small_groups_up_to: int = 0
    #: Wave schedulers per compute unit that each issue one wave instruction at a
    #: time (Intel: EUs per subslice; NVIDIA: SM sub-partitions; PowerVR: one USC).
    issuers_per_cu: int = 1
    #: ALU lanes behind one issuer for 32-bit float work; a wave of ``width`` items
    #: needs ``width / lanes_per_issuer`` passes.  0 means equal to ``width``.
    lanes_per_issuer: int = 0
    #: Lanes a packed work-group takes at least (PowerVR: two-item groups leave half
    #: of a four-lane slot idle).
    pack_slot_min_items: int = 1
    #: Cycles between a wave's instruction and the next one that needs its result (0: not
    #: modelled); a scheduler with fewer resident waves than this idles in between.
    dependent_issue_cycles: float = 0.0
    #: Loads of a loop that stores nothing and chases no pointer (``sites.role`` "batched")
    #: go this many times faster than one round trip per iteration: the compiler unrolls
    #: the loop and issues several iterations' loads before using the first (1: no overlap).
    batched_load_overlap: float = 1.0
    #: Times the compiler unrolls such a loop: the n mod unroll remainder iterations of a
    #: loop of n run one at a time, before the unrolled bodies.
    batched_load_unroll: int = 1
    #: Iterations of the largest unrolled body of such a loop (0: ``batched_load_unroll``).
    batched_load_body: int = 0

    @property
    def lanes(self) -> int:
        """ALU lanes per issuer, with the 0 default resolved to the wave width."""
        return self.lanes_per_issuer or self.width


@dataclass(frozen=True)
class CacheLevel:
    """One level of the data-cache hierarchy, nearest first in ``Target.caches``."""

    name: str                 # "L1", "L2", "SLC", "L3", ...
    scope: str                # "compute_unit" (one per CU) or "shared"
    size_bytes: int
    line_bytes: int
    ways: int
    sector_bytes: int = 0     # 0: no sectoring, the line is the unit of transfer
    write_policy: str = "write_back"   # "write_back" | "write_through"
    write_allocate: bool = True
    latency_cycles: float = 0.0
    bandwidth_bytes_per_cycle: float = 0.0   # per instance (per CU for compute_unit scope)
    #: Bytes per cycle the level takes in stores, where they cost more than loads (0: the same
    #: as ``bandwidth_bytes_per_cycle``).
    store_bandwidth_bytes_per_cycle: float = 0.0
    #: Share of the level's peak that its bandwidths above sustain (1: they are the peak).  Time
    #: uses the sustained rates; the verdict's utilisation is measured against the peak, as
    #: Nsight Compute's speed of light is.
    sustained_share: float = 1.0
    #: How a line picks its set: "modulo" (line address mod sets) or "xor" (the upper
    #: line-address bits XOR-folded onto the set bits first, as hashed GPU caches do).
    index: str = "modulo"
    #: What the level's throughput term counts: "bytes" (at bandwidth_bytes_per_cycle) or
    #: "request": per SIMD request the larger of its distinct lines / lines_per_cycle (the
    #: tag stage) and its data-bank wavefronts (data_banks words of data_bank_width_bytes
    #: a cycle); only the first level is priced per request.
    cost_unit: str = "bytes"
    lines_per_cycle: float = 0.0
    data_banks: int = 0
    data_bank_width_bytes: int = 4
    #: Mean of the exponential part of a hit's latency: a request of k lines served here waits
    #: latency - tail + tail x (1 + 1/2 + ... + 1/k) (analyzers/latency.py).  0: fixed latency.
    latency_tail_cycles: float = 0.0
    #: Bytes a load miss brings from DRAM: the aligned block of sectors around the missing one
    #: (0: the unit of hit and miss alone).  Only the last level, and only a sectored one.
    fetch_bytes: int = 0
    #: Share of the level's store sectors and DRAM fills that a second partition looks up as
    #: well (0: one lookup each).  Time does not use it (the measured bandwidths include that
    #: work); hit rates compared with the device's counters do (tracekit.calibration).
    partition_copy_share: float = 0.0

    @property
    def sets(self) -> int:
        return self.size_bytes // (self.line_bytes * self.ways)


@dataclass(frozen=True)
class ConstantCacheSpec:
    """The per-unit read-only cache that serves ``__constant`` loads (NVIDIA's constant cache).

    Constant loads look their lines up here; a miss reads the whole line from the
    ``next`` level of ``Target.caches``, bypassing the levels before it.
    """

    size_bytes: int
    line_bytes: int
    ways: int
    next: str
    latency_cycles: float = 0.0

    @property
    def sets(self) -> int:
        return self.size_bytes // (self.line_bytes * self.ways)


@dataclass(frozen=True)
class TextureCacheLevel:
    """A read-only cache of the texture path (Adreno TP L1, Intel sampler L1/L2, PowerVR TPU cache).

    Only image reads look it up; its misses go on to the first level of
    ``Target.caches`` as line-sized loads.
    """

    name: str
    scope: str                # "compute_unit"
    size_bytes: int
    line_bytes: int
    ways: int
    compute_units_per_instance: int = 1
    latency_cycles: float = 0.0
    bandwidth_bytes_per_cycle: float = 0.0   # per instance

    @property
    def sets(self) -> int:
        return self.size_bytes // (self.line_bytes * self.ways)


@dataclass(frozen=True)
class TextureSpec:
    """How images are laid out and read.

    Images are stored in tiles of ``tile_bytes``: ``tile_rows`` rows of texels (0:
    as square as the tile allows), each ``tile_bytes / tile_rows`` bytes wide, so
    one line of the texture cache holds a 2-D block of texels, not a run of one
    row.  Reads go through ``caches`` (nearest first) and then the data hierarchy;
    where ``shared_with`` names a data cache level, that level is the texture
    cache and reads enter the data hierarchy directly.  Image writes take the data
    path, at their tiled addresses.
    """

    tile_bytes: int
    tile_rows: int
    caches: tuple[TextureCacheLevel, ...] = ()
    shared_with: str = ""

    def tile_shape(self, texel_bytes: int) -> tuple[int, int]:
        """(width, height) in texels of one tile for texels of ``texel_bytes``."""
        texels = max(1, self.tile_bytes // max(int(texel_bytes), 1))
        if self.tile_rows:
            rows = min(self.tile_rows, texels)
        else:  # square: the larger side across
            rows = 1 << ((texels.bit_length() - 1) // 2)
        return max(1, texels // rows), rows


@dataclass(frozen=True)
class LocalMemorySpec:
    """Work-group local memory (PowerVR common store, Intel SLM, NVIDIA shared)."""

    size_bytes: int           # per compute unit
    banks: int
    bank_width_bytes: int
    lanes_per_cycle: int      # lanes of a wave served per cycle at best
    read_broadcast: bool = True           # same-address reads in a bank do not conflict
    write_same_address_conflicts: bool = False  # Intel's strict rule: same-bank writes always conflict
    latency_cycles: float = 0.0
    #: Cycles a conflict-free write takes relative to a read (PowerVR's common
    #: store reads a row in one cycle but writes it in four).
    write_cost_factor: float = 1.0
    #: Bytes the lanes of one compute unit can receive (or send) per cycle whatever the banks
    #: allow: a request of B bytes over its lanes takes at least B / this cycles (0: no limit).
    #: ArchProbe's Adreno 640 streams float4 reads at 88 bytes a cycle where 32 banks give 128.
    bandwidth_bytes_per_cycle: float = 0.0


@dataclass(frozen=True)
class DramSpec:
    bandwidth_gb_per_s: float
    latency_ns: float         # of one access on its own (a lone dependent load)
    size_bytes: int = 0       # 0: not modelled (shared system memory)
    #: Mean of the exponential part of ``latency_ns``: a request of k scattered lines waits for
    #: the slowest, latency - tail + tail x (1 + 1/2 + ... + 1/k).  0: fixed latency.
    latency_tail_ns: float = 0.0
    #: Latency of an access while DRAM streams (0: no load dependence); the delay over
    #: ``latency_ns`` rises as 1 - exp(-busy / loaded_busy_share) with DRAM's busy share
    #: (analyzers/latency.py).
    loaded_latency_ns: float = 0.0
    loaded_busy_share: float = 0.0


@dataclass(frozen=True)
class OccupancySpec:
    max_work_group_size: int
    max_waves_per_cu: int
    max_work_groups_per_cu: int = 0       # 0: no separate limit
    barrier_slots_per_cu: int = 0         # Intel: 16 barrier registers per subslice
    local_mem_alloc_min_bytes: int = 0    # Intel: 4 KB minimum per work-group
    local_mem_alloc_step_bytes: int = 0   # Intel: 1 KB granularity
    registers_per_cu: int = 0             # 0: unknown
    max_registers_per_item: int = 0


@dataclass(frozen=True)
class IsaSpec:
    """The offline compiler of a GPU whose machine code tracekit can build (Intel Gen).

    ``ocloc_device`` names the device for ``ocloc -device``; ``iga_platform`` the
    platform for ``iga64 -p``; ``min_exec_lanes`` the narrowest ALU width, the
    least an instruction is priced at (a scalar instruction still takes an issue
    on a SIMD-4 unit).
    """

    ocloc_device: str
    iga_platform: str
    min_exec_lanes: int = 1


@dataclass(frozen=True)
class LaunchCosts:
    """What a launch costs beyond its work, and how the verdict names a bottleneck."""

    overhead_ns: float = 0.0
    work_group_dispatch_cycles: float = 0.0
    #: A unit is the bottleneck when its predicted utilisation reaches this share
    #: (Nsight Compute's speed-of-light rule uses 60 %).
    sol_threshold: float = 0.6


@dataclass(frozen=True)
class PeakInput:
    """One row of a vendor's peak-throughput table, as inputs: tracekit computes the peak."""

    data_type: str
    operation: str
    unit: str
    ops_per_instruction: float
    cycles_per_instruction: float
    opclass: str = ""
    ops_per_result: float | None = None


@dataclass(frozen=True)
class MathClass:
    """A guide's cost class of math built-ins and the price tracekit gives it."""

    cycles: float
    instructions: float | None = None
    max_instructions: float | None = None


@dataclass(frozen=True)
class Target:
    name: str
    vendor: str
    family: str
    description: str
    compute_units: int
    clock_mhz: float
    simd: SimdSpec
    caches: tuple[CacheLevel, ...]
    #: Coalescing granularity of global memory requests, in bytes.
    transaction_bytes: int
    local_memory: LocalMemorySpec
    dram: DramSpec
    occupancy: OccupancySpec
    #: Issue cost per instruction class: cycles one wave occupies the ALU for one
    #: issue of that class (keys are trace opclasses or ``math_*`` names).
    alu_cycles: dict[str, float] = field(default_factory=dict)
    #: Prices that replace ``alu_cycles`` under -cl-fast-relaxed-math / -cl-finite-math-only.
    alu_cycles_fast_math: dict[str, float] = field(default_factory=dict)
    #: Execution pipe of each class, where the target names them (instructions on
    #: different pipes overlap; see analyzers/alu.py).  Empty: every class in series.
    issue_pipes: dict[str, str] = field(default_factory=dict)
    launch: LaunchCosts = field(default_factory=LaunchCosts)
    #: The inputs of the vendor's peak-throughput table (tracekit/targets/throughput.py).
    peak_throughput: tuple[PeakInput, ...] = ()
    #: The guide's cost classes of math built-ins behind the ``math_*`` prices.
    math_classes: dict[str, MathClass] = field(default_factory=dict)
    #: Overrides of rule thresholds for this target, ``{"RULE-ID.name": value}`` (docs/rules.md).
    rule_thresholds: dict[str, float] = field(default_factory=dict)
    #: The texture path for image accesses; None: images go through ``caches`` as buffers do.
    texture: TextureSpec | None = None
    #: The offline compiler for this GPU, when there is one (``[isa]``).
    isa: IsaSpec | None = None
    #: Machine instructions per IR instruction by IR group (``[ir_machine_factors]``),
    #: measured on a compiler that can be run offline; empty: price the IR as it is.
    ir_machine_factors: dict[str, float] = field(default_factory=dict)
    #: Machine instructions per IR instruction of each role class (``[ir_role_factors]``:
    #: address, loop_address, indirect, loop); empty: roles are priced as their class.
    ir_role_factors: dict[str, float] = field(default_factory=dict)
    #: ``[atomics]``: ``line_cycles`` and ``word_cycles`` of same-line atomic serialisation
    #: (:data:`tracekit.targets.schema.ATOMICS`); empty where not modelled.
    atomics: dict[str, float] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    assumptions: dict[str, str] = field(default_factory=dict)
    #: Instruction classes the target cannot execute (Adreno: fp64), each with the
    #: citation that says so.  They have no ``alu_cycles`` entry; an analysis that
    #: meets one warns instead of pricing it.
    unsupported: dict[str, str] = field(default_factory=dict)
    #: How a load request reaches the first cache level: ``"request"`` (its lanes are
    #: merged into the distinct units they touch, one lookup each) or ``"lane"`` (every
    #: lane's access is looked up on its own, in lane order: PowerVR Rogue).
    cache_lookup: str = "request"
    #: Which cache serves ``__constant`` loads: "caches" (the data hierarchy, like global
    #: loads) or "constant_cache" (``constant_cache``, a read-only cache per compute unit).
    constant_loads: str = "caches"
    constant_cache: ConstantCacheSpec | None = None

    def cache(self, name: str) -> CacheLevel:
        for c in self.caches:
            if c.name == name:
                return c
        raise KeyError(name)
