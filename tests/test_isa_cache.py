"""ocloc builds are kept per (source, device, options, ocloc): recording a kernel again builds nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tracekit.isa import compile_source, tools

KERNEL = Path(__file__).resolve().parents[1] / "sample_traces" / "kernels" / "vector_add.cl"


def _listing(kernels) -> list[tuple]:
    return [(k.kernel, k.simd_width, k.grf_count, k.instructions["text"].tolist()) for k in kernels]


def test_second_build_comes_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = KERNEL.read_text()
    first = compile_source(source, "skl", "9", source_name="vector_add.cl")
    kept = sorted((tmp_path / "cache" / "tracekit" / "ocloc").iterdir())
    assert len(kept) == 2  # the zebin build and the -g build

    real_run = subprocess.run

    def no_ocloc_compile(cmd, *args, **kwargs):
        assert not (Path(cmd[0]).name == "ocloc" and cmd[1] == "compile"), "ocloc ran again"
        return real_run(cmd, *args, **kwargs)

    monkeypatch.setattr(tools.subprocess, "run", no_ocloc_compile)
    again = compile_source(source, "skl", "9", source_name="vector_add.cl")
    assert _listing(again) == _listing(first)
    with pytest.raises(AssertionError, match="ocloc ran again"):  # other options are another build
        compile_source(source, "skl", "9", options="-cl-fast-relaxed-math", source_name="vector_add.cl")
    with pytest.raises(AssertionError, match="ocloc ran again"):  # so is another source
        compile_source(source + "\n// changed\n", "skl", "9", source_name="vector_add.cl")


def test_unwritable_cache_only_costs_the_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    kernels = compile_source(KERNEL.read_text(), "skl", "9", source_name="vector_add.cl")
    assert [k.kernel for k in kernels] == ["vector_add"]
