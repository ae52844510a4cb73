"""Record ArchProbe's probes (probes.cl) at the sizes of its Adreno 640 run on a Pixel 4.

    .venv/bin/python tests/data/mobile/archprobe/record.py [--groups 4] [-o adreno640.tkt] [--only PROBE]

One trace holds every launch, labelled with its probe and swept value (see
../recording.py); adreno640_measured.csv holds the device's numbers for the same
points.  The pointer chases are one work-item and are recorded whole; the other
probes keep their first ``--groups`` work-groups.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import recording  # noqa: E402

KERNELS = HERE / "probes.cl"

GROUP = 1024  # ArchProbe's LogicThreadCount on the Pixel 4 (CL_DEVICE_MAX_WORK_GROUP_SIZE)
SMS = 2  # ArchProbe's SmCount on the Pixel 4
READS = 64  # 16 unrolled reads x 4 loop turns per work-item in the bandwidth probes
VEC = 16  # bytes of one float4 / int4 element

# Buffer chase: a 512 KiB buffer of int4, 65536 steps (ArchProbe's NITER for it).
CHASE_BUF_VECS, CHASE_BUF_STEPS = 32768, 65536
CHASE_BUF_RANGES = [1024, 4096, 16384, 65536, 98304, 120832, 126976, 131072, 133120, 135168]
# Image chase: a 16384-texel image of int4 (256 KiB), 32768 steps.
CHASE_IMG_TEXELS, CHASE_IMG_STEPS = 16384, 32768
CHASE_IMG_RANGES = [256, 512, 2048, 8192, 32768, 98304, 131072, 163840, 196608, 262144]


def _doubling(first: int, below: int) -> list[int]:
    out, r = [], first
    while r < below:
        out.append(r)
        r *= 2
    return out


def cases() -> list[dict]:
    """Every probe launch: probe name, x (the swept parameter), kernel, grid (groups), block, args."""
    out: list[dict] = []

    def add(probe, x, kernel, groups, block, args, defines=(), unit="GB/s", count=None):
        if count is None:  # the bandwidth probes: 64 reads of 16 bytes per work-item
            count = groups * block * READS * VEC
        out.append({"probe": probe, "x": x, "kernel": kernel, "grid": (groups, 1), "block": (block, 1),
                    "args": list(args), "defines": list(defines), "unit": unit, "count": count})

    for r in CHASE_BUF_RANGES:
        add("buffer_chase", r, "buf_pchase", 1, 1,
            [f"int4[{CHASE_BUF_VECS}]=@{{chase_buf_{r}}}", "int[1]", f"int:{CHASE_BUF_STEPS}"],
            unit="ns/step", count=CHASE_BUF_STEPS)
    for r in CHASE_IMG_RANGES:
        add("image_chase", r, "img_pchase", 1, 1,
            [f"img:rgba:int32:{CHASE_IMG_TEXELS}=@{{chase_img_{r}}}", "int[1]", f"int:{CHASE_IMG_STEPS}"],
            unit="ns/step", count=CHASE_IMG_STEPS)
    # Buffer and image bandwidth: 128 MiB of float4 / 64 reads per item, times SmCount x 4.
    items = (128 << 20) // VEC // READS * SMS * 4
    for r in _doubling(VEC, 128 << 20):
        add("buffer_bandwidth", r, "buf_bandwidth", items // GROUP, GROUP,
            [f"float4[{(128 << 20) // VEC}]", f"float4[{GROUP}]", "int:4", f"int:{r // VEC - 1}"])
    for r in _doubling(VEC, 256 << 10 + 1):  # the image is 16384 texels: ranges past it are clamped reads
        add("image_bandwidth", r, "img_bandwidth", items // GROUP, GROUP,
            ["img:rgba:float:16384", f"float4[{GROUP}]", "int:4", f"int:{r // VEC - 1}"])
    # Constant memory: a buffer of the range's size, 4096 x SmCount x 16 work-items.
    for r in _doubling(VEC, 64 << 10):
        add("constant_bandwidth", r, "const_bandwidth", (64 << 10) // VEC * SMS * 16 // GROUP, GROUP,
            [f"float4[{r // VEC}]", f"float4[{GROUP}]", "int:4", f"int:{r // VEC - 1}"])
    # Local memory: 2048 x SmCount x 16 work-items.  ArchProbe declares the array at the
    # range's size and still lets every work-item store one element; here the array has
    # at least one element per work-item so those stores stay in bounds (the reads, which
    # the probe times, are unchanged).
    for r in _doubling(VEC, 32 << 10):
        add("local_bandwidth", r, "local_bandwidth", (32 << 10) // VEC * SMS * 16 // GROUP, GROUP,
            [f"float4[{GROUP}]", "int:4", f"int:{r // VEC - 1}"],
            defines=[f"LOCAL_VECS={max(r // VEC, GROUP)}"])
    # Peak FP32 arithmetic: 1024 x (SmCount x 64) work-items, 100 loop turns.
    for n in (1, 2, 4, 8, 16):
        vt = "float" if n == 1 else f"float{n}"
        add("gflops_fp32", n, "gflops", SMS * 64, GROUP, ["float[1]", "int:100"],
            defines=[f"NCOMP={n}", f"VTYPE={vt}"], unit="GFLOPS", count=SMS * 64 * GROUP * 100 * 4 * 256)
    return out


def chase_data(tmp: Path) -> dict[str, str]:
    """The chase arrays: element i of the first n names element (i + 1) mod n (ArchProbe's stride of one)."""
    paths = {}
    chases = (("buf", CHASE_BUF_VECS, CHASE_BUF_RANGES), ("img", CHASE_IMG_TEXELS, CHASE_IMG_RANGES))
    for kind, total, ranges in chases:
        for r in ranges:
            n = r // VEC
            a = np.zeros((total, 4), np.int32)
            a[:n, 0] = (np.arange(n) + 1) % n
            p = tmp / f"chase_{kind}_{r}.npy"
            np.save(p, a.reshape(-1))
            paths[f"chase_{kind}_{r}"] = str(p)
    return paths


def main() -> None:
    recording.main(__doc__, cases, KERNELS, HERE / "adreno640.tkt", data=chase_data)


if __name__ == "__main__":
    main()
