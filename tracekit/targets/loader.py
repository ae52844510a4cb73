"""Load and check target TOML files into :class:`~tracekit.targets.model.Target`.

Strict on purpose: a target file is a model that every verdict depends on, so an
unknown key (usually a typo), a missing field, an impossible geometry or a number
without a citation is an error naming the file, the key and the rule, never a
silently defaulted value.  The schema itself lives in :mod:`.schema`.
"""

from __future__ import annotations

import copy
import math
import os
from functools import lru_cache
from pathlib import Path

from tracekit.errors import TargetError
from tracekit.files import check_input
from tracekit.targets import schema as S
from tracekit.targets.model import (
    CacheLevel,
    ConstantCacheSpec,
    DramSpec,
    IsaSpec,
    LaunchCosts,
    LocalMemorySpec,
    MathClass,
    OccupancySpec,
    PeakInput,
    SimdSpec,
    Target,
    TextureCacheLevel,
    TextureSpec,
)
from tracekit.trace.vocabulary import OPCLASSES, is_opclass

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TARGET_DIR = Path(__file__).resolve().parent


def list_targets() -> list[str]:
    """Names of the target files shipped with tracekit, sorted."""
    return sorted(p.stem for p in TARGET_DIR.glob("*.toml"))


def target_path(name: str) -> Path:
    """Path of a shipped target file; TargetError listing the known names if absent."""
    path = TARGET_DIR / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(list_targets())
        raise TargetError(f"unknown target '{name}'; known targets: {known}",
                          hint="pass a shipped name or the path of your own .toml file")
    return path


def _is_path(name_or_path: str | os.PathLike) -> bool:
    text = os.fspath(name_or_path)
    return isinstance(name_or_path, os.PathLike) or text.endswith(".toml") or os.sep in text or "/" in text


def target_file(name_or_path) -> Path | None:
    """The user's file that ``name_or_path`` names (what a command must not write over), or
    None for a shipped target's name."""
    if isinstance(name_or_path, str | os.PathLike) and _is_path(name_or_path):
        return Path(name_or_path)
    return None


def load_target(name_or_path: str | os.PathLike) -> Target:
    """A shipped target by name (``"powervr-g6400"``) or a user's TOML file by path."""
    from tracekit.arguments import check_path

    check_path("name_or_path", name_or_path)
    if _is_path(name_or_path):
        path = Path(name_or_path)
        if not os.path.lexists(path):
            raise TargetError("target file not found", path=str(path))
        check_input(path, kind="target .toml file", dirs=False)
    else:
        path = target_path(str(name_or_path))
    path = path.resolve()
    # a private copy: the cached Target holds dicts a caller could otherwise mutate
    return copy.deepcopy(_load_cached(str(path), path.stat().st_mtime_ns))


@lru_cache(maxsize=64)
def _load_cached(path: str, _mtime_ns: int) -> Target:
    with open(path, "rb") as fh:
        data = fh.read(S.FILE_MAX_BYTES + 1)
    if len(data) > S.FILE_MAX_BYTES:
        raise TargetError(f"is larger than {S.FILE_MAX_BYTES:,} bytes, the most a target file may hold",
                          path=path)
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TargetError(f"not valid TOML: {exc}", path=path) from None
    except RecursionError:
        raise TargetError(f"nests tables or lists too deeply (at most {S.NESTING_MAX} levels)",
                          path=path) from None
    _check_nesting(doc, path)
    return _Parser(path).target(doc)


def _number(v) -> str:
    """A bound or value as people write it: 268,435,456 for whole numbers, 1e+300 or 0.5 otherwise."""
    if float(v).is_integer() and abs(v) < 1e16:
        return f"{int(v):,}"
    return f"{v:g}"


def _check_nesting(doc: dict, path: str) -> None:
    """Refuse tables and lists nested deeper than any target needs (walked without recursion)."""
    stack = [(doc, 1, "")]
    while stack:
        node, depth, where = stack.pop()
        if depth > S.NESTING_MAX:
            raise TargetError(f"key '{where.lstrip('.')}': nested {depth} levels deep, more than the "
                              f"{S.NESTING_MAX} a target file may use", path=path)
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            if isinstance(v, (dict, list)):
                stack.append((v, depth + 1, f"{where}.{k}" if isinstance(node, dict) else f"{where}[{k}]"))


class _Parser:
    """Walks one parsed TOML document, checking as it goes and collecting citations."""

    def __init__(self, path: str):
        self.path = path
        self.sources: dict[str, str] = {}
        self.assumptions: dict[str, str] = {}
        self.unsupported: dict[str, str] = {}

    # -- errors -------------------------------------------------------------
    def fail(self, key: str, rule: str) -> TargetError:
        return TargetError(f"key '{key}': {rule}", path=self.path)

    def _unknown(self, table: dict, allowed, where: str) -> None:
        for k in table:
            if k not in allowed:
                key = f"{where}.{k}" if where else k
                raise self.fail(key, "unknown key; allowed here: " + ", ".join(sorted(allowed)))

    # -- values -------------------------------------------------------------
    def sourced(self, key: str, raw):
        """Unwrap ``{value, source|assumed}``; a bare number has no citation and is refused."""
        if not isinstance(raw, dict):
            raise self.fail(key, "a model value must carry its citation: write "
                                 "{ value = ..., source = \"<guide file> §<section>\" } "
                                 "or { value = ..., assumed = \"<why>\" }")
        self._unknown(raw, S.SOURCED_KEYS, key)
        if "value" not in raw:
            raise self.fail(key, "missing 'value' in the sourced value")
        src, why = raw.get("source"), raw.get("assumed")
        for name, text in (("source", src), ("assumed", why)):
            if text is not None and (not isinstance(text, str) or not text.strip()):
                raise self.fail(f"{key}.{name}", "must be a non-empty string")
        if src is None and why is None:
            raise self.fail(key, "every number needs a 'source' (citation) or an 'assumed' (reason)")
        self.sources[key] = src if src is not None else f"assumed: {why}"
        if why is not None:
            self.assumptions[key] = why
        return raw["value"]

    def typed(self, key: str, value, spec: S.Field):
        kind = spec.kind
        if kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind == "float":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            value = float(value) if ok else value
        elif kind == "bool":
            ok = isinstance(value, bool)
        elif kind == "str":
            ok = isinstance(value, str)
        else:  # int_list
            ok = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool)
                                                 for v in value)
            value = tuple(value) if ok else value
        if not ok:
            raise self.fail(key, f"must be of type {kind}, got {value!r}")
        if spec.choices and value not in spec.choices:
            raise self.fail(key, spec.rule)
        if spec.check is not None and not spec.check(value):
            raise self.fail(key, f"{spec.rule}, got {value!r}")
        self.in_bounds(key, value, spec)
        return value

    def in_bounds(self, key: str, value, spec: S.Field) -> None:
        """A number (or each of a list) within the plausible range of its key (schema.bounds)."""
        lo, hi = S.bounds(key.rsplit(".", 1)[-1], spec)
        for v in value if isinstance(value, tuple) else (value,):
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                span = f"from {_number(lo)} to {_number(hi)}" if lo is not None else f"at most {_number(hi)}"
                raise self.fail(key, f"must be {span}, got {_number(v)} (the range tracekit accepts for "
                                     "this key, docs/targets.md)")

    def section(self, table, fields: dict, where: str, label: str | None = None) -> dict:
        label = label or where
        if not isinstance(table, dict):
            raise self.fail(label, "must be a table")
        self._unknown(table, fields, label)
        out = {}
        for name, spec in fields.items():
            key = f"{label}.{name}" if label else name
            if name not in table:
                if spec.required:
                    raise self.fail(key, "required field is missing")
                continue
            out[name] = self.typed(key, self.sourced(key, table[name]), spec)
        return out

    # -- sections -----------------------------------------------------------
    def target(self, doc: dict) -> Target:
        known = set(S.IDENTITY) | set(S.TOP) | set(S.SECTIONS) | set(S.OPTIONAL_SECTIONS) | {
            "caches", "alu_cycles", "alu_cycles_fast_math", "issue_pipes", "peak_throughput", "math_classes",
            "assumptions", "rule_thresholds", "texture", "texture_caches", "isa", "ir_machine_factors",
            "constant_cache", "ir_role_factors", "atomics"}
        if "extra" in doc:
            raise self.fail("extra", "no longer read: its tables are typed sections now "
                                     "(simd.pack_slot_min_items, [alu_cycles_fast_math], [issue_pipes], "
                                     "[launch], [[peak_throughput]], [math_classes.NAME]); "
                                     "see docs/targets.md")
        self._unknown(doc, known, "")
        for k in S.IDENTITY:
            if not isinstance(doc.get(k), str) or not doc[k].strip():
                raise self.fail(k, "required string field is missing or empty")
        for k in list(S.SECTIONS) + ["caches", "alu_cycles"]:
            if k not in doc:
                raise self.fail(k, "required section is missing")
        top = self.section({k: v for k, v in doc.items() if k in S.TOP}, S.TOP, "")
        simd = self.simd(doc["simd"])
        caches = self.caches(doc["caches"])
        local = self.section(doc["local_memory"], S.LOCAL_MEMORY, "local_memory")
        dram = self.section(doc["dram"], S.DRAM, "dram")
        occ = self.occupancy(doc["occupancy"])
        alu = self.alu(doc["alu_cycles"])
        fast = self.prices(doc.get("alu_cycles_fast_math", {}), "alu_cycles_fast_math")
        pipes = self.pipes(doc.get("issue_pipes", {}))
        launch = self.section(doc.get("launch", {}), S.LAUNCH, "launch")
        peaks = self.peak_rows(doc.get("peak_throughput", []))
        math_classes = self.math_classes(doc.get("math_classes", {}))
        limits = self.rule_thresholds(doc.get("rule_thresholds", {}))
        texture = self.texture(doc.get("texture"), doc.get("texture_caches"), caches)
        constant = self.constant_cache(doc.get("constant_cache"), top.get("constant_loads", "caches"), caches,
                                       texture)
        isa = IsaSpec(**self.section(doc["isa"], S.ISA, "isa")) if "isa" in doc else None
        factors = self.section(doc.get("ir_machine_factors", {}), S.IR_MACHINE_FACTORS, "ir_machine_factors")
        role_factors = self.section(doc.get("ir_role_factors", {}), S.IR_ROLE_FACTORS, "ir_role_factors")
        atomics = self.section(doc["atomics"], S.ATOMICS, "atomics") if "atomics" in doc else {}
        self.free_assumptions(doc.get("assumptions", {}))
        self.cache_lines(top["compute_units"], caches, texture)
        return Target(
            name=doc["name"], vendor=doc["vendor"], family=doc["family"],
            description=doc["description"], simd=simd, caches=caches,
            local_memory=LocalMemorySpec(**local), dram=DramSpec(**dram),
            occupancy=OccupancySpec(**occ), alu_cycles=alu, alu_cycles_fast_math=fast, issue_pipes=pipes,
            launch=LaunchCosts(**launch), peak_throughput=peaks, math_classes=math_classes,
            rule_thresholds=limits, texture=texture, isa=isa, ir_machine_factors=factors,
            constant_cache=constant, ir_role_factors=role_factors, atomics=atomics,
            sources=self.sources, assumptions=self.assumptions, unsupported=self.unsupported, **top,
        )

    def cache_lines(self, units: int, caches, texture: TextureSpec | None) -> None:
        """Every level's lines over all its instances: the replay holds a tag for each."""
        levels = [(f"caches.{c.name}", units if c.scope == "compute_unit" else 1, c) for c in caches]
        levels += [(f"texture_caches.{c.name}", -(-units // c.compute_units_per_instance), c)
                   for c in (texture.caches if texture is not None else ())]
        total = sum(n * (c.size_bytes // c.line_bytes) for _, n, c in levels)
        if total > S.CACHE_LINES_MAX:
            key, n, c = max(levels, key=lambda x: x[1] * (x[2].size_bytes // x[2].line_bytes))
            raise self.fail(f"{key}.size_bytes",
                            f"the cache levels hold {total:,} lines over all their instances ({n:,} x "
                            f"{c.size_bytes:,} bytes / {c.line_bytes} here), more than the "
                            f"{S.CACHE_LINES_MAX:,} the replay keeps tags for (docs/targets.md)")

    def simd(self, table) -> SimdSpec:
        v = self.section(table, S.SIMD, "simd")
        widths = v.setdefault("widths", (v["width"],))
        if not widths or any(w <= 0 for w in widths) or v["width"] not in widths:
            raise self.fail("simd.widths", f"{S.SIMD['widths'].rule}, got {list(widths)}")
        pack = v.get("pack_small_groups_up_to", 0)
        if not 0 <= pack < v["width"]:
            raise self.fail("simd.pack_small_groups_up_to", f"{S.SIMD['pack_small_groups_up_to'].rule}, "
                                                            f"got {pack}")
        return SimdSpec(**v)

    def caches(self, raw) -> tuple[CacheLevel, ...]:
        if not isinstance(raw, list) or not raw:
            raise self.fail("caches", "must be a non-empty list of [[caches]] tables, nearest level first")
        out, seen = [], set()
        for i, table in enumerate(raw):
            if not isinstance(table, dict):
                raise self.fail(f"caches[{i}]", "must be a table")
            name = table.get("name")
            if not isinstance(name, str) or not name.strip():
                raise self.fail(f"caches[{i}].name", "required string field is missing or empty")
            if name in seen:
                raise self.fail(f"caches[{i}].name", f"duplicate cache name '{name}'")
            seen.add(name)
            label = f"caches.{name}"
            v = self.section({k: x for k, x in table.items() if k != "name"}, S.CACHE, label)
            line, size, ways = v["line_bytes"], v["size_bytes"], v["ways"]
            if size % line or (size // line) % ways:
                raise self.fail(f"{label}.ways", f"{S.CACHE['ways'].rule}: size_bytes {size}, "
                                                 f"line_bytes {line}, ways {ways}")
            if v.get("cost_unit") == "request" and not v.get("lines_per_cycle"):
                raise self.fail(f"{label}.lines_per_cycle",
                                "cost_unit = request needs lines_per_cycle (the distinct lines the tag stage "
                                "looks up per cycle)")
            sector = v.get("sector_bytes", 0)
            if sector < 0 or (sector and (sector & (sector - 1) or line % sector)):
                raise self.fail(f"{label}.sector_bytes", f"{S.CACHE['sector_bytes'].rule}, got {sector} "
                                                         f"with line_bytes {line}")
            fetch = v.get("fetch_bytes", 0)
            if fetch and (fetch < 0 or fetch & (fetch - 1) or not sector or fetch % sector or fetch > line
                          or i != len(raw) - 1):
                raise self.fail(f"{label}.fetch_bytes", f"{S.CACHE['fetch_bytes'].rule}; got {fetch} with "
                                                        f"sector_bytes {sector}, line_bytes {line}"
                                                        + ("" if i == len(raw) - 1 else
                                                           f", and '{name}' is not the last level"))
            out.append(CacheLevel(name=name, **v))
        return tuple(out)

    def constant_cache(self, table, path: str, caches: tuple[CacheLevel, ...],
                       texture: TextureSpec | None) -> ConstantCacheSpec | None:
        """``[constant_cache]``: required with ``constant_loads = "constant_cache"``, refused otherwise."""
        if path != "constant_cache":
            if table is not None:
                raise self.fail("constant_cache", 'a [constant_cache] section needs constant_loads = '
                                                  '"constant_cache"')
            return None
        if table is None:
            raise self.fail("constant_cache", 'constant_loads = "constant_cache" needs a [constant_cache] '
                                              'section')
        if texture is not None and texture.caches:
            raise self.fail("constant_cache", "a constant cache beside [[texture_caches]] is not modelled; "
                                              "give one of the two")
        v = self.section(table, S.CONSTANT_CACHE, "constant_cache")
        line, size, ways = v["line_bytes"], v["size_bytes"], v["ways"]
        if size % line or (size // line) % ways:
            raise self.fail("constant_cache.ways", f"{S.CONSTANT_CACHE['ways'].rule}: size_bytes {size}, "
                                                   f"line_bytes {line}, ways {ways}")
        names = [c.name for c in caches]
        if v["next"] not in names:
            raise self.fail("constant_cache.next", f"{S.CONSTANT_CACHE['next'].rule}; got '{v['next']}', "
                                                   f"levels: {', '.join(names)}")
        return ConstantCacheSpec(**v)

    def texture(self, table, levels, caches: tuple[CacheLevel, ...]) -> TextureSpec | None:
        """``[texture]`` and its ``[[texture_caches]]`` (both optional, but not one without the other)."""
        if table is None:
            if levels is not None:
                raise self.fail("texture_caches", "needs a [texture] section (tile_bytes, tile_rows)")
            return None
        v = self.section(table, S.TEXTURE, "texture")
        shared = v.get("shared_with", "")
        if shared and shared not in {c.name for c in caches}:
            raise self.fail("texture.shared_with", f"{S.TEXTURE['shared_with'].rule}; got '{shared}', "
                                                   f"levels: {', '.join(c.name for c in caches)}")
        if levels is None:
            levels = []
        if not isinstance(levels, list):
            raise self.fail("texture_caches", "must be a list of [[texture_caches]] tables, nearest first")
        if shared and levels:
            raise self.fail("texture_caches", f"texture.shared_with names the data cache '{shared}' as the "
                                              "texture cache: give no [[texture_caches]] as well")
        if not shared and not levels:
            raise self.fail("texture_caches", "give at least one [[texture_caches]] level, or "
                                              "texture.shared_with naming the data cache that serves images")
        out, seen = [], {c.name for c in caches}
        for i, lv in enumerate(levels):
            if not isinstance(lv, dict):
                raise self.fail(f"texture_caches[{i}]", "must be a table")
            name = lv.get("name")
            if not isinstance(name, str) or not name.strip():
                raise self.fail(f"texture_caches[{i}].name", "required string field is missing or empty")
            if name in seen:
                raise self.fail(f"texture_caches[{i}].name", f"duplicate cache name '{name}'")
            seen.add(name)
            label = f"texture_caches.{name}"
            c = self.section({k: x for k, x in lv.items() if k != "name"}, S.TEXTURE_CACHE, label)
            line, size, ways = c["line_bytes"], c["size_bytes"], c["ways"]
            if size % line or (size // line) % ways:
                raise self.fail(f"{label}.ways", f"{S.TEXTURE_CACHE['ways'].rule}: size_bytes {size}, "
                                                 f"line_bytes {line}, ways {ways}")
            out.append(TextureCacheLevel(name=name, **c))
        return TextureSpec(tile_bytes=v["tile_bytes"], tile_rows=v["tile_rows"], caches=tuple(out),
                           shared_with=shared)

    def occupancy(self, table) -> dict:
        v = self.section(table, S.OCCUPANCY, "occupancy")
        step, low = v.get("local_mem_alloc_step_bytes", 0), v.get("local_mem_alloc_min_bytes", 0)
        if step and low % step:
            raise self.fail("occupancy.local_mem_alloc_step_bytes",
                            f"{S.OCCUPANCY['local_mem_alloc_step_bytes'].rule}, got {step} and {low}")
        return v

    def alu(self, table) -> dict[str, float]:
        if not isinstance(table, dict):
            raise self.fail("alu_cycles", "must be a table")
        out = {}
        for k, raw in table.items():
            key = f"alu_cycles.{k}"
            if not (k == S.MATH_DEFAULT or is_opclass(k)):
                raise self.fail(key, "unknown key; must be a trace opclass "
                                     "(tracekit.trace.schema.OPCLASSES), "
                                     f"a math_<builtin> name or '{S.MATH_DEFAULT}'")
            if isinstance(raw, dict) and S.UNSUPPORTED in raw:
                self.unsupported[k] = self.unsupported_class(key, raw)
                continue
            out[k] = self.typed(key, self.sourced(key, raw), S.ALU_PRICE)
        if S.MATH_DEFAULT in self.unsupported:
            raise self.fail(f"alu_cycles.{S.MATH_DEFAULT}", "cannot be unsupported: it prices every "
                                                            "math builtin without its own entry")
        for k in (*OPCLASSES, S.MATH_DEFAULT):
            if k not in out and k not in self.unsupported:
                raise self.fail(f"alu_cycles.{k}", "required field is missing (alu_cycles must cover "
                                                   "every opclass and math_default, each with a price or "
                                                   "{ unsupported = true, source = ... })")
        return out

    def unsupported_class(self, key: str, raw: dict) -> str:
        """``{ unsupported = true, source|assumed = ... }``: a class the target cannot run.

        It carries a citation like any number and no ``value``; the citation is returned.
        """
        self._unknown(raw, S.UNSUPPORTED_KEYS, key)
        if raw[S.UNSUPPORTED] is not True:
            raise self.fail(f"{key}.{S.UNSUPPORTED}", "must be true (leave the key out and give a "
                                                      "value to price the class)")
        cited = {k: v for k, v in raw.items() if k != S.UNSUPPORTED}
        if not cited:
            raise self.fail(key, "an unsupported class needs a 'source' (citation) or an 'assumed' (reason)")
        self.sourced(key, dict(cited, value=None))
        return self.sources[key]

    def prices(self, table, where: str) -> dict[str, float]:
        """A table of instruction classes to sourced cycle prices (fast-math replacements)."""
        if not isinstance(table, dict):
            raise self.fail(where, "must be a table of opclass = { value, source }")
        out = {}
        for k, raw in table.items():
            key = f"{where}.{k}"
            if not (k == S.MATH_DEFAULT or is_opclass(k)):
                raise self.fail(key, "unknown key; must be a trace opclass or a math_<builtin> name")
            out[k] = self.typed(key, self.sourced(key, raw), S.ALU_PRICE)
        return out

    def pipes(self, table) -> dict[str, str]:
        """``opclass = { value = "pipe", source }``: the execution pipe each class issues to."""
        if not isinstance(table, dict):
            raise self.fail("issue_pipes", 'must be a table of opclass = { value = "pipe", source = ... }')
        out = {}
        for k, raw in table.items():
            key = f"issue_pipes.{k}"
            if not (k == S.MATH_DEFAULT or is_opclass(k)):
                raise self.fail(key, "unknown key; must be a trace opclass or a math_<builtin> name")
            out[k] = self.typed(key, self.sourced(key, raw), S.Field("str"))
            parts = out[k].split("|")
            if len(parts) > 2 or any(not p.strip() for p in parts):
                raise self.fail(key, f"must name one pipe, or two a compiler chooses between as 'a|b'; "
                                     f"got '{out[k]}'")
        return out

    def peak_rows(self, rows) -> tuple[PeakInput, ...]:
        if not isinstance(rows, list):
            raise self.fail("peak_throughput", "must be a list of [[peak_throughput]] tables")
        out = []
        for i, row in enumerate(rows):
            where = f"peak_throughput[{i}]"
            if not isinstance(row, dict):
                raise self.fail(where, "must be a table")
            self._unknown(row, S.PEAK_ROW, where)
            v = {}
            for name, spec in S.PEAK_ROW.items():
                if name not in row:
                    if spec.required:
                        raise self.fail(f"{where}.{name}", "required field is missing")
                    continue
                raw = row[name] if name in S.PEAK_TEXT else self.sourced(f"{where}.{name}", row[name])
                v[name] = self.typed(f"{where}.{name}", raw, spec)
            if v.get("opclass") and not is_opclass(v["opclass"]):
                raise self.fail(f"{where}.opclass", "must be a trace opclass")
            if v.get("opclass") and "ops_per_result" not in v:
                raise self.fail(f"{where}.ops_per_result", "a row naming an opclass needs ops_per_result")
            out.append(PeakInput(**v))
        return tuple(out)

    def math_classes(self, table) -> dict[str, MathClass]:
        if not isinstance(table, dict):
            raise self.fail("math_classes", "must be a table of [math_classes.NAME] tables")
        return {name: MathClass(**self.section(raw, S.MATH_CLASS, f"math_classes.{name}"))
                for name, raw in table.items()}

    def rule_thresholds(self, table) -> dict[str, float]:
        """``"RULE-ID.name" = number`` (or a sourced value): a rule's threshold for this target.
        Whether the rule and threshold exist is checked when the rules run."""
        if not isinstance(table, dict):
            raise self.fail("rule_thresholds", 'must be a table of "RULE-ID.threshold" = number')
        out = {}
        for k, raw in table.items():
            key = f"rule_thresholds.{k}"
            rid, dot, name = k.partition(".")
            if not dot or not rid or not name:
                raise self.fail(key, 'must be named "RULE-ID.threshold", e.g. "GEN-DIVERGENCE.utilization"')
            value = raw.get("value") if isinstance(raw, dict) else raw
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise self.fail(key, "must be a number")
            out[k] = float(value)
        return out

    def free_assumptions(self, table) -> None:
        if not isinstance(table, dict):
            raise self.fail("assumptions", "must be a table of topic = \"text\"")
        for k, v in table.items():
            if not isinstance(v, str) or not v.strip():
                raise self.fail(f"assumptions.{k}", "must be a non-empty string")
            self.assumptions[k] = v
