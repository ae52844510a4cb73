"""Real kernels recorded once per test session, for rules that need what a synthetic trace lacks.

The image rules read the texture path (texel coordinates, image formats, samplers)
and the machine-code rules read Intel's compiled code; both come only from a real
recording: ``tracekit record`` runs the kernel on Oclgrind and, for the Intel
targets, builds it with ocloc.  :func:`recorded` records a kernel of
``tests/data`` into a session folder (once per distinct command);
:class:`Recorded` wraps a trace path in the ``.trace()`` interface the rule cases
use (``rules_helpers.fired``).  Machine-code cases skip with the reason when ocloc
or iga64 is missing.
"""

from __future__ import annotations

import atexit
import hashlib
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_traces"
_DIR = None


def _folder() -> Path:
    global _DIR
    if _DIR is None:
        _DIR = Path(tempfile.mkdtemp(prefix="tracekit-recorded-"))
        atexit.register(shutil.rmtree, _DIR, ignore_errors=True)
    return _DIR


def needs_isa() -> None:
    """Skip the calling test when Intel's offline compiler or disassembler is missing."""
    from tracekit.isa import tools_available
    if not tools_available():
        pytest.skip("ocloc/iga64 not installed (Makefile ISA_DEBS: intel-opencl-icd libigc-tools)")


@cache
def recorded(source: str, kernel: str, global_size: str, local_size: str, args: tuple[str, ...],
             defines: tuple[str, ...] = ()) -> Path:
    """The trace of ``kernel`` in ``source`` (relative to the repository) recorded with these sizes and
    arguments."""
    spec = repr((source, kernel, global_size, local_size, args, defines))
    key = hashlib.sha1(spec.encode()).hexdigest()[:10]
    out = _folder() / f"{kernel}-{key}.tkt"     # one file per distinct recording
    cmd = [sys.executable, "-m", "tracekit.cli", "record", str(ROOT / source), "--kernel", kernel,
           "--global", global_size, "--local", local_size, "-o", str(out), "-q"]
    for d in defines:
        cmd += ["-D", d]
    for a in args:
        cmd += ["--arg", a]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, f"recording {kernel} failed:\n{run.stderr}"
    return out


class Recorded:
    """A recorded trace as a rule case: ``.trace()`` opens it (a sample trace or a recording)."""

    def __init__(self, make, isa: bool = False):
        self._make = make
        self._isa = isa

    def trace(self):
        from tracekit.formats import open_trace
        if self._isa:
            needs_isa()
        path = self._make() if callable(self._make) else self._make
        return open_trace(path)


def sample(name: str) -> Recorded:
    return Recorded(SAMPLES / f"{name}.tkt")


# -- the kernels ---------------------------------------------------------------------------------

def column_read() -> Path:
    """1-D work-groups reading an image down its columns (tests/data/images/walks.cl)."""
    return recorded("tests/data/images/walks.cl", "column_read", "128,128", "64,1",
                    ("img:r:float:128,128=rand:3", "float[16384]"))


def vertical_sum() -> Path:
    """Each work-item sums eight rows of its own column of a read-only buffer."""
    return recorded("tests/data/images/walks.cl", "vertical_sum", "64,64", "16,16",
                    ("float[5120]=rand:3", "float[4096]", "int:64"))


def conv_image(channel_type: str) -> Path:
    """The sample 3x3 convolution through an image of another channel type."""
    return recorded("sample_traces/kernels/conv2d.cl", "conv3x3_image", "64,64", "16,16",
                    (f"img:r:{channel_type}:64,64=rand:16", f"img:r:{channel_type}:64,64"))


def pressure(kernel: str, live: int) -> Path:
    """tests/data/isa/pressure.cl: ``heavy`` keeps ``live`` floats live, ``light`` a few."""
    return recorded("tests/data/isa/pressure.cl", kernel, "256", "32",
                    ("float[2048]=rand", "float[256]", "int:2"), (f"LIVE={live}",))


def scale_rows(kernel: str) -> Path:
    """tests/data/isa/loops.cl: a loop over consecutive floats (``scale_rows``) or float4s."""
    elem = "float4[4096]" if kernel.endswith("4") else "float[16384]"
    return recorded("tests/data/isa/loops.cl", kernel, "1024", "64", (f"{elem}=rand", elem))


def gather(bits: int) -> Path:
    """tests/data/isa/index64.cl: a strided gather indexed with size_t (64) or uint (32)."""
    t = "ulong" if bits == 64 else "uint"
    return recorded("tests/data/isa/index64.cl", f"gather{bits}", "1024", "64",
                    ("float[1024]=rand", "float[1024]", f"{t}:1024", f"{t}:7"))


def gemm_tile() -> Path:
    """tests/data/isa/gemm.cl: a register-blocked GEMM (16 x 16 floats per work-item) that spills on
    Intel, and whose ``-g`` build compiles to other code, so its machine code maps to no source line."""
    return recorded("tests/data/isa/gemm.cl", "gemm_tile", "2,2", "2,2",
                    ("float[1024]=rand", "float[1024]=rand:1", "float[1024]", "int:32", "int:32", "int:32"))


def interpolation(kernel: str) -> Path:
    """tests/data/images: ``bilinear`` weights a 2x2 block of a float buffer by the coordinate's
    fraction, ``box`` averages the same block with constant weights (box2x2.cl)."""
    source = "bilinear.cl" if kernel == "bilinear" else "box2x2.cl"
    args = ("float[16384]=rand", "float[4096]", "int:128") + (("float:0.9",) if kernel == "bilinear" else ())
    return recorded(f"tests/data/images/{source}", kernel, "64,64", "16,8", args)


def gather_index(span: int = 65536) -> Path:
    """tests/data/kernels/gather_index.cl: 4096 items each reading a random element among the first
    ``span`` of 64 Ki floats (a small span: the same elements gathered again and again)."""
    return recorded("tests/data/kernels/gather_index.cl", "gather_index", "4096", "64",
                    (f"int[4096]=rand:7:0:{span}", "float[65536]=rand", "float[4096]"))


def triangular_local() -> Path:
    """tests/data/kernels/triangular_local.cl: two loops over a local tile whose lanes join late
    (``i < lid``) or leave early (``i > lid``): 4 work-groups of 16 items."""
    return recorded("tests/data/kernels/triangular_local.cl", "triangular_local", "64", "16",
                    ("float[1024]=rand", "float[64]"))


def rodinia_nw() -> Path:
    """Rodinia's Needleman-Wunsch block kernel (tests/data/isa_corpus/rodinia/nw_nw.cl, Rodinia 3.1,
    licence beside it) on a 65 x 65 score matrix: the fourth anti-diagonal of 16 x 16 blocks
    (4 work-groups of 16 items)."""
    return recorded("tests/data/isa_corpus/rodinia/nw_nw.cl", "nw_kernel1", "64", "16",
                    ("int[4225]=rand:5:0:10", "int[4225]=rand:6:0:10", "int[4225]", "local:int[289]",
                     "local:int[256]", "int:65", "int:10", "int:4", "int:4", "int:64", "int:0", "int:0"),
                    ("BLOCK_SIZE=16",))


def table_lookup() -> Path:
    """tests/data/kernels/table_lookup.cl: 4,096 items each looking up 16 random bytes in a 256-float
    table."""
    return recorded("tests/data/kernels/table_lookup.cl", "table_lookup", "4096", "64",
                    ("uchar[65536]=rand:3:0:256", "float[256]=rand", "float[4096]"))
