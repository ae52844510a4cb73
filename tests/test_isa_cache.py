"""ocloc builds and the kernels described from them are kept: a kernel recorded again is not built again."""

from __future__ import annotations

import shutil
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
    shutil.rmtree(tmp_path / "cache" / "tracekit" / "isa")  # describe again, from the kept builds

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


def test_described_kernels_are_read_back_without_running_a_tool(tmp_path, monkeypatch):
    """The second description of a build comes from the kept table: neither ocloc nor iga64 runs,
    and every field and instruction is what the first description said."""
    from tracekit.isa import compile as isa_compile
    from tracekit.isa import described

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = KERNEL.read_text()
    first = compile_source(source, "icllp", "11", source_name="vector_add.cl")
    kept = sorted((tmp_path / "cache" / "tracekit" / "isa").iterdir())
    assert [p.suffix for p in kept] == [".arrow"]

    def no_tool(cmd, *args, **kwargs):
        raise AssertionError(f"{Path(cmd[0]).name} ran")

    monkeypatch.setattr(tools.subprocess, "run", no_tool)
    monkeypatch.setattr(isa_compile.subprocess, "run", no_tool)
    again = compile_source(source, "icllp", "11", source_name="vector_add.cl")
    assert [k.summary() for k in again] == [k.summary() for k in first]
    assert [k.listing for k in again] == [k.listing for k in first]
    assert again[0].instructions.equals(first[0].instructions)
    for other in ({"options": "-cl-mad-enable"}, {"kernels": ["vector_add"]}, {"source_name": "va.cl"}):
        with pytest.raises(AssertionError, match="ran"):  # each is another description
            compile_source(source, "icllp", "11", **{"source_name": "vector_add.cl", **other})
    key = described.entry(source, "icllp", "11", "", "vector_add.cl", None)
    assert key == kept[0]
    monkeypatch.setattr(described, "_DESCRIBING", described._DESCRIBING[:-1])
    assert described.entry(source, "icllp", "11", "", "vector_add.cl", None) != key  # the code is in the key


def test_a_damaged_kept_description_is_described_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = KERNEL.read_text()
    first = compile_source(source, "skl", "9", source_name="vector_add.cl")
    (kept,) = (tmp_path / "cache" / "tracekit" / "isa").iterdir()
    kept.write_bytes(kept.read_bytes()[:100])
    again = compile_source(source, "skl", "9", source_name="vector_add.cl")
    assert _listing(again) == _listing(first)
    assert len(kept.read_bytes()) > 100  # written afresh
