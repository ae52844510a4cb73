"""Memory replay of a trace on one target: waves -> requests -> coalescing, caches, banks.

:func:`replay_memory` streams the accesses table launch by launch, in chunks of
whole rounds of work-groups (one work-group per compute unit per round, see
:func:`analyzers.replay.waves.schedule`), so memory stays bounded by the chunk size and
not by the trace.  Cache state lives for one launch: it starts empty, and dirty
data is flushed to DRAM when the launch ends; launches are therefore independent
and can be replayed apart and summed.

Spaces: ``global``, ``constant`` and ``image`` accesses go through the cache
hierarchy (``memory.*``; constant loads through the target's constant cache first
where it has one, :mod:`analyzers.replay.constant_cache`); ``local`` accesses go to the banks
(``local_memory.*``); ``private`` accesses are taken to live in registers and only
appear in the per-site table.  Atomics count as writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from analyzers.replay.atomics import AtomicLines
from analyzers.replay.banks import bank_cycles
from analyzers.replay.cache import CacheHierarchy, LevelStats, TextureCacheStats
from analyzers.replay.coalescing import distinct_segments, lane_units
from analyzers.replay.constant_cache import ConstantCache
from analyzers.replay.inflight import FillTracker
from analyzers.replay.patterns import PatternAccumulator, Patterns
from analyzers.replay.request_cost import request_cycles
from analyzers.replay.sites import MEMORY_SPACES, SITE_KEYS, SITE_SUMS
from analyzers.replay.texture_replay import COLUMNS as TEXTURE_COLUMNS
from analyzers.replay.texture_replay import TextureReplay, add_rates
from analyzers.replay.waves import chunk_virtual_groups, form_requests, pack_factor, schedule
from tracekit.targets.model import Target
from tracekit.trace import schema, store
from tracekit.trace.reader import Trace

SPACE_CODES = {s: i for i, s in enumerate(schema.SPACES)}
OP_CODES = {s: i for i, s in enumerate(schema.OPS)}
_COLUMNS = ["kernel", "launch", "group", "item", "site", "space", "op", "address", "size", "buffer"]
ADDRESS_MASK = np.uint64((1 << 63) - 1)
_NO_LANES = np.empty(0, np.int32)
#: A chunk of more rows than this (whole rounds of work-groups cannot be cut, however many
#: accesses they issue), or of more requests than :data:`WINDOW_ROWS` (waves of one lane make
#: a request per access), is replayed in windows of its execution order of about
#: :data:`WINDOW_ROWS` rows each, which bounds the per-request arrays whatever the shape of
#: the launch.
WINDOWED_FROM = 1 << 21
WINDOW_ROWS = 1 << 17
#: The per-site sums a replay keeps: the table's counts, then the bank-conflict degrees (their sum
#: and maximum, for the mean and the worst).
_SITE_COLS = [*SITE_SUMS, "degree_sum", "degree_max"]


@dataclass
class MemoryReplay:
    """Memory metrics of one trace (or some of its launches) on one target."""

    target: str
    accesses: int
    #: kernel, launch, site, space, op, requests, accesses, transactions,
    #: transactions_per_request, bytes_requested, bytes_moved, local_cycles,
    #: conflict_degree_mean, conflict_degree_max (NaN for non-local sites).
    per_site: pd.DataFrame
    #: kernel, launch, accesses, requests, transactions, transactions_per_request,
    #: bytes_requested, bytes_moved, local_requests, local_cycles,
    #: conflict_degree_mean, dram_bytes_read, dram_bytes_written, first_level_cycles
    #: (cycles of a first level priced per request, 0 otherwise), <level>_hit_rate.
    per_launch: pd.DataFrame
    #: One per level, summed over launches (hits, misses and hit rate are properties).
    caches: list[LevelStats]
    dram_bytes_read: int
    dram_bytes_written: int
    #: launch, site, conflict_degree, requests: how many local requests had each degree.
    conflict_degrees: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Per launch id, the levels of that launch alone; cache state never crosses launches, so
    #: these add up to ``caches``.
    launch_caches: dict[int, list[LevelStats]] = field(default_factory=dict)
    #: The texture caches (``Target.texture``): level, scope, hits, misses, hit_rate, summed
    #: over launches; empty where the target has none.
    texture_caches: list[TextureCacheStats] = field(default_factory=list)
    #: Per launch id, the access-pattern facts (:mod:`analyzers.replay.patterns`) the rules read.
    patterns: dict[int, Patterns] = field(default_factory=dict)
    #: The constant cache (``Target.constant_cache``): level, scope, hits, misses, hit_rate of
    #: constant loads, summed over launches; empty where constant loads use ``caches``.
    constant_caches: list[TextureCacheStats] = field(default_factory=list)
    #: Per launch id, load requests, their distinct lines and the lookups that waited for a fill
    #: still in flight (:meth:`analyzers.replay.inflight.FillTracker.counts`); recorded counts.
    fills: dict[int, dict] = field(default_factory=dict)

    def _mem_sites(self) -> pd.DataFrame:
        return self.per_site[self.per_site["space"].isin(MEMORY_SPACES)]

    def totals(self) -> ReplayTotals:
        """The replay's requests and bytes summed over its sites (recorded work-groups)."""
        mem = self._mem_sites()
        loc = self.per_site[self.per_site["space"] == "local"]
        requests, lreq = int(mem["requests"].sum()), int(loc["requests"].sum())
        return ReplayTotals(
            requests=requests, transactions=int(mem["transactions"].sum()),
            bytes_requested=int(mem["bytes_requested"].sum()), bytes_moved=int(mem["bytes_moved"].sum()),
            local_requests=lreq, local_cycles=float(loc["local_cycles"].sum()),
            conflict_degree_mean=float((loc["conflict_degree_mean"] * loc["requests"]).sum() / lreq)
            if lreq else 0.0)

    def to_dict(self) -> dict:
        """The JSON-ready summary (``memory.*`` and ``local_memory.*`` keys)."""
        t = self.totals()
        return {
            "memory": {
                "requests": t.requests,
                "transactions": t.transactions,
                "transactions_per_request": t.transactions_per_request,
                "bytes_requested": t.bytes_requested,
                "bytes_moved": t.bytes_moved,
                "caches": [{"level": c.level, "scope": c.scope, "hits": c.hits, "misses": c.misses,
                            "hit_rate": c.hit_rate} for c in self.caches],
                "texture_caches": [c.to_dict() for c in self.texture_caches],
                "dram_bytes": self.dram_bytes_read + self.dram_bytes_written,
                "dram_bytes_read": self.dram_bytes_read,
                "dram_bytes_written": self.dram_bytes_written,
            },
            "local_memory": {
                "requests": t.local_requests,
                "cycles": t.local_cycles,
                "conflict_degree_mean": t.conflict_degree_mean,
            },
        }


@dataclass(frozen=True)
class ReplayTotals:
    """A replay's global and local requests, transactions and bytes, over all its sites."""

    requests: int
    transactions: int
    bytes_requested: int
    bytes_moved: int
    local_requests: int
    local_cycles: float
    conflict_degree_mean: float

    @property
    def transactions_per_request(self) -> float:
        return self.transactions / self.requests if self.requests else 0.0


def code_lut(dictionary: pa.Array, codes: dict[str, int]) -> np.ndarray:
    return np.array([codes.get(s, -1) for s in dictionary.to_pylist()], dtype=np.int8)


def batch_arrays(batch: pa.RecordBatch, kernels: dict[str, int]) -> dict[str, np.ndarray]:
    """NumPy columns of one batch; ``kernel`` becomes a code into ``kernels`` (extended here).

    Nothing is copied in the usual case: numbers are Arrow's buffers, ``space`` and
    ``op`` are the dictionary indices themselves (int32) when the dictionary lists
    the names in :mod:`tracekit.trace.schema` order, and a batch of one kernel gets a
    broadcast code.  Otherwise codes are translated in one compiled pass (numpy's
    fancy indexing would first copy the int32 indices to int64).
    """
    out = {}
    for name in ("launch", "group", "item", "site", "size"):
        out[name] = batch.column(name).to_numpy(zero_copy_only=False)
    for name in TEXTURE_COLUMNS:  # read only when the target has a texture path; -1 for null
        if name in batch.schema.names:
            col = batch.column(name)
            out[name] = (col.fill_null(-1) if col.null_count else col).to_numpy(zero_copy_only=False)
    if "issue" in batch.schema.names:  # the loop iterations that pair lanes into requests
        col = batch.column("issue")
        out["issue"] = (pc.fill_null(col, 0) if col.null_count else col).to_numpy(zero_copy_only=False)
    # the raw bits: the kernels clear bit 63 themselves, which spares a copy of the column
    out["address"] = batch.column("address").to_numpy(zero_copy_only=False).view(np.int64)
    buf = batch.column("buffer")
    out["buffer"] = (buf.to_numpy(zero_copy_only=False) if not buf.null_count
                     else pc.fill_null(buf, -1).to_numpy(zero_copy_only=False))
    for name, codes in (("space", SPACE_CODES), ("op", OP_CODES)):
        col = batch.column(name)
        out[name] = _recode(col.indices.to_numpy(zero_copy_only=False),
                            code_lut(col.dictionary, codes).astype(np.int32))
    kcol = batch.column("kernel")
    lut = np.array([kernels.setdefault(k, len(kernels)) for k in kcol.dictionary.to_pylist()], np.int32)
    kidx = kcol.indices.to_numpy(zero_copy_only=False)
    # only a launch's first row is ever read: one kernel needs no array of its own
    out["kernel"] = np.broadcast_to(lut[:1], kidx.shape) if len(lut) == 1 else _recode(kidx, lut)
    return {k: _frozen(v) if v.flags.writeable else v for k, v in out.items()}


def _recode(indices: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """``lut[indices]`` as int32, without a copy when ``lut`` is the identity (the usual case)."""
    if len(lut) and np.array_equal(lut, np.arange(len(lut))) and indices.dtype == np.int32:
        return indices
    return _take_codes(indices, lut)


@njit(cache=True)
def _take_codes(indices, lut):
    """``lut[indices]`` in one pass."""
    out = np.empty(indices.shape[0], np.int32)
    for i in range(indices.shape[0]):
        out[i] = lut[indices[i]]
    return out


def take_rows(a: dict, lo: int, hi: int | None) -> dict:
    return {k: v[lo:hi] for k, v in a.items()}


def _concat(parts: list[dict]) -> dict:
    if len(parts) == 1:
        return parts[0]
    return {k: _frozen(np.concatenate([p[k] for p in parts])) for k in parts[0]}


def _frozen(a: np.ndarray) -> np.ndarray:
    """``a`` marked read-only, like the columns Arrow hands over without a copy: the compiled
    kernels then see one array type, whichever way a chunk was assembled."""
    a.flags.writeable = False
    return a


def launch_chunks(batches: Iterable[dict], block_of, chunk_rows: int) -> Iterator[tuple[dict, bool]]:
    """Cut the row stream into launch pieces of whole blocks of work-groups.

    Yields (columns, ends_launch).  A cut falls only between work-groups, at a
    multiple of ``block_of(launch)`` work-groups from the launch's start, so every
    chunk holds whole rounds.  Small batches are gathered in a list and
    concatenated once per chunk.  A batch of an eighth of a chunk or more is not copied:
    the rows left over before it (less than a block, as a rule) are joined with
    just the head of the batch that completes their block, and the rest of the
    batch is cut in place (chunks are views of the batch's columns).
    """
    pending: list[dict] = []
    rows = 0
    for batch in batches:
        n = len(batch["launch"])
        if not n:
            continue
        if pending and _continues(pending[-1], batch):
            pending.append(batch)  # still the same work-group: nothing to cut until it ends
            rows += n
            continue
        if 8 * n >= chunk_rows:  # a large batch: cut in place
            front, pending = (_concat(pending) if pending else None), []
            buf = (yield from _stitch(front, batch, block_of, chunk_rows)) if front is not None else batch
            del front
        else:
            pending.append(batch)
            rows += n
            first = pending[0]["launch"][0]
            if rows < chunk_rows and not (batch["launch"] != first).any():
                continue
            buf, pending = _concat(pending), []  # the parts are let go while the chunk is replayed
            if len(buf["launch"]) > chunk_rows:
                _release_batches()
        batch = None
        rest = yield from _cut(buf, block_of, chunk_rows, done=False)
        buf = None
        pending = [rest] if len(rest["launch"]) else []
        rows = len(rest["launch"])
    if pending:
        buf, pending, batch = _concat(pending), None, None
        if len(buf["launch"]) > chunk_rows:
            _release_batches()
        yield from _cut(buf, block_of, chunk_rows, done=True)


def _trim_heap() -> None:
    """Give the C heap's free pages back to the system (glibc), after the many window-sized
    arrays of a windowed chunk: freed, they would stay resident and add to the next replay's
    peak (the what-if replays of the same launch follow at once)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


def _release_batches() -> None:
    """Hand the memory of the Arrow batches just joined back to the system: Arrow's allocator
    keeps freed pages for reuse, which a huge work-group's replay would hold on top of its copy."""
    pa.default_memory_pool().release_unused()


def _continues(before: dict, batch: dict) -> bool:
    """Whether ``batch`` holds nothing but more rows of the work-group ``before`` ends with.

    Such rows are only gathered: a work-group is never cut, and joining the rows so far
    once per batch would copy a huge work-group over and over."""
    launch, group = before["launch"][-1], before["group"][-1]
    return not ((batch["launch"] != launch).any() or (batch["group"] != group).any())


def _stitch(front: dict, batch: dict, block_of, chunk_rows: int):
    """Yield the chunks that ``front`` and a head of ``batch`` make; return what is left to cut.

    The head grows (doubling) until a cut falls inside the batch; what follows the
    cut is then a view of ``batch``.  If no head short of the whole batch has one,
    the two are concatenated whole.
    """
    nf, n = len(front["launch"]), len(batch["launch"])
    p = min(n, max(2 * nf, 1 << 12))
    while True:
        buf = _concat([front, take_rows(batch, 0, p)])
        if p == n:
            return buf
        chunks = []
        gen = _cut(buf, block_of, chunk_rows, done=False)
        try:
            while True:
                chunks.append(next(gen))
        except StopIteration as stop:
            rest = stop.value
        cut = len(buf["launch"]) - len(rest["launch"])
        if cut >= nf:
            yield from chunks
            return take_rows(batch, cut - nf, None)
        p = min(n, 2 * p)


def _cut(buf: dict, block_of, chunk_rows: int, *, done: bool):
    """Yield what can be cut from ``buf``; return the rest (which waits for more rows)."""
    while len(buf["launch"]):
        launch = buf["launch"]
        n = len(launch)
        other = np.flatnonzero(launch != launch[0])
        le = int(other[0]) if other.size else n
        complete = le < n or done
        if complete and le <= chunk_rows:
            yield take_rows(buf, 0, le), True
            buf = take_rows(buf, le, None)
            continue
        grp = buf["group"][:le]
        starts = np.concatenate([[0], np.flatnonzero(grp[1:] != grp[:-1]) + 1])
        usable = len(starts) if complete else len(starts) - 1
        cands = np.arange(block_of(int(launch[0])), usable + 1, block_of(int(launch[0])))
        cands = cands[cands < len(starts)]  # a cut inside the launch needs a group after it
        if cands.size == 0:
            if not complete:
                return buf
            yield take_rows(buf, 0, le), True
            buf = take_rows(buf, le, None)
            continue
        rows = starts[cands]
        fit = rows[rows <= chunk_rows]
        if not complete and not fit.size and n < 2 * chunk_rows:
            return buf  # one block is bigger than a chunk: gather a little more first
        cut = int(fit[-1]) if fit.size else int(rows[0])
        yield take_rows(buf, 0, cut), False
        buf = take_rows(buf, cut, None)
    return buf


@dataclass(frozen=True)
class _Requests:
    """One chunk's SIMD requests as every step of the replay reads them: the rows in request
    order (``order``, ``req_ptr``), and each request's site, space and op (from its first row)."""

    order: np.ndarray
    req_ptr: np.ndarray
    lane: np.ndarray
    addr: np.ndarray       # the rows' addresses; images at their tiled addresses
    size: np.ndarray
    first: np.ndarray      # each request's first row
    site: np.ndarray       # int64
    space: np.ndarray
    op: np.ndarray
    is_mem: np.ndarray     # through the cache hierarchy (global, constant, image)
    is_local: np.ndarray
    is_constant: np.ndarray  # constant loads

    @property
    def rows(self) -> int:
        return len(self.size)

    @classmethod
    def of(cls, c: dict, lane, order, req_ptr, tex: TextureReplay | None) -> _Requests:
        first = order[req_ptr[:-1]]
        space, op = c["space"][first], c["op"][first]
        addr = tex.addresses(c) if tex is not None else c["address"]
        return cls(order, req_ptr, lane, addr, c["size"], first, c["site"][first].astype(np.int64), space, op,
                   np.isin(space, [SPACE_CODES[s] for s in MEMORY_SPACES]), space == SPACE_CODES["local"],
                   (space == SPACE_CODES["constant"]) & (op == OP_CODES["load"]))


class LaunchReplay:
    """Accumulates one launch's metrics over its chunks."""

    def __init__(self, target: Target, hierarchy: CacheHierarchy | None, group_size: int | None,
                 texture: TextureReplay | None = None, patterns: bool = True, reset: bool = True,
                 counting: bool = True):
        self.t = target
        #: False for a pass that only brings the caches to the state the launch leaves them in (a
        #: sampled launch's first runs): its own counts are never read, so what only feeds them
        #: (local-memory banks, per-request prices, atomics, per-site sums) is not computed
        self.counting = counting
        self.patterns = PatternAccumulator(target, schema.SPACES, schema.OPS) if patterns else None
        self.h = hierarchy
        self.tex = texture
        self.pack = pack_factor(target.simd, group_size) if group_size else 1
        self.group_size = group_size or 0
        self.groups_done = 0
        self.accesses = 0
        #: constant loads' own cache, on targets that serve them from one (None elsewhere)
        self.constant = ConstantCache.for_target(target) if hierarchy is not None else None
        #: cycles the first level spent on requests, where it is priced per request
        first = target.caches[0] if target.caches else None
        self.price_requests = first is not None and getattr(first, "cost_unit", "bytes") == "request"
        self.first_level_cycles = 0.0
        #: per-line queue of atomic updates, on targets that model it (``[atomics]``)
        self.atomics = AtomicLines.for_target(target)
        self.clear_sites()
        if self.h is not None and reset:  # reset=False: start from the caches as they are
            self.h.reset()
        self.fills = FillTracker(target.caches[0].line_bytes, target.compute_units) \
            if self.h is not None else None
        #: work-group g runs on compute unit (g + cu_shift) % cu_span when cu_span is set (a
        #: sample's second pass meets the per-unit caches another group left)
        self.cu_shift = 0
        self.cu_span = 0
        self._buffers: dict[str, np.ndarray] = {}
        #: chunks of more rows than ``windowed_from`` are replayed in windows of ``window_rows``
        self.windowed_from, self.window_rows = WINDOWED_FROM, WINDOW_ROWS

    def _buffer(self, name: str, n: int) -> np.ndarray:
        """An int64 scratch array of ``n`` entries, kept for the next chunk.

        The kernels' big per-access outputs go here rather than to fresh arrays:
        memory freed at the end of a chunk goes back to the system and comes back
        as new pages, whose faults cost about as much as the work done on them.
        """
        buf = self._buffers.get(name)
        if buf is None or buf.shape[0] < n:
            buf = self._buffers[name] = np.empty(max(n, 2 * buf.shape[0] if buf is not None else 0), np.int64)
        return buf[:n]

    def clear_sites(self) -> None:
        """Forget the per-site sums and conflict-degree counts gathered so far."""
        #: key (site << 8 | space << 4 | op) -> [sums of _SITE_COLS[:-1] (float64), degree max]
        self._sites: dict[int, list] = {}
        #: key of a local site -> requests per conflict degree (index = degree)
        self._degrees: dict[int, np.ndarray] = {}

    def site_table(self) -> pd.DataFrame:
        """The per-site sums so far, one row per key in ascending order (``key`` and _SITE_COLS)."""
        keys = sorted(self._sites)
        sums = (np.array([self._sites[k][0] for k in keys]) if keys
                else np.zeros((0, len(_SITE_COLS) - 1)))
        df = pd.DataFrame({"key": np.array(keys, np.int64)})
        for i, name in enumerate(_SITE_COLS[:-1]):
            df[name] = sums[:, i]
        df["degree_max"] = np.array([self._sites[k][1] for k in keys], np.int64)
        return df

    def _add_sites(self, key: np.ndarray, req_ptr, tx, breq, cycles, degree, is_local) -> None:
        """Fold one chunk's requests into the per-site sums: a few numpy calls per chunk, so
        a chunk costs little beyond its rows (no DataFrame is built per chunk)."""
        ukey, inv = np.unique(key, return_inverse=True)
        sums, dmax = _site_sums(inv.astype(np.int64, copy=False), len(ukey), req_ptr, tx, breq,
                                self.t.transaction_bytes, cycles, degree)
        for j, k in enumerate(ukey.tolist()):
            acc = self._sites.get(k)
            if acc is None:
                self._sites[k] = [sums[j].copy(), int(dmax[j])]
            else:
                acc[0] += sums[j]
                acc[1] = max(acc[1], int(dmax[j]))
        if is_local.any():
            linv, ldeg = inv[is_local], degree[is_local]
            for j in np.unique(linv).tolist():
                counts = np.bincount(ldeg[linv == j])
                k = int(ukey[j])
                old = self._degrees.get(k)
                if old is not None:
                    if len(old) > len(counts):
                        old, counts = counts, old
                    counts = counts.copy()
                    counts[:len(old)] += old
                self._degrees[k] = counts

    def add(self, c: dict, formed: dict | None = None) -> None:
        """Replay one chunk of whole rounds of work-groups (canonical row order).

        A chunk of more than :data:`WINDOWED_FROM` rows (a round of huge work-groups, or one
        work-item that issues millions of accesses), or of more than :data:`WINDOW_ROWS`
        requests (waves of few lanes), is formed into requests and scheduled whole, then
        replayed in windows of its execution order (:meth:`_add_windows`), so the
        per-request work never holds more than a window.

        ``formed``: a dict the caller keeps for this chunk while it replays the same chunks
        several times (a sampled launch's passes).  The chunk's waves, requests, coalesced
        units and schedule depend on the chunk and the target alone, not on what the caches
        hold, so the first pass keeps them there and the later ones take them.
        """
        t = self.t
        n = len(c["site"])
        self.accesses += n
        huge = n > self.windowed_from
        if formed:
            self.groups_done += formed["groups"]
            self._add_requests(c, *formed["waves"], None, formed=formed)
            return
        # the columns go to the kernels as read (int32 items and sites, uint16 sizes, raw
        # address bits): each takes one dtype per argument, and no column is copied to int64
        lane = c["item"] if self.pack <= 1 else np.empty(n, np.int32)
        vgroup, ngroups = chunk_virtual_groups(c["group"], c["item"], self.groups_done, self.group_size,
                                               self.pack, lane if self.pack > 1 else _NO_LANES,
                                               None if huge else self._buffer("vgroup", n))
        self.groups_done += int(ngroups)
        site = c["site"]
        keep = formed is not None and not huge   # the buffers are reused by the next chunk: kept as copies
        order, req_ptr, req_wave, req_rank, wave_vg, wave_local = form_requests(
            vgroup, lane, site, t.simd.width, int(site.max()),
            None if huge or keep else self._buffer("order", n), _tags(c))
        del vgroup
        if huge or len(req_wave) > self.window_rows:
            if self.patterns is not None:
                self.patterns.add_rows(c, c["buffer"])  # item facts need an item's rows in order
            self._add_windows(c, lane, order, req_ptr, req_wave, req_rank, wave_vg, wave_local)
            return
        if keep:
            formed["groups"] = int(ngroups)
            formed["waves"] = (lane, order, req_ptr, req_wave, wave_vg)
        self._add_requests(c, lane, order, req_ptr, req_wave, wave_vg,
                           lambda: schedule(req_wave, req_rank, wave_vg, wave_local, max(1, t.compute_units)),
                           formed=formed if keep else None)

    def _add_windows(self, c, lane, order, req_ptr, req_wave, req_rank, wave_vg, wave_local) -> None:
        """Replay a large chunk in windows of consecutive requests in execution order.

        Each window's rows are gathered into a small chunk of their own, its requests kept
        in the chunk's request order; the caches see the same stream as in one piece, and
        every sum is additive.  What needs a whole wave is taken from the whole chunk: the
        schedule, each request's fill step (:meth:`analyzers.replay.inflight.FillTracker.steps`),
        the item facts (done by :meth:`add`); the depth tallies are counted once it ends.
        """
        ex, cu_of_req = schedule(req_wave, req_rank, wave_vg, wave_local, max(1, self.t.compute_units))
        del req_rank, wave_local
        cu_of_req = cu_of_req.astype(np.int32)
        occ = None
        if self.fills is not None:
            occ = self.fills.iterations(req_wave, c["site"][order[req_ptr[:-1]]].astype(np.int64))
            self.fills.defer_depths()
        bounds = _window_bounds(ex, req_ptr, self.window_rows)
        try:
            self._replay_windows(c, lane, order, req_ptr, req_wave, wave_vg, ex, cu_of_req, occ, bounds)
        finally:
            if self.h is not None:
                self.h.continuing = False
        if self.fills is not None:
            self.fills.settle_depths()
        _trim_heap()

    def _replay_windows(self, c, lane, order, req_ptr, req_wave, wave_vg, ex, cu_of_req, occ, bounds) -> None:
        """The windows ``ex[bounds[k]:bounds[k + 1]]`` one after the other (see :meth:`_add_windows`)."""
        for q0, q1 in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            reqs = np.sort(ex[q0:q1])
            rows, sub_ptr = _gather_requests(order, req_ptr, reqs)
            sub = {k: _frozen(v[rows]) for k, v in c.items()}
            sub_ex = np.searchsorted(reqs, ex[q0:q1])
            sub_cu = cu_of_req[reqs].astype(np.int64)
            sub_wave = req_wave[reqs]
            steps = None if occ is None else self.fills.steps(sub_wave, wave_vg, occ[reqs])
            self._add_requests(sub, _frozen(lane[rows]), np.arange(len(rows), dtype=np.int64), sub_ptr,
                               sub_wave, wave_vg, lambda e=sub_ex, u=sub_cu: (e, u), steps=steps,
                               rows_done=True)
            if self.h is not None:  # the next window goes on with this one's cache stream
                self.h.continuing = True

    def _add_requests(self, c, lane, order, req_ptr, req_wave, wave_vg, scheduled, *, steps=None,
                      rows_done: bool = False, formed: dict | None = None) -> None:
        """Everything after forming the requests of a chunk (or a window of one), one step each:
        coalescing, local-memory banks, per-request prices of the first level, atomics, the
        caches (with fills and the texture and constant paths), per-site sums and pattern facts.
        ``scheduled()`` gives the execution order and compute unit of each request; ``rows_done``
        says the item facts of the rows were already taken; ``formed`` (see :meth:`add`) keeps
        or gives the coalesced units and the schedule."""
        unit = self.h.first_unit_bytes if self.h is not None else self.t.transaction_bytes
        if formed and "units" in formed:
            rq, tx, breq, units, unit_ptr, distinct = formed["units"]
            scheduled = formed["schedule"]
            if self.tex is not None:
                self.tex.resume(formed["texture"])
        else:
            rq = _Requests.of(c, lane, order, req_ptr, self.tex)
            cached = rq.is_mem & (self.h is not None)
            tx_bytes = self.t.transaction_bytes
            scratch = None if formed is not None else self._buffer("units", 2 * rq.rows)
            tx, breq, units, unit_ptr = distinct_segments(order, req_ptr, rq.addr, rq.size, tx_bytes, cached,
                                                          unit, scratch)
            distinct = (units, unit_ptr)  # before any lane-by-lane lookup list replaces them
            if self.h is not None and getattr(self.t, "cache_lookup", "request") == "lane":
                # each lane of a load looks its own line up (PowerVR); transactions stay distinct lines
                per_lane = rq.is_mem & (rq.op == OP_CODES["load"])
                if per_lane.any():
                    units, unit_ptr = lane_units(order, req_ptr, rq.addr, rq.size, unit, per_lane, units,
                                                 unit_ptr)
            if formed is not None:
                order_cu = scheduled()
                formed["units"] = (rq, tx, breq, units, unit_ptr, distinct)
                formed["texture"] = self.tex.chunk_state if self.tex is not None else None
                formed["schedule"] = scheduled = lambda: order_cu
        if self.counting:
            cycles, degree = self._local_cycles(c, rq)
            if self.price_requests:
                self._price_first_level(rq, units, unit_ptr)
            if self.atomics is not None:
                self.atomics.add(order, req_ptr, rq.addr, rq.size,
                                 (rq.op == OP_CODES["atomic"]) & (rq.space == SPACE_CODES["global"]))
        if self.h is not None and rq.is_mem.any():
            self._through_caches(rq, req_wave, wave_vg, scheduled, steps, distinct, units, unit_ptr, unit)
        if not self.counting:
            return
        key = (rq.site << 8) | (rq.space.astype(np.int64) << 4) | rq.op.astype(np.int64)
        self._add_sites(key, req_ptr, tx, breq, cycles, degree, rq.is_local)
        if self.tex is not None:
            self.tex.add_sites(key, c["buffer"][rq.first] if "buffer" in c else None)
        if self.patterns is not None:
            if not rows_done:
                self.patterns.add_rows(c, c["buffer"])
            is_global_load = (rq.space == SPACE_CODES["global"]) & (rq.op == OP_CODES["load"])
            per_req = np.diff(distinct[1]) if self.h is not None else None
            self.patterns.add_requests(key, order, req_ptr, req_wave, lane, rq.addr, rq.size, tx,
                                       ~rq.is_local, rq.first, rq.site, is_global_load, per_req)

    def _local_cycles(self, c, rq: _Requests) -> tuple[np.ndarray, np.ndarray]:
        """Cycles and conflict degree of each local request in the banks (and at the data path's
        bytes per cycle where the target gives one); zeros for the others."""
        lm = self.t.local_memory
        writes = c["op"] if OP_CODES["load"] == 0 else c["op"] != OP_CODES["load"]
        cycles, degree = bank_cycles(rq.order, rq.req_ptr, rq.lane, rq.addr, rq.size, writes, rq.is_local,
                                     lm.banks, lm.bank_width_bytes, lm.lanes_per_cycle, lm.read_broadcast,
                                     lm.write_same_address_conflicts, float(lm.write_cost_factor))
        if getattr(lm, "bandwidth_bytes_per_cycle", 0) and rq.is_local.any():
            cycles = local_data_cycles(cycles, rq.order, rq.req_ptr, rq.size, rq.is_local,
                                       float(lm.bandwidth_bytes_per_cycle))
        return cycles, degree

    def _price_first_level(self, rq: _Requests, units, unit_ptr) -> None:
        """Busy cycles of a first level priced per request, for the requests it serves (constant
        loads may go to a constant cache instead)."""
        served = rq.is_mem & ~rq.is_constant if self.constant is not None else rq.is_mem
        cycles = request_cycles(self.t.caches[0], rq.order, rq.req_ptr, rq.lane, rq.addr, rq.size, served,
                                units, unit_ptr, self.t.simd.width)
        self.first_level_cycles += float(cycles.sum())

    def _through_caches(self, rq: _Requests, req_wave, wave_vg, scheduled, steps, distinct, units, unit_ptr,
                        unit) -> None:
        """The chunk's memory requests through the cache levels in execution order: fills in
        flight, image reads through the texture caches, constant loads through their own cache."""
        ex, cu_of_req = scheduled()
        if self.cu_span:
            cu_of_req = (cu_of_req + self.cu_shift) % self.cu_span
        is_load = rq.is_mem & (rq.op == OP_CODES["load"])
        self.fills.add(ex, is_load, *distinct, cu_of_req, req_wave, wave_vg, rq.site, steps)
        tex = self.tex
        filtered = None
        if tex is not None:  # image reads through the texture caches, in the same order
            filtered = tex.stream(rq.order, rq.req_ptr, rq.addr, rq.size, ex, rq.is_mem, rq.space, rq.op,
                                  cu_of_req, units, unit_ptr, unit, rq.first)
        if filtered is not None:
            addrs, ops, lens, cus = filtered
            self._tallied_access(addrs, ops, lens, cus, ex, rq.is_mem, is_load, *tex.stream_layout)
            return
        stream = self._buffer("stream", 4 * len(units)).reshape(4, -1)
        addrs, ops, cus, const = _cache_stream(ex, rq.is_mem, units, unit_ptr, rq.op, OP_CODES["load"],
                                               cu_of_req, rq.is_constant, stream)
        if self.constant is not None and rq.is_constant.any():
            addrs, ops, lens, cus, levels = self.constant.filter(addrs, ops, cus, const, unit)
            self.h.access(addrs, ops=ops, lengths=lens, cus=cus, levels=levels)
            self.fills.skip_depths()
        else:
            self._tallied_access(addrs, ops, unit, cus, ex, rq.is_mem, is_load, np.diff(unit_ptr), None)

    def _tallied_access(self, addrs, ops, lens, cus, ex, is_mem, is_load, count, texture_far) -> None:
        """Replay the stream through the data levels and tally each load step by the farthest level
        it reached (:meth:`analyzers.replay.inflight.FillTracker.add_depths`); ``count`` is each request's
        entries in the stream, ``texture_far`` the texture level an image read hit (None: no images)."""
        t = self.t
        depth = self._buffer("depth", len(addrs))
        depth.fill(-1)
        self.h.access(addrs, ops=ops, lengths=lens, cus=cus, depth=depth)
        # levels are numbered texture caches first, as the adapter names them (memory_adapter)
        n_tex = len(t.texture.caches) if t.texture is not None else 0
        self.fills.add_depths(ex, is_mem, is_load, count, addrs, depth, len(t.caches), texture_far, n_tex)

    def atomic_cycles(self) -> float:
        """Cycles of the line busiest with atomic updates (0 where not modelled)."""
        return self.atomics.cycles() if self.atomics is not None else 0.0

    def finish(self, kernel: str, launch: int):
        levels = []
        dram = (0, 0)
        if self.h is not None:
            self.h.flush()
            levels = self.h.stats()
            dram = (self.h.dram_bytes_read, self.h.dram_bytes_written)
        sites = self.site_table()
        if self.tex is not None:
            sites = sites.merge(self.tex.site_frame(), on="key", how="left")
        key = sites["key"].to_numpy()
        patterns = self.patterns.finish(key) if self.patterns is not None else None
        sites.insert(0, "kernel", kernel)
        sites.insert(1, "launch", launch)
        sites.insert(2, "site", (key >> 8).astype(np.int32))
        sites.insert(3, "space", np.asarray(schema.SPACES)[(key >> 4) & 15])
        sites.insert(4, "op", np.asarray(schema.OPS)[key & 15])
        degrees = pd.DataFrame(columns=["launch", "site", "conflict_degree", "requests"])
        if self._degrees:
            dkey, ddeg, dreq = [], [], []
            for k in sorted(self._degrees):
                counts = self._degrees[k]
                present = np.flatnonzero(counts)
                dkey.append(np.full(len(present), k, np.int64))
                ddeg.append(present.astype(np.int64))
                dreq.append(counts[present].astype(np.int64))
            dkey = np.concatenate(dkey)
            degrees = pd.DataFrame({"launch": launch, "site": (dkey >> 8).astype(np.int32),
                                    "conflict_degree": np.concatenate(ddeg),
                                    "requests": np.concatenate(dreq)})
        texture = self.tex.level_stats() if self.tex is not None else []
        return sites.drop(columns="key"), levels, dram, degrees, texture, patterns



def _window_bounds(ex: np.ndarray, req_ptr: np.ndarray, rows: int) -> np.ndarray:
    """Cut points in execution order ``ex`` so that each window holds about ``rows`` rows
    (at least one request)."""
    sizes = np.diff(req_ptr)[ex]
    cum = np.cumsum(sizes)
    del sizes
    cuts = np.searchsorted(cum, np.arange(rows, int(cum[-1]) if len(cum) else 0, rows), side="right")
    return np.unique(np.concatenate([[0], cuts, [len(ex)]]).astype(np.int64))


@njit(cache=True)
def _gather_requests(order, req_ptr, reqs):
    """The rows of requests ``reqs`` (ascending), request by request, and the pointer of each
    request into them: the order and ``req_ptr`` of a chunk made of those requests."""
    ptr = np.empty(reqs.shape[0] + 1, np.int64)
    ptr[0] = 0
    for k in range(reqs.shape[0]):
        r = reqs[k]
        ptr[k + 1] = ptr[k] + req_ptr[r + 1] - req_ptr[r]
    rows = np.empty(ptr[-1], np.int64)
    for k in range(reqs.shape[0]):
        r = reqs[k]
        lo = req_ptr[r]
        for t in range(req_ptr[r + 1] - lo):
            rows[ptr[k] + t] = order[lo + t]
    return rows, ptr


@njit(cache=True)
def _site_sums(inv, nk, req_ptr, tx, breq, tx_bytes, cycles, degree):
    """Per key (``inv`` indexes the chunk's distinct keys): requests, accesses,
    transactions, bytes requested and moved, local cycles and degree sum (float64,
    summed in request order like ``np.bincount``), and the largest degree."""
    sums = np.zeros((nk, 7), np.float64)
    dmax = np.zeros(nk, np.int64)
    for r in range(inv.shape[0]):
        k = inv[r]
        sums[k, 0] += 1.0
        sums[k, 1] += req_ptr[r + 1] - req_ptr[r]
        sums[k, 2] += tx[r]
        sums[k, 3] += breq[r]
        sums[k, 4] += tx[r] * tx_bytes
        sums[k, 5] += cycles[r]
        sums[k, 6] += degree[r]
        dmax[k] = max(dmax[k], degree[r])
    return sums, dmax

@njit(cache=True)
def _cache_stream(ex, is_mem, units, unit_ptr, rq_op, load_code, cu_of_req, flag, out):
    """The cache units of the memory requests in execution order ``ex``, each with its
    op (1 for stores and atomics), compute unit and its request's ``flag`` (constant
    loads): one gather instead of a repeat, a cumulative sum and fancy-indexed copies
    per chunk.  ``out`` (4 rows of at least ``len(units)``) is a buffer reused from
    chunk to chunk."""
    total = 0
    for q in range(ex.shape[0]):
        r = ex[q]
        if is_mem[r]:
            total += unit_ptr[r + 1] - unit_ptr[r]
    addrs = out[0, :total]
    ops = out[1, :total]
    cus = out[2, :total]
    flags = out[3, :total]
    k = 0
    for q in range(ex.shape[0]):
        r = ex[q]
        if not is_mem[r]:
            continue
        op = 0 if rq_op[r] == load_code else 1
        for u in range(unit_ptr[r], unit_ptr[r + 1]):
            addrs[k] = units[u]
            ops[k] = op
            cus[k] = cu_of_req[r]
            flags[k] = flag[r]
            k += 1
    return addrs, ops, cus, flags


def _group_sizes(trace: Trace) -> dict[int, int]:
    t = trace.launches
    if not t.num_rows:
        return {}
    out = {}
    for launch, local in zip(t.column("launch").to_pylist(), t.column("local_size").to_pylist(), strict=True):
        out[int(launch)] = int(np.prod([max(1, int(x)) for x in local])) if local else 0
    return out


def _as_trace(trace) -> Trace:
    if isinstance(trace, Trace):
        return trace
    if isinstance(trace, pd.DataFrame):
        trace = pa.Table.from_pandas(trace, preserve_index=False)
    if isinstance(trace, pa.Table):
        return Trace("<memory>", _tables={"accesses": store.conform(trace, "accesses")})
    raise TypeError(f"expected a Trace, an Arrow table or a DataFrame of accesses, got {type(trace)!r}")


def local_data_cycles(cycles: np.ndarray, order: np.ndarray, req_ptr: np.ndarray, size: np.ndarray,
                      is_local: np.ndarray, bytes_per_cycle: float) -> np.ndarray:
    """Local requests' cycles with the data path's limit: at least the bytes of all their lanes
    (each lane's own, shared addresses included) over ``bytes_per_cycle``."""
    starts = req_ptr[:-1]
    nonempty = req_ptr[1:] > starts
    lane_bytes = np.zeros(len(starts))
    if nonempty.any():
        lane_bytes[nonempty] = np.add.reduceat(size[order].astype(np.float64), starts[nonempty])
    floor = np.ceil(lane_bytes / bytes_per_cycle)
    return np.where(is_local, np.maximum(cycles, floor), cycles).astype(cycles.dtype)


def _tags(c: dict) -> np.ndarray | None:
    """The chunk's issue tags, or None where it has none (all zero: the same requests as none)."""
    tags = c.get("issue")
    return tags if tags is not None and tags.any() else None


def replay_columns(trace: Trace, target: Target) -> list[str]:
    """The accesses columns the replay reads: the issue tags where the trace has them and, with
    a texture path, the texel coordinates where the trace has them."""
    base = _COLUMNS + (["issue"] if "issue" in trace.access_columns else [])
    if target.texture is None or not target.caches:
        return base
    return base + [c for c in TEXTURE_COLUMNS if c not in base and c in trace.access_columns]


def replay_memory(trace, target: Target, *, launches: Iterable[int] | None = None,
                  chunk_rows: int = 1 << 20, group_sizes: dict[int, int] | None = None,
                  patterns: bool = True) -> MemoryReplay:
    """Replay the memory accesses of ``trace`` on ``target``.

    ``trace`` is a :class:`~tracekit.trace.reader.Trace` (or an accesses table /
    DataFrame in canonical order); ``launches`` restricts the replay to those
    launch ids.  Work-group sizes come from the launches table (``group_sizes``
    overrides); they only matter for targets that pack small groups.  ``patterns``
    also gathers the access-pattern facts the rules read (:mod:`analyzers.replay.patterns`).
    """
    trace = _as_trace(trace)
    sizes = {**_group_sizes(trace), **(group_sizes or {})}
    wanted = None if launches is None else {int(x) for x in launches}
    hierarchy = CacheHierarchy.from_target(target) if target.caches else None
    cus = max(1, target.compute_units)

    kernels: dict[str, int] = {}
    textured = target.texture is not None and hierarchy is not None
    columns = replay_columns(trace, target)

    def batches():
        # only the wanted launches' row groups (or partition files) are read
        for b in trace.iter_batches(columns=columns, batch_size=chunk_rows, launches=wanted):
            yield batch_arrays(b, kernels)

    def block_of(launch: int) -> int:
        gs = sizes.get(launch)
        return cus * (pack_factor(target.simd, gs) if gs else 1)

    site_frames, degree_frames, launch_rows, level_rows, texture_rows, constant_rows = [], [], [], [], [], []
    found: dict[int, Patterns] = {}
    fills: dict[int, dict] = {}
    current = None
    total = 0
    for cols, ends in launch_chunks(batches(), block_of, chunk_rows):
        launch = int(cols["launch"][0])
        if current is None:
            texture = TextureReplay.for_launch(trace, target, launch) if textured else None
            current = LaunchReplay(target, hierarchy, sizes.get(launch), texture, patterns)
            kernel = next(k for k, v in kernels.items() if v == int(cols["kernel"][0]))
        current.add(cols)
        if ends:
            sites, levels, dram, degrees, texture_levels, pats = current.finish(kernel, launch)
            texture_rows.append(texture_levels)
            constant_rows.append(current.constant.level_stats() if current.constant is not None else [])
            if pats is not None:
                found[launch] = pats
            if current.fills is not None:
                fills[launch] = current.fills.counts()
            total += current.accesses
            site_frames.append(sites)
            degree_frames.append(degrees)
            launch_rows.append(launch_row(kernel, launch, current.accesses, sites, levels, dram,
                                           current.first_level_cycles, current.atomic_cycles()))
            level_rows.append(levels)
            current = None
    rep = assemble(target, total, site_frames, degree_frames, launch_rows, level_rows)
    rep.texture_caches = sum_levels(texture_rows)
    rep.constant_caches = sum_levels(constant_rows)
    rep.patterns = found
    rep.fills = fills
    return rep


def sum_levels(rows: list[list[TextureCacheStats]]) -> list[TextureCacheStats]:
    """Sum read-only caches' per-launch counters (texture or constant caches), level by level."""
    out: list[list] = []
    for levels in rows:
        for i, lv in enumerate(levels):
            if i == len(out):
                out.append([lv.level, lv.scope, 0, 0])
            out[i][2] += lv.hits
            out[i][3] += lv.misses
    return [TextureCacheStats.of(*lv) for lv in out]


def launch_row(kernel, launch, accesses, sites, levels, dram, first_level_cycles: float = 0.0,
                atomic_cycles: float = 0.0) -> dict:
    mem = sites[sites["space"].isin(MEMORY_SPACES)]
    loc = sites[sites["space"] == "local"]
    req, tx, lreq = int(mem["requests"].sum()), int(mem["transactions"].sum()), int(loc["requests"].sum())
    row = {"kernel": kernel, "launch": launch, "accesses": accesses, "requests": req, "transactions": tx,
           "transactions_per_request": tx / req if req else 0.0,
           "bytes_requested": int(mem["bytes_requested"].sum()), "bytes_moved": int(mem["bytes_moved"].sum()),
           "local_requests": lreq, "local_cycles": float(loc["local_cycles"].sum()),
           "conflict_degree_mean": float(loc["degree_sum"].sum() / lreq) if lreq else 0.0,
           "dram_bytes_read": dram[0], "dram_bytes_written": dram[1],
           "first_level_cycles": float(first_level_cycles), "atomic_cycles": float(atomic_cycles)}
    for lv in levels:
        row[f"{lv.level}_hit_rate"] = lv.hit_rate
    return row


def assemble(target, total, site_frames, degree_frames, launch_rows, level_rows) -> MemoryReplay:
    cols = [*SITE_KEYS, *_SITE_COLS]
    per_site = pd.concat(site_frames, ignore_index=True) if site_frames else pd.DataFrame(columns=cols)
    for c in _SITE_COLS:
        per_site[c] = per_site[c].astype(np.float64 if c == "local_cycles" else np.int64)
    req = per_site["requests"].where(per_site["requests"] > 0)
    per_site["transactions_per_request"] = per_site["transactions"] / req
    local = per_site["space"] == "local"
    per_site["conflict_degree_mean"] = (per_site["degree_sum"] / req).where(local)
    per_site["conflict_degree_max"] = per_site["degree_max"].where(local)
    per_site = add_rates(per_site.drop(columns=["degree_sum", "degree_max"]))
    caches = sum_level_stats(target, level_rows)
    launch_caches = {int(row["launch"]): sum_level_stats(target, [levels])
                     for row, levels in zip(launch_rows, level_rows, strict=True)}
    per_launch = pd.DataFrame(launch_rows)
    degrees = [d for d in degree_frames if len(d)]
    return MemoryReplay(
        target=target.name, accesses=total, per_site=per_site, per_launch=per_launch, caches=caches,
        dram_bytes_read=int(per_launch["dram_bytes_read"].sum()) if len(per_launch) else 0,
        dram_bytes_written=int(per_launch["dram_bytes_written"].sum()) if len(per_launch) else 0,
        conflict_degrees=pd.concat(degrees, ignore_index=True) if degrees else
        pd.DataFrame(columns=["launch", "site", "conflict_degree", "requests"]),
        launch_caches=launch_caches)


def sum_level_stats(target, level_rows) -> list[LevelStats]:
    """Sum level counters (one list per launch, or per replayed part of a launch) into one
    :class:`LevelStats` per cache level of ``target``."""
    out = []
    for i, lv in enumerate(target.caches):
        rows = [lr[i] for lr in level_rows]
        agg = [sum(getattr(r, k) for r in rows) for k in
               ("load_hits", "load_misses", "store_hits", "store_misses", "evictions")]
        instances = max(1, target.compute_units) if lv.scope == "compute_unit" else 1
        out.append(LevelStats(lv.name, lv.scope, instances, *agg))
    return out
