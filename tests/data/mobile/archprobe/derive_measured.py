"""Derive adreno640_measured.csv from ArchProbe's published Pixel 4 tables.

    .venv/bin/python derive_measured.py ARCHPROBE/examples/adreno640/Google_Pixel_4

ARCHPROBE is a checkout of github.com/microsoft/ArchProbe (commit in SOURCES.md).  The
tables are ArchProbe's raw timings; this keeps, for every point the probe suite
records, the number ArchProbe derives from them:

* chases: nanoseconds per step (t / niter) of the rows with a 16-byte stride at the
  suite's footprints, the median where ArchProbe timed a footprint more than once;
* bandwidth: ArchProbe's own GB/s column by footprint;
* GFLOPS: ArchProbe's formula (niter x 4 x 256 operations per work-item, 1024 x 128
  work-items) over the median time of each vector width, the niter search excluded.

The ``excluded`` column names points no replay can stand for; they stay in the file so
that the comparison shows them.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from record import CHASE_BUF_RANGES, CHASE_IMG_RANGES  # noqa: E402

SOURCE = "microsoft/ArchProbe examples/adreno640/Google_Pixel_4/{} @53aff57"
CLAMPED = (
    "reads past the probe's 16384-texel image return the border colour (CLK_ADDRESS_CLAMP): "
    "no memory is read at this footprint"
)
HALF = "the recorder cannot execute half-precision arithmetic"
SAME_LINE = (
    "at most one wave's request (1 KiB): every wave of a work-group reads the same one to 16 lines at once, "
    "and the device's L2 serialises such requests (72 GB/s on one line, 36 on two to eight, 59 on sixteen); "
    "the model has no same-line queue"
)
SAME_ADDRESS = (
    "whole waves read one to four local addresses: the device serves such reads 1.4 times faster than "
    "distinct ones, the model at the data path's rate"
)


def chase(folder: Path, name: str, ranges: list[int]) -> list[dict]:
    d = pd.read_csv(folder / f"{name}.csv")
    d.columns = ["range", "stride", "niter", "t"]
    d = d[(d.stride == 16) & (d.niter == d.niter.max())]
    probe = "buffer_chase" if name.startswith("Buffer") else "image_chase"
    out = []
    for r in ranges:
        rows = d[d.range == r]
        if rows.empty:
            raise SystemExit(f"{name}.csv has no row at {r} bytes")
        out.append(
            {
                "probe": probe,
                "x": r,
                "measured": round(float((rows.t * 1000 / rows.niter).median()), 2),
                "unit": "ns/step",
                "excluded": "",
                "source": SOURCE.format(f"{name}.csv"),
            }
        )
    return out


def bandwidth(folder: Path, name: str, probe: str, excluded=lambda r: "") -> list[dict]:
    d = pd.read_csv(folder / f"{name}.csv")
    d.columns = ["range", "t", "gbps"]
    return [
        {
            "probe": probe,
            "x": int(2 ** round(math.log2(r.range))),
            "measured": round(float(r.gbps), 2),
            "unit": "GB/s",
            "excluded": excluded(int(round(r.range))),
            "source": SOURCE.format(f"{name}.csv"),
        }
        for r in d.itertuples()
    ]


def gflops(folder: Path) -> list[dict]:
    d = pd.read_csv(folder / "Gflops.csv")
    d.columns = ["width", "ncomp", "niter", "t"]
    out = []
    for width in (32, 16):
        rows = d[d.width == width].iloc[1:]  # the first row is the niter search
        for n, g in rows.groupby("ncomp"):
            flop = g.niter.iloc[0] * 4 * 256 * 1024 * 128
            out.append(
                {
                    "probe": f"gflops_fp{width}",
                    "x": int(n),
                    "measured": round(float(flop / g.t.median() * 1e-3), 1),
                    "unit": "GFLOPS",
                    "excluded": HALF if width == 16 else "",
                    "source": SOURCE.format("Gflops.csv"),
                }
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="ArchProbe's examples/adreno640/Google_Pixel_4")
    ap.add_argument("-o", "--out", type=Path, default=HERE / "adreno640_measured.csv")
    opts = ap.parse_args()
    f = opts.folder
    rows = (
        chase(f, "BufferCacheHierarchyPChase", CHASE_BUF_RANGES)
        + chase(f, "ImageCacheHierarchyPChase", CHASE_IMG_RANGES)
        + bandwidth(f, "BufferBandwidth", "buffer_bandwidth", lambda r: SAME_LINE if r <= 1024 else "")
        + bandwidth(f, "ImageBandwidth", "image_bandwidth", lambda r: CLAMPED if r > (256 << 10) else "")
        + bandwidth(f, "ConstMemBandwidth", "constant_bandwidth", lambda r: SAME_LINE if r <= 1024 else "")
        + bandwidth(f, "LocalMemBandwidth", "local_bandwidth", lambda r: SAME_ADDRESS if r <= 64 else "")
        + gflops(f)
    )
    pd.DataFrame(rows).to_csv(opts.out, index=False)
    print(f"wrote {opts.out}: {len(rows)} points")


if __name__ == "__main__":
    main()
