"""Every corpus kernel (public benchmarks, tests/data/isa_corpus/) builds and parses cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from tracekit.isa import compile_source
from tracekit.isa.classes import GROUPS, SEND_KINDS

CORPUS = Path(__file__).resolve().parent / "data" / "isa_corpus"
MANIFEST = tomllib.loads((CORPUS / "corpus.toml").read_text())["kernels"]


def test_corpus_is_large_enough_and_listed():
    files = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/*.cl"))
    assert files == sorted(MANIFEST) and len(files) >= 20


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_corpus_kernel_builds_and_every_instruction_is_labelled(name):
    kernels = compile_source((CORPUS / name).read_text(errors="replace"), "skl", "9",
                             options=MANIFEST[name].get("options", ""), source_name=name)
    assert kernels
    for k in kernels:
        ins = k.instructions
        assert k.simd_width in (8, 16, 32) and k.grf_count == 128
        assert set(ins["group"]) <= set(GROUPS) and "other" not in set(ins["group"])
        sends = ins[ins["group"] == "send"]
        assert set(sends["send_kind"]) <= set(SEND_KINDS) - {"other"}
        assert (sends["send_kind"] == "eot").sum() >= 1      # every thread ends with one
        assert ins["pc"].is_monotonic_increasing
        if k.line_mapping == "source_line":
            assert ins["line"].notna().mean() > 0.9
