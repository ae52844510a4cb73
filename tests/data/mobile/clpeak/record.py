"""Record clpeak's probes (probes.cl) at the sizes of its run on an Intel HD Graphics 530.

    .venv/bin/python tests/data/mobile/clpeak/record.py [--groups 4] [-o tests/data/mobile/clpeak/hd530.tkt]

One trace holds every launch, labelled with its probe and swept value x, the vector
width (see ../recording.py); hd530_measured.csv holds the device's numbers for the
same points.  Every launch keeps its first ``--groups`` work-groups.

Global memory bandwidth is recorded twice per width, once per clpeak access walk
(kernels bw_local_offset and bw_global_offset; the case's ``variant``).  clpeak runs
both and prints the faster, so the two launches carry the same probe name and x, and
the measured point is set beside the faster of the two in the model: the launch with
the higher GB/s (the trace's probe record says so: ``variant`` and
``combine = "fastest"``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import recording  # noqa: E402

KERNELS = HERE / "probes.cl"

# The device as clpeak 1.1.x sized its launches (src/common.cpp getDeviceInfo, GPU branch).
CUS = 23  # CL_DEVICE_MAX_COMPUTE_UNITS printed by the run (EUs on Intel)
WG = 256  # min(CL_DEVICE_MAX_WORK_ITEM_SIZES[0], 256): Intel's Gen9 driver reports 256
FETCH_PER_WI = 16  # loads per work-item in the bandwidth kernels
COMPUTE_WGS_PER_CU = 2048  # computeWgsPerCU for GPUs
# Maximum allocation of the device: the run does not print it.  Intel's compute-runtime
# (NEO) caps a buffer at 4 GiB - 8 KiB on Gen9 when the machine has more than ~5.4 GB of
# RAM (it is otherwise the smaller of that and the reported global memory); a Skylake
# desktop with an HD 530 is taken to have that much.
MAX_ALLOC = 4 * 2**30 - 8 * 2**10
# global_bandwidth.cpp: numItems = min(maxAlloc / 4 / 2, 1 << 29) floats, rounded down to
# a multiple of maxWGSize * 16 * 16.  With MAX_ALLOC above: 536,805,376 floats (2 GiB);
# a device allowing 4 GiB or more would give 1 << 29.  Both the byte count and the grid
# follow numItems, so GB/s hardly depends on the choice (0.01 % between the two).
BW_ITEMS = min(MAX_ALLOC // 4 // 2, 1 << 29) // (WG * FETCH_PER_WI * 16) * (WG * FETCH_PER_WI * 16)
# compute_sp.cpp / compute_integer.cpp: numCUs x computeWgsPerCU x maxWGSize work-items
# (the maxAlloc cap, 48 MB of output here, does not bind).
COMPUTE_ITEMS = CUS * COMPUTE_WGS_PER_CU * WG
SP_FLOPS_PER_ITEM = 4096  # 2048 mads, 2 flops each, at every width
INT_OPS_PER_ITEM = 2048  # 1024 multiply-add pairs, 2 ops each, at every width
# The recorder takes buffers of up to 1 GiB; clpeak's input is 2 GiB.  The recorded
# work-groups read only the first 16 x 256 x groups elements of it, so the input is
# given at that cap (SOURCES.md, "Deviations").
RECORD_MAX_BYTES = 1 << 30
WIDTHS = (1, 2, 4, 8, 16)


def _vtype(base: str, n: int) -> str:
    return base if n == 1 else f"{base}{n}"


def cases() -> list[dict]:
    """Every probe launch: probe name, x (the vector width), kernel, grid (groups), block, args."""
    out: list[dict] = []

    def add(probe, x, kernel, items, args, defines, unit, count, variant=None):
        assert items % WG == 0
        case = {
            "probe": probe,
            "x": x,
            "kernel": kernel,
            "grid": (items // WG, 1),
            "block": (WG, 1),
            "args": list(args),
            "defines": list(defines),
            "unit": unit,
            "count": count,
        }
        if variant:
            case["variant"] = variant
        out.append(case)

    # Global memory bandwidth: global = numItems / N / 16 work-items, every float of the
    # input read once; clpeak counts numItems x 4 bytes (the one-float-per-item output
    # writes are not counted).
    for n in WIDTHS:
        vt = _vtype("float", n)
        items = BW_ITEMS // n // FETCH_PER_WI
        a_elems = min(BW_ITEMS, RECORD_MAX_BYTES // 4) // n
        for walk in ("local_offset", "global_offset"):
            add(
                "global_bandwidth",
                n,
                f"bw_{walk}",
                items,
                [f"{vt}[{a_elems}]", f"float[{items}]"],
                [f"VEC={n}", f"VTYPE={vt}"],
                "GB/s",
                BW_ITEMS * 4,
                variant=walk,
            )
    # Single-precision compute: 4096 flops per work-item, _A = 1.3f.
    for n in WIDTHS:
        add(
            "compute_sp",
            n,
            "compute_sp",
            COMPUTE_ITEMS,
            [f"float[{COMPUTE_ITEMS}]", "float:1.3"],
            [f"VEC={n}", f"VTYPE={_vtype('float', n)}"],
            "GFLOPS",
            COMPUTE_ITEMS * SP_FLOPS_PER_ITEM,
        )
    # Integer compute: 2048 integer operations per work-item, _A = 4.  Reported by clpeak
    # as GIOPS; the unit here is GFLOPS (operations / s / 1e9, the same arithmetic).
    for n in WIDTHS:
        add(
            "compute_int",
            n,
            "compute_int",
            COMPUTE_ITEMS,
            [f"int[{COMPUTE_ITEMS}]", "int:4"],
            ["INTEGER=1", f"VEC={n}", f"VTYPE={_vtype('int', n)}"],
            "GFLOPS",
            COMPUTE_ITEMS * INT_OPS_PER_ITEM,
        )
    return out


def machine_code(out: Path) -> None:
    """Intel's machine code for intel-hd530 (ocloc ``skl``), kept in the trace.

    record_suite's merge keeps neither the per-launch machine code nor the source, so
    it is built again here from probes.cl with each launch's build options.  ocloc
    aborts on the int2..int16 builds (with the -g that the line mapping needs; they
    build without it): those launches, and any built after a failure, keep the IR
    model (SOURCES.md, "Deviations")."""
    from tracekit.isa.attach import attach

    build = attach(out, targets=["intel-hd530"], source_path=KERNELS, strict=False)
    for note in build.notes:
        print("note: " + note.splitlines()[0])
    print(
        "machine code for intel-hd530: "
        + ", ".join(sorted({f"{k.kernel} SIMD{k.simd_width}" for k in build.kernels}))
    )


def main() -> None:
    recording.main(__doc__, cases, KERNELS, HERE / "hd530.tkt", after=machine_code)


if __name__ == "__main__":
    main()
