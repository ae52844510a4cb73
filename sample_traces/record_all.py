"""Re-record every sample trace from the kernels in sample_traces/kernels/.

Run with ``make samples`` (or ``.venv/bin/python sample_traces/record_all.py
[NAME ...]``).  Sizes are kept small so all traces together stay under 20 MB;
the script checks that budget and fails if it is exceeded.

The script works from the repository root and passes repository-relative kernel
paths (``sample_traces/kernels/vector_add.cl``): the recorder stores a kernel path
as it is given, so the traces name their source files the same way on any clone.

Launches too big to record whole (the memory-bound baselines need a grid large
enough to fill a big GPU) record a seeded random sample of their work-groups;
the launch metadata carries the scale from the sample to the full grid.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
HERE = Path("sample_traces")        # relative to ROOT, the working directory while recording
KERNELS = HERE / "kernels"

from tracekit.recorder import record_kernel  # noqa: E402

BUDGET_BYTES = 20 * 1024 * 1024


@dataclass
class Sample:
    name: str
    file: str
    kernel: str
    global_size: str
    local_size: str
    args: list[str]
    options: str = ""
    notes: str = ""
    sample: str = "all"
    extra: dict = field(default_factory=dict)


N = 4096
#: Full-grid sizes of the sampled launches, of which 64 random work-groups of 256 items are
#: recorded (16 for the strided copy).  The memory-bound baselines need a grid that keeps every
#: compute unit of the largest target busy and whose data is far larger than its last-level
#: cache (60 MiB on nvidia-h200): 16M items, 192 MiB, for the vector add; the strided copy
#: reads 16x its grid, so 1M items give it a 64 MiB input.  Work-groups of 256 items (the
#: largest every target accepts) keep the per-work-group start-up cost small against the work
#: each one does.  The FMA chain needs enough waves per scheduler to cover its dependent FMAs:
#: 256K items.
BIG, BIG_STRIDED, FMA_ITEMS, GROUP, SAMPLED = 1 << 24, 1 << 20, 1 << 18, "256", "random:64:1"
#: Side of the demo's matrix (Makefile DEMO_TRACE).
DEMO_N = 2048
SAMPLES = [
    Sample("vector_add", "vector_add.cl", "vector_add", f"{BIG}", GROUP,
           [f"float[{BIG}]=rand:1", f"float[{BIG}]=range", f"float[{BIG}]", f"int:{BIG}"],
           sample=SAMPLED),
    # 16 groups: its work-groups all behave alike, and 256 KiB of recorded strided loads stay
    # inside intel-hd530's 384 KiB L3; with 64 the L3's late write-backs of the output reach the LLC,
    # which the block sampler's one-block warm-up (analyzers/replay/sampling.py) does not see.
    Sample("strided_copy", "strided_copy.cl", "strided_copy", f"{BIG_STRIDED}", GROUP,
           [f"float[{BIG_STRIDED * 16}]", f"float[{BIG_STRIDED}]", "int:16"], sample="random:16:1"),
    Sample("transpose_naive", "transpose.cl", "transpose_naive", "64,64", "16,16",
           ["float[4096]=range", "float[4096]", "int:64", "int:64"]),
    Sample("transpose_tiled", "transpose.cl", "transpose_tiled", "64,64", "16,16",
           ["float[4096]=range", "float[4096]", "int:64", "int:64"]),
    Sample("transpose_tiled_padded", "transpose.cl", "transpose_tiled_padded", "64,64", "16,16",
           ["float[4096]=range", "float[4096]", "int:64", "int:64"]),
    # The demo's trace: the tiled transpose on a 2048 x 2048 matrix (16 MiB in, 16 MiB out), big
    # enough that moving the data, not the launch, takes the time on every target; 64 of its
    # 16384 work-groups are kept, as a seeded random sample.
    Sample("transpose_tiled_2048", "transpose.cl", "transpose_tiled", f"{DEMO_N},{DEMO_N}", "16,16",
           [f"float[{DEMO_N * DEMO_N}]=range", f"float[{DEMO_N * DEMO_N}]", f"int:{DEMO_N}", f"int:{DEMO_N}"],
           sample=SAMPLED),
    Sample("reduction", "reduction.cl", "reduce_sum", f"{N}", "128",
           [f"float[{N}]=rand:2", f"float[{N // 128}]", "local:float[128]"]),
    Sample("divergent_branch", "divergent_branch.cl", "divergent_branch", f"{N}", "64",
           [f"float[{N}]=rand:3", f"float[{N}]"]),
    Sample("int_division", "int_division.cl", "int_division", f"{N}", "64",
           [f"int[{N}]=rand:4:0:1000000", f"int[{N}]=rand:5:1:1000", f"int[{N}]"]),
    Sample("math_precise", "float_math.cl", "math_precise", f"{N}", "64",
           [f"float[{N}]=rand:6:0:4", f"float[{N}]"]),
    Sample("math_native", "float_math.cl", "math_native", f"{N}", "64",
           [f"float[{N}]=rand:6:0:4", f"float[{N}]"]),
    Sample("matmul_naive", "matmul.cl", "matmul_naive", "64,64", "16,16",
           ["float[4096]=rand:8", "float[4096]=rand:9", "float[4096]", "int:64"]),
    Sample("matmul_tiled", "matmul.cl", "matmul_tiled", "64,64", "16,16",
           ["float[4096]=rand:8", "float[4096]=rand:9", "float[4096]", "int:64"]),
    Sample("too_small_grid", "too_small_grid.cl", "saxpy", "64", "64",
           ["float:2.0", "float[64]=rand:10", "float[64]=rand:11"]),
    Sample("box_filter_8x8", "box_filter.cl", "box_filter_8x8", "64,64", "8,8",
           ["float[4096]=rand:12", "float[4096]", "int:64", "int:64"]),
    Sample("fma_chain", "fma_chain.cl", "fma_chain", f"{FMA_ITEMS}", GROUP,
           [f"float[{FMA_ITEMS}]=rand:13", f"float[{FMA_ITEMS}]"], options="-DCHAIN=128", sample=SAMPLED),
    # One work-group of 16: 16 dependent chains, too few to cover DRAM latency on any target.
    # Each step of a chain misses to a whole cache line, so 32 chains already keep the slowest
    # target's DRAM (powervr-g6400, 128-byte lines over 12.8 GB/s) busy for ~70 % of the run.
    Sample("pointer_chase", "pointer_chase.cl", "pointer_chase", "16", "16",
           ["int[1048576]=rand:14:0:1048576", "int[16]", "int:256"]),
    Sample("one_lane_branch", "lane_branch.cl", "one_lane_branch", f"{N}", "64",
           [f"float[{N}]=rand:15", f"float[{N}]"], options="-DWORK=64"),
    Sample("all_lanes_branch", "lane_branch.cl", "all_lanes_branch", f"{N}", "64",
           [f"float[{N}]=rand:15", f"float[{N}]"], options="-DWORK=64"),
    # The same 3x3 convolution and bilinear resize through buffers and through images (the
    # texture path): 64 x 64 pixels in groups of 16 x 16; the resize goes from 64 x 64 to 96 x 96.
    Sample("conv3x3_buffer", "conv2d.cl", "conv3x3_buffer", "64,64", "16,16",
           ["float[4096]=rand:16", "float[4096]", "int:64", "int:64"]),
    Sample("conv3x3_image", "conv2d.cl", "conv3x3_image", "64,64", "16,16",
           ["img:r:float:64,64=rand:16", "img:r:float:64,64"]),
    Sample("resize_bilinear_buffer", "resize.cl", "resize_bilinear_buffer", "96,96", "16,16",
           ["float[4096]=rand:17", "float[9216]", "int:64", "int:64", "int:96", "int:96"]),
    Sample("resize_bilinear_image", "resize.cl", "resize_bilinear_image", "96,96", "16,16",
           ["img:r:float:64,64=rand:17", "img:r:float:96,96"]),
]


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(names: list[str]) -> int:
    chosen = [s for s in SAMPLES if not names or s.name in names]
    unknown = set(names) - {s.name for s in SAMPLES}
    if unknown:
        print(f"unknown sample(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    os.chdir(ROOT)
    for s in chosen:
        t0 = time.perf_counter()
        out = HERE / f"{s.name}.tkt"
        r = record_kernel(KERNELS / s.file, s.kernel, global_size=s.global_size,
                          local_size=s.local_size, args=s.args, out=out, build_options=s.options,
                          sample=s.sample)
        status = ",".join(sorted({st for _, st in r.launches}))
        print(f"{s.name:24s} {r.accesses:>9,} accesses {du(out):>10,} bytes "
              f"{time.perf_counter() - t0:5.1f} s  {status}")
    total = sum(du(p) for p in HERE.glob("*.tkt"))
    print(f"total {total:,} bytes (budget {BUDGET_BYTES:,})")
    if total > BUDGET_BYTES:
        print("sample traces exceed the 20 MB budget", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
