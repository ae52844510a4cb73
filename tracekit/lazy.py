"""Package attributes imported on first use, so importing a package stays cheap.

A package lists its public names with the module that defines each; reading one of
them imports that module then (and keeps the value), so ``import tracekit`` or a small
submodule does not pull in pyarrow, pandas or the recorder.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_attributes(package: str, table: dict[str, str],
                    namespace: dict) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` whose names ``table`` maps to modules."""
    def __getattr__(name: str):
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *table])

    return __getattr__, __dir__
