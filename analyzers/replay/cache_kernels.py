"""Compiled replay kernels, one set per cache geometry.

A loop that reads sets, ways and unit sizes from a table at run time spends most
of its time on that table: the way scan cannot be unrolled, set indexing needs a
real division when the set count is not a power of two, and every level costs a
loop trip.  So each hierarchy gets its own small Python module in which the
levels are written out one after the other and every geometry number is a
literal; numba then compiles it like hand-written code.

The module text is generated here, written once to
``$XDG_CACHE_HOME/tracekit/cache-kernels/k_<hash>.py`` (atomically) and imported
from there, so numba's on-disk cache (``cache=True``) keeps the machine code
between runs.  The hash covers the text, so a change to the generator gives new
files and never a stale kernel.

State of level ``k`` is one int64 array: per (instance, set) a block holding the
tags of its ways (-1 = empty), their LRU stamps and, for sectored levels, their
valid sector masks.  A stamp is ``clock << sectors | dirty sector mask``: the way
scan reads the stamps anyway, so a victim's dirty bits come without touching
another cache line of the host, and the order of stamps is still the LRU order.
Empty ways hold the lowest stamp, so they are filled first.  Generated functions:

* ``find<k>``: the way holding the line, or else -1 - the LRU way.  The tag scan has no
  early exit: a loop of selects compiles without branches, which a set of random tags
  would mispredict, and is 10 to 60 % faster than stopping at the match;
* ``step<k>``: one entry of the work stack at level ``k`` (stores, straddling
  accesses, fills, write-backs), pycachesim's semantics;
* ``drain``: pops the work stack until empty, depth first like pycachesim's
  recursion;
* ``run``: the batch loop; a load walks down the levels inline, and only
  everything else goes through the stack.  An access may enter at a lower level
  (``firsts``, per access or one for all): that is how a flush hands one level's
  dirty units to the next, and how a constant-cache miss reads its line from the
  level that serves it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import types
from dataclasses import dataclass
from pathlib import Path

#: Bumped when the meaning of the generated code changes without a text change.
_VERSION = 8
_LOCK = threading.Lock()
_LOADED: dict[tuple, object] = {}


@dataclass(frozen=True)
class LevelGeometry:
    """What the generated code of one level depends on (all compile-time constants)."""

    sets: int
    ways: int
    unit_bits: int      # log2 of the unit of hit and miss (sector or line)
    sector_bits: int    # log2 of sectors per line (0: unsectored)
    per_cu: bool
    write_back: bool
    write_allocate: bool
    index: str = "modulo"  # set index: "modulo" or "xor" (see set_index)
    fetch_bits: int = 0    # log2 of units a load miss fetches from below (last level only)


def _push(op: str, lvl: str, addr: str, length: str) -> str:
    return (f"stack[sp, 0] = {op}\nstack[sp, 1] = {lvl}\nstack[sp, 2] = {addr}\n"
            f"stack[sp, 3] = {length}\nsp += 1\n")


def _ind(text: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + ln if ln.strip() else ln for ln in text.splitlines(keepends=True))


def _exprs(g: LevelGeometry) -> dict:
    """Constants and source fragments of one level (unit ``u`` -> its line, sector bit, set block)."""
    w = g.ways
    nsec = 1 << g.sector_bits
    line = f"u >> {g.sector_bits}" if g.sector_bits else "u"
    bit = f"np.int64(1) << (u & {nsec - 1})" if g.sector_bits else "np.int64(1)"
    setx = set_index(g.sets, g.index, g.unit_bits + g.sector_bits)
    inst = f"cu * {g.sets} + " if g.per_cu else ""
    blk = block_entries(g)
    nf = 1 << g.fetch_bits
    grp = (f"np.int64({(1 << nf) - 1}) << (u & {nsec - 1} & {~(nf - 1)})" if g.fetch_bits else bit)
    return dict(W=w, V=2 * w, BLK=blk, UB=g.unit_bits, SB=g.sector_bits, NSEC=nsec, SH=nsec,
                DM=(1 << nsec) - 1, UNIT=1 << g.unit_bits, LINE=line, BIT=bit, GRP=grp,
                BASE=f"({inst}{setx}) * {blk}")


#: Bits of a byte address the replay keeps (bit 63 is cleared everywhere).
ADDRESS_BITS = 63


def set_index(sets: int, index: str, line_bits: int, line: str = "line") -> str:
    """Source of the set of line ``line`` (a line address) among ``sets`` sets.

    ``modulo``: the line address modulo the set count.  ``xor``: with ``b`` the bits
    of the set count rounded up to a power of two, the line address is first XORed
    with itself shifted right by b, 2b, ... bits, so every upper bit of the address
    lands on the set bits; the result modulo the set count is the set.  For a
    power-of-two set count that is the classic XOR fold of the address's b-bit
    chunks; lines a power-of-two pitch apart, which modulo sends to a handful of
    sets, then spread over all of them.
    """
    if sets == 1:
        return "0"
    if index == "xor":
        b = (sets - 1).bit_length()
        terms = [line] + [f"({line} >> {k})" for k in range(b, ADDRESS_BITS - line_bits, b)]
        line = "(" + " ^ ".join(terms) + ")"
    elif index != "modulo":
        raise ValueError(f"unknown set index {index!r}")
    if sets & (sets - 1) == 0:
        return f"({line} & {sets - 1})"
    return f"({line} % {sets})"


def set_of(lines, sets: int, index: str, line_bits: int):
    """The set of each line number in ``lines`` (a NumPy int64 array), by the very expression
    the replay kernels compile (:func:`set_index`)."""
    import numpy as np

    lines = np.asarray(lines, dtype=np.int64)
    return eval(set_index(sets, index, line_bits, "line"), {}, {"line": lines}) + 0 * lines


def block_entries(g: LevelGeometry) -> int:
    """Entries per set: tags and stamps, and the valid masks where the level is sectored."""
    return (3 if g.sector_bits else 2) * g.ways


def empty_stamp(g: LevelGeometry) -> int:
    """Stamp of an empty way: below every real stamp, with no dirty bits."""
    return -1 << (1 << g.sector_bits)


_FIND = """
@njit(cache=True, error_model="numpy", inline="always")
def find{K}(s, base, line):
    m = -1
    for w in range({W}):
        if s[base + w] == line:
            m = w
    if m >= 0:
        return m
    best = 0
    best_s = s[base + {W}]
    for w in range(1, {W}):
        t = s[base + {W} + w]
        if t < best_s:
            best = w
            best_s = t
    return -1 - best
"""


def _push_dirty(k: int, g: LevelGeometry) -> str:
    """Pushes the write-backs of a dirty victim (tag ``tagv``, dirty mask ``d``) to level k+1."""
    e = _exprs(g)
    if g.sector_bits:
        body = (f"for sec in range({e['NSEC'] - 1}, -1, -1):\n    if (d >> sec) & 1:\n"
                + _ind(_push("1", str(k + 1), f"((tagv << {g.sector_bits}) + sec) << {g.unit_bits}",
                             str(e["UNIT"])), 8))
    else:
        body = _push("1", str(k + 1), f"tagv << {g.unit_bits}", str(e["UNIT"]))
    return (f'\n@njit(cache=True, error_model="numpy")\ndef push_dirty{k}(stack, sp, tagv, d):\n'
            + _ind(body, 4) + "    return sp\n")


def _touch(s: str, g: LevelGeometry, extra: str = "") -> str:
    """Statement making way ``w`` most recent, keeping its dirty bits."""
    e = _exprs(g)
    keep = f" | (s{s}[base + {e['W']} + w] & {e['DM']})" if g.write_back else ""
    return f"s{s}[base + {e['W']} + w] = (clk << {e['SH']}){keep}{extra}\n"


def _victim(s: str, g: LevelGeometry, dirty: str, on_dirty: str) -> str:
    """Install the line in LRU way ``v``; ``on_dirty`` handles a dirty victim's mask ``d`` first."""
    e = _exprs(g)
    src = "v = base - 1 - w\n"
    if g.write_back:  # empty ways carry no dirty bits
        src += f"d = s{s}[v + {e['W']}] & {e['DM']}\nif d != 0:\n" + _ind(on_dirty, 4)
    src += f"s{s}[v] = line\n"
    if g.sector_bits:
        src += f"s{s}[v + {e['V']}] = bit\n"
    return src + f"s{s}[v + {e['W']}] = (clk << {e['SH']}){dirty}\n"


def _step(k: int, g: LevelGeometry) -> str:
    """One work-stack entry at level k: the port of pycachesim's load and store."""
    e = _exprs(g)
    nxt = str(k + 1)
    down = _push("1", nxt, "a", "ln")  # pass the store to the next level
    present = "w >= 0" + (f" and (s[base + {e['V']} + w] & bit) != 0" if g.sector_bits else "")
    # A fetching level looks a multi-unit load up as one request: a unit absent when the request
    # arrives is a miss (op 3) even if the fetch of a unit before it brought it meanwhile.
    late = ""
    if g.fetch_bits:
        late = f"""            o = op
            if op == 0:
                line = {e['LINE']}
                bit = {e['BIT']}
                base = {e['BASE']}
                w = find{k}(s, base, line)
                if not ({present}):
                    o = 3
"""
    push_op = "o" if g.fetch_bits else "op"
    src = f"""
@njit(cache=True, error_model="numpy")
def step{k}(s, stats, stack, sp, op, a, ln, cu, clk, touch_lru):
    first = a >> {e['UB']}
    last = (a + ln - 1) >> {e['UB']}
    if last > first:
        # a range over several units: one entry per unit, lowest first
        for u in range(last, first - 1, -1):
            lo = max(a, u << {e['UB']})
            hi = min(a + ln, (u + 1) << {e['UB']})
{late}{_ind(_push(push_op, str(k), "lo", "hi - lo"), 12)}        return sp, clk
    late = op == 3
    if late:
        op = 0
    u = first
    line = {e['LINE']}
    bit = {e['BIT']}
    base = {e['BASE']}
    w = find{k}(s, base, line)
    if op == 0:
        if {present}:
            stats[{k}, 0 if not late else 1] += 1
            clk += 1
{_ind(_touch("", g), 12)}            return sp, clk
        stats[{k}, 1] += 1
        fill = True
        new_dirty = np.int64(0)
    else:
        if {present}:
            stats[{k}, 2] += 1
            if touch_lru:
                clk += 1
{_ind(_touch("", g), 16)}"""
    if g.write_back:
        src += f"            s[base + {e['W']} + w] |= bit\n"
    else:
        src += _ind(down, 12)
    src += f"""            return sp, clk
        stats[{k}, 3] += 1
"""
    if g.write_allocate:
        src += "        fill = True\n"
        if g.write_back:
            src += "        new_dirty = bit\n"
        else:  # write-through: the store also goes down
            src += "        new_dirty = np.int64(0)\n" + _ind(down, 8)
    elif g.write_back:
        src += "        fill = False\n        new_dirty = bit\n"
    else:
        src += _ind(down, 8) + "        return sp, clk\n"
    src += "    clk += 1\n"
    on_dirty = f"stats[{k}, 4] += 1\nsp = push_dirty{k}(stack, sp, s[v], d)\n"
    victim = _victim("", g, " | new_dirty", on_dirty)
    if g.fetch_bits:  # a load miss fetches the aligned block around the sector: each absent one
        src += (f"    if w >= 0:\n        old = s[base + {e['V']} + w]\n"
                f"        s[base + {e['V']} + w] |= bit\n"
                + _ind(_touch("", g, " | new_dirty"), 8) + "        wy = w\n    else:\n"
                + _ind(victim, 8) + "        old = np.int64(0)\n        wy = v - base\n")
        sector_addr = f"(((u >> {g.sector_bits}) << {g.sector_bits}) + sec) << {e['UB']}"
        src += f"""    if fill:
        newb = ({e['GRP']}) & ~old
        s[base + {e['V']} + wy] |= newb
        for sec in range({e['NSEC'] - 1}, -1, -1):
            if (newb >> sec) & 1:
{_ind(_push("0", nxt, sector_addr, str(e['UNIT'])), 16)}    return sp, clk
"""
        return src
    if g.sector_bits:  # the line may be there without this sector: complete it
        src += (f"    if w >= 0:\n        s[base + {e['V']} + w] |= bit\n"
                + _ind(_touch("", g, " | new_dirty"), 8) + "    else:\n" + _ind(victim, 8))
    else:  # a miss on an unsectored level always replaces a way
        src += _ind(victim, 4)
    src += f"""    if fill:
{_ind(_push("0", nxt, f"u << {e['UB']}", str(e['UNIT'])), 8)}    return sp, clk
"""
    return src


def _drain(n: int) -> str:
    src = """
@njit(cache=True, error_model="numpy")
def drain(sts, stats, dram, stack, sp, cu, clk, touch_lru):
    while sp > 0:
        sp -= 1
        op = stack[sp, 0]
        lvl = stack[sp, 1]
        a = stack[sp, 2]
        ln = stack[sp, 3]
"""
    for k in range(n):
        src += (f"        {'if' if k == 0 else 'elif'} lvl == {k}:\n"
                f"            sp, clk = step{k}(sts[{k}], stats, stack, sp, op, a, ln, cu, clk, touch_lru)\n")
    src += "        else:\n            dram[op] += ln\n    return clk\n"
    return src


def _walk_level(k: int, g: LevelGeometry, below: LevelGeometry | None) -> str:
    """Inline load lookup at level k inside the walk loop (``break`` ends the walk)."""
    e = _exprs(g)
    hit = "w >= 0" + (f" and (s{k}[base + {e['V']} + w] & bit) != 0" if g.sector_bits else "")
    if g.fetch_bits:
        return _walk_fetch(k, g, e, hit)
    src = _lookup(k, g, e, hit) + f"""    stop = {k}
    break
"""
    victim = _victim(str(k), g, "", _pend_dirty(k))
    if g.sector_bits:
        src += (f"if w >= 0:\n    s{k}[base + {e['V']} + w] |= bit\n" + _ind(_touch(str(k), g), 4)
                + "else:\n" + _ind(victim, 4))
    else:
        src += victim
    src += f"a = u << {e['UB']}\n"
    if below is not None and below.unit_bits < g.unit_bits:
        # the unit shrinks below: the fill spans several units there, so the stack takes over
        src += f"stop = {k + 1}\nshrink = True\nbreak\n"
    return src


def _pend_dirty(k: int) -> str:
    """A walk's dirty victim at level k, kept to be written back after the walk, deepest first."""
    return (f"stats[{k}, 4] += 1\npend_lvl[npend] = {k}\npend_tag[npend] = s{k}[v]\n"
            "pend_dirty[npend] = d\nnpend += 1\n")


def _lookup(k: int, g: LevelGeometry, e: dict, hit: str) -> str:
    """The start of an inline load lookup at level k: find the unit, and on a hit make it recent."""
    return f"""u = a >> {e['UB']}
line = {e['LINE']}
bit = {e['BIT']}
base = {e['BASE']}
w = find{k}(s{k}, base, line)
clk += 1
if {hit}:
{_ind(_touch(str(k), g), 4)}"""


def _walk_fetch(k: int, g: LevelGeometry, e: dict, hit: str) -> str:
    """The last level's inline load lookup where a miss fetches a block of sectors from DRAM.

    The sectors of the block that were absent become valid together and are counted in
    ``fetched`` (DRAM bytes).  A lookup of one of them right after the miss that fetched it
    (the next sector of the same request) still counts as a miss that waited for DRAM: the
    data is on its way, not there, and the hardware counts it so (Nsight Compute's L2 tag
    misses of a coalesced 128-byte request are four, not two).
    """
    victim = _victim(str(k), g, "", _pend_dirty(k))
    return _lookup(k, g, e, hit) + f"""    if (pf_bits & bit) != 0 and line == pf_line and base == pf_base:
        pf_bits = np.int64(0)
        stop = {k + 1}
        break
    pf_bits = np.int64(0)
    stop = {k}
    break
if w >= 0:
    newb = ({e['GRP']}) & ~s{k}[base + {e['V']} + w]
    s{k}[base + {e['V']} + w] |= newb
{_ind(_touch(str(k), g), 4)}else:
{_ind(victim, 4)}    newb = {e['GRP']}
    s{k}[v + {e['V']}] = newb
nb = newb
while nb != 0:
    fetched += 1
    nb &= nb - 1
pf_base = base
pf_line = line
pf_bits = newb & ~bit
a = u << {e['UB']}
"""


def _run(levels: tuple[LevelGeometry, ...]) -> str:
    n = len(levels)
    ub0 = levels[0].unit_bits
    walk = ""
    for k, g in enumerate(levels):
        below = levels[k + 1] if k + 1 < n else None
        walk += _walk_level(k, g, below)
        if below is not None and below.unit_bits < g.unit_bits:
            break  # the walk always ends here
    units = ", ".join(str(1 << g.unit_bits) for g in levels)
    wb = [k for k, g in enumerate(levels) if g.write_back]
    pend = "".join(f"{'if' if i == 0 else 'elif'} lv == {k}:\n"
                   f"    sp = push_dirty{k}(stack, 0, pend_tag[p], pend_dirty[p])\n"
                   for i, k in enumerate(wb))
    unpack = "".join(f"    s{k} = sts[{k}]\n" for k in range(n))
    return f"""
@njit(cache=True, error_model="numpy")
def run(sts, stats, dram, stack, clock, cus, ops, addrs, lens, touch_lru, firsts, depth):
{unpack}    units = np.array([{units}], np.int64)
    pend_lvl = np.zeros({n}, np.int64)
    pend_tag = np.zeros({n}, np.int64)
    pend_dirty = np.zeros({n}, np.int64)
    before = np.zeros({n}, np.int64)
    reach = np.zeros({n + 1}, np.int64)  # walks by the level they stopped at
    hits = np.zeros({n + 1}, np.int64)   # of which ended by a hit there (or at DRAM)
    nl = lens.shape[0] > 1
    nc = cus.shape[0] > 1
    no = ops.shape[0] > 1
    nf = firsts.shape[0] > 1
    nd = depth.shape[0] == addrs.shape[0] and addrs.shape[0] > 0
    last_u = np.int64(-1)
    last_cu = np.int64(-1)
    fetched = np.int64(0)  # units a fetching last level brought from DRAM
    pf_base = np.int64(-1)
    pf_line = np.int64(-1)
    pf_bits = np.int64(0)  # sectors the last miss fetched besides its own
    clk = clock[0]
    if clock[1] != 0:  # this call continues the previous one's stream (a window of one chunk)
        last_u = clock[2]
        last_cu = clock[3]
        pf_base = clock[4]
        pf_line = clock[5]
        pf_bits = clock[6]
    for i in range(addrs.shape[0]):
        ln = lens[i if nl else 0]
        cu = cus[i if nc else 0]
        op = ops[i if no else 0]
        first = firsts[i if nf else 0]
        if op != 0 or first != 0:
            last_u = -1
            stack[0, 0] = op
            stack[0, 1] = first
            stack[0, 2] = addrs[i]
            stack[0, 3] = ln
            clk = drain(sts, stats, dram, stack, 1, cu, clk, touch_lru)
            continue
        for u0 in range(addrs[i] >> {ub0}, ((addrs[i] + ln - 1) >> {ub0}) + 1):
            if u0 == last_u and cu == last_cu:
                hits[0] += 1  # the unit just loaded is still there and already most recent
                reach[0] += 1
                if nd and depth[i] < 0:
                    depth[i] = 0
                continue
            last_u = u0
            last_cu = cu
            a = u0 << {ub0}
            npend = 0
            stop = {n}
            shrink = False
            for _once in range(1):
{_ind(walk, 16)}            reach[stop] += 1
            if shrink:
                stack[0, 0] = 0
                stack[0, 1] = stop
                stack[0, 2] = a
                stack[0, 3] = units[stop - 1]
                for lv in range(stop, {n}):
                    before[lv] = stats[lv, 1]
                clk = drain(sts, stats, dram, stack, 1, cu, clk, touch_lru)
                for lv in range(stop, {n}):  # the fill went as deep as the last level that missed
                    if stats[lv, 1] > before[lv]:
                        stop = lv + 1
            if nd and stop > depth[i]:
                depth[i] = stop  # the farthest level one of the access's units came from
            if not shrink:
                hits[stop] += 1
{_ind(_pending(pend), 12) if wb else ""}    clock[0] = clk
    clock[2] = last_u
    clock[3] = last_cu
    clock[4] = pf_base
    clock[5] = pf_line
    clock[6] = pf_bits
    deeper = 0  # a walk that stopped at level e missed on every level above e
    for lvl in range({n - 1}, -1, -1):
        deeper += reach[lvl + 1]
        stats[lvl, 1] += deeper
        stats[lvl, 0] += hits[lvl]
    dram[0] += {"fetched" if levels[-1].fetch_bits else f"hits[{n}]"} * {1 << levels[-1].unit_bits}
"""


def _pending(dispatch: str) -> str:
    return f"""for p in range(npend - 1, -1, -1):
    lv = pend_lvl[p]
{_ind(dispatch, 4)}    clk = drain(sts, stats, dram, stack, sp, cu, clk, touch_lru)
"""


def source(levels: tuple[LevelGeometry, ...]) -> str:
    """The module text for one hierarchy (nearest level first)."""
    parts = [f'"""Cache replay kernels generated by analyzers.replay.cache_kernels (format {_VERSION}) for\n'
             f'{levels!r}\n"""\nimport numpy as np\nfrom numba import njit\n']
    for k, g in enumerate(levels):
        parts.append(_FIND.format(K=k, W=g.ways))
        if g.write_back:
            parts.append(_push_dirty(k, g))
        parts.append(_step(k, g))
    parts += [_drain(len(levels)), _run(levels)]
    return "".join(parts)


def kernel_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tracekit" / "cache-kernels"


def _write_once(path: Path, text: str) -> None:
    if path.exists() and path.read_text() == text:
        return  # an untouched file keeps its timestamp, so numba's cache stays valid
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def kernels(levels: tuple[LevelGeometry, ...]):
    """The compiled module for ``levels`` (generated, written and imported on first use)."""
    with _LOCK:
        mod = _LOADED.get(levels)
        if mod is not None:
            return mod
        text = source(levels)
        name = "k_" + hashlib.sha256(text.encode()).hexdigest()[:20]
        modname = f"tracekit_cache_kernel_{name}"
        path = None
        for folder in (kernel_dir(), Path(tempfile.gettempdir()) / f"tracekit-cache-kernels-{os.getuid()}"):
            try:  # no writable cache home: a private temporary folder
                _write_once(folder / f"{name}.py", text)
                path = folder / f"{name}.py"
                break
            except OSError:
                continue
        if path is None:  # nothing writable at all (full disk): compiled in memory, every run
            mod = types.ModuleType(modname)
            exec(compile(text.replace("cache=True", "cache=False"), f"<{modname}>", "exec"), mod.__dict__)
        else:
            spec = importlib.util.spec_from_file_location(modname, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[modname] = mod
            spec.loader.exec_module(mod)
        _LOADED[levels] = mod
        return mod
