"""The dependency rule of docs/architecture.md, checked on every import in the source.

Layers go one way: a module may import its own package and the layers below it,
never a layer above, and no two modules may import each other, directly or
round a circle.  Imports inside functions count (they are still dependencies);
imports under ``if TYPE_CHECKING:`` do not (they exist only for annotations).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Package prefix -> layer, lowest first.  Packages on one layer may not import each other.
LAYERS = {
    "tracekit.errors": 0, "tracekit.files": 0,
    "tracekit.trace": 1,
    "tracekit.targets": 2, "tracekit.formats": 2,
    "tracekit.recorder": 3, "tracekit.progress": 3, "tracekit.isa": 3,
    "analyzers.geometry": 4,
    "analyzers.replay": 5,
    "analyzers": 6,
    "analyzers.rules": 7,
    "tracekit.report": 8, "tracekit.distributed": 8,
    "tracekit.pipeline": 9, "tracekit.calibration": 9,
    "tracekit.jobs": 10,
    "tracekit.cli": 11,
    "tracekit": 0,   # the package itself: only lazy names (strings), version and errors
}


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in ("tracekit", "analyzers"):
        for f in (ROOT / pkg).rglob("*.py"):
            parts = list(f.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = f
    return out


MODULES = _modules()


def group(module: str) -> str:
    """The layer entry a module belongs to (the longest matching prefix)."""
    best = ""
    for prefix in LAYERS:
        if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
            best = prefix
    return best


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def imports(module: str) -> set[str]:
    """Project modules ``module`` imports.

    ``from package import name`` counts as an import of the submodule ``package.name``
    when there is one, else of the package.  The parent packages Python initialises
    on the way are not counted: they are containers, and their ``__init__`` is checked
    as a module of its own.
    """
    tree = ast.parse(MODULES[module].read_text())
    found: set[str] = set()

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.orelse:
                    visit(sub)
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                for a in child.names:
                    sub = f"{child.module}.{a.name}"
                    found.add(sub if sub in MODULES else child.module)
            visit(child)

    visit(tree)
    return {m for m in found if m in MODULES and m != module}


GRAPH = {m: imports(m) for m in MODULES}


def test_every_module_has_a_layer():
    missing = sorted(m for m in MODULES if not group(m))
    assert not missing, f"modules outside every layer: {missing}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_upward_or_sideways_import(module):
    g = group(module)
    bad = []
    for dep in sorted(GRAPH[module]):
        h = group(dep)
        if h == g or g.startswith(h + ".") or h == "tracekit.errors":
            continue   # own package, an enclosing package, or the error types everyone raises
        if LAYERS[h] >= LAYERS[g]:
            bad.append(f"{dep} (layer {LAYERS[h]} '{h}')")
    assert not bad, f"{module} (layer {LAYERS[g]} '{g}') imports upward or sideways: {', '.join(bad)}"


def test_no_import_circles():
    """Tarjan's strongly connected components: every component must be a single module."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    import sys
    sys.setrecursionlimit(10000)
    for v in sorted(GRAPH):
        if v not in index:
            strong(v)
    assert not out, f"import circles: {out}"


def test_the_rule_catches_an_upward_import(tmp_path):
    """The check itself can fail: a model module importing the report layer is flagged."""
    assert LAYERS[group("analyzers.replay.memory")] < LAYERS[group("tracekit.report.build")]
    assert group("analyzers.rules.base") == "analyzers.rules"
    assert group("tracekit.trace.reader") == "tracekit.trace"


ENGINE = "analyzers.replay"


def _outside_users_of_engine_modules() -> dict[str, list[str]]:
    return {m: sorted(d for d in deps if d.startswith(ENGINE + "."))
            for m, deps in GRAPH.items() if not (m == ENGINE or m.startswith(ENGINE + "."))
            and any(d.startswith(ENGINE + ".") for d in deps)}


def test_the_replay_engine_is_used_through_its_package():
    """Outside analyzers/replay, code names the engine's public interface (``from analyzers.replay
    import ...``), never one of its modules: they can be split or merged without touching callers."""
    bad = _outside_users_of_engine_modules()
    assert not bad, f"modules reaching inside the replay engine: {bad}"


def test_every_public_engine_name_resolves():
    import analyzers.replay as engine
    for name in engine.__all__:
        assert getattr(engine, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        engine.nothing  # noqa: B018


def test_the_engine_imports_no_analysis_above_it():
    """The engine sits below the execution models, the verdict and the rules: of the analyzers, it
    may import only the launch geometry."""
    for m, deps in GRAPH.items():
        if m.startswith(ENGINE + "."):
            above = sorted(d for d in deps if d.startswith("analyzers") and not d.startswith(ENGINE)
                           and d != "analyzers.geometry")
            assert not above, f"{m} imports {above}"
