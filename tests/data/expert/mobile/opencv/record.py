"""Re-record the OpenCV OpenCL expert-review traces into traces/.

Usage (from anywhere):  .venv/bin/python tests/data/expert/mobile/opencv/record.py [CASE ...]

Each case is one launch of an unmodified OpenCV kernel file (copied verbatim from
opencv/opencv 4.x, see CASES.md), with the -D build options, argument list, global size
and work-group size that OpenCV's host code would pass for the configuration named in the
case.  The script runs ``tracekit record`` once per case, one after the other, from the
repository root with repository-relative paths, so the traces name
``tests/data/expert/mobile/opencv/<file>.cl`` on every clone.

OpenCV's KernelArg expansion (modules/core/src/ocl.cpp, Kernel::set): ``ReadOnly(m)`` and
``WriteOnly(m)`` pass (ptr, step, offset, rows, cols); the ``...NoSize`` forms (ptr, step,
offset); ``PtrReadOnly``/``PtrWriteOnly`` the pointer only.  Buffers are passed here as
``uchar[BYTES]`` with seeded random pixels, scalars as ``int:``/``float:``.

Device configuration modelled: a non-Intel, non-AMD GPU without fp64 (Adreno, PowerVR,
Mali): no ``-D INTEL_DEVICE``/``-D AMD_DEVICE`` (ocl.cpp Program::Impl adds those), no
``-D DOUBLE_SUPPORT`` (``doubleFPConfig() == 0``), and the generic (not Intel-only)
kernel variants and per-item pixel counts (except the three "fixed variant" cases at the end,
which run the Intel-only faster kernel OpenCV ships for the same call; see CASES.md).
Where OpenCV passes a NULL local size, its Kernel::run rounds the global size up to
multiples of 256 x 8 (2-D) and leaves the work-group shape to the driver; these cases use
32 x 8 (256 items: accepted by every modelled target).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
HERE = Path("tests/data/expert/mobile/opencv")  # relative to ROOT (the working directory)
TRACES = HERE / "traces"
TRACEKIT = Path(sys.executable).parent / "tracekit"
#: the traces of all cases together should stay small (about 1 MB each at most)
BUDGET_BYTES = 8 * 1024 * 1024


@dataclass
class Case:
    name: str
    file: str
    kernel: str
    global_size: str
    local_size: str
    args: list[str]
    defines: list[str]
    sample: str
    host: str = ""          # where the defines/sizes come from (also in CASES.md)
    extra_files: dict = field(default_factory=dict)


# --- helpers reproducing what OpenCV's host code computes ------------------------------------

def filter2d_coeff(kernel: list[list[float]]) -> tuple[int, str]:
    """filter.dispatch.cpp _prepareKernelFilter2D<float> + ocl.cpp kerToStr<float>:
    each column written twice, columns KERNEL_SIZE_Y2_ALIGNED apart; printed with
    precision 10 and showpoint (C's %#.10g) as DIG(v f)."""
    rows, cols = len(kernel), len(kernel[0])
    aligned = (rows * 2 + 3) // 4 * 4
    data = [0.0] * (aligned * cols)
    for x in range(cols):
        for y in range(rows):
            data[x * aligned + y] = kernel[y][x]
            data[x * aligned + y + rows] = kernel[y][x]
    return aligned, "".join(f"DIG({v:#.10g}f)" for v in data)


def filter2d_small_params(width: int, height: int, kw: int, kh: int, cn: int = 1) -> dict:
    """filter.dispatch.cpp ocl_filter2D, filter2DSmall branch (lines 596-656): the pixels per
    vector load, the pixels per work-item in x and y, the private row width and the global size
    (before Kernel::run's rounding of the y size)."""
    load_px = 1 if cn != 1 or width % 4 else 4
    px_x = px_y = 1
    if cn <= 2 and kw <= 4 and kh <= 4:
        px_x = 1 if width % 2 else 2 if width % 4 else 4 if width % 8 else 8
        px_y = 1 if height % 2 else 2
    elif cn < 4 or (kw <= 4 and kh <= 4):
        px_x = 1 if width % 2 else 2
        px_y = 1 if height % 2 else 2
    priv = (px_x + kw - 1 + load_px - 1) // load_px * load_px
    gx = (width // px_x + 255) // 256 * 256
    return {"PX_LOAD_VEC_SIZE": cn * load_px, "PX_LOAD_NUM_PX": load_px, "PX_PER_WI_X": px_x,
            "PX_PER_WI_Y": px_y, "PRIV_DATA_WIDTH": priv, "PX_LOAD_X_ITERATIONS": priv // load_px,
            "PX_LOAD_Y_ITERATIONS": px_y + kh - 1, "global": (gx, height // px_y)}


def warp_affine_inverse(angle_deg: float, cx: float, cy: float, scale: float = 1.0) -> list[float]:
    """cv::getRotationMatrix2D, then the inversion ocl_warpTransform does when
    WARP_INVERSE_MAP is not set (imgwarp.cpp), rounded to float32 as matM.convertTo(M0, CV_32F)."""
    a = math.radians(angle_deg)
    alpha, beta = math.cos(a) * scale, math.sin(a) * scale
    M = [alpha, beta, (1 - alpha) * cx - beta * cy, -beta, alpha, beta * cx + (1 - alpha) * cy]
    D = M[0] * M[4] - M[1] * M[3]
    D = 1.0 / D if D != 0 else 0.0
    A11, A22 = M[4] * D, M[0] * D
    M[0] = A11
    M[1] *= -D
    M[3] *= -D
    M[4] = A22
    b1 = -M[0] * M[2] - M[1] * M[5]
    b2 = -M[3] * M[2] - M[4] * M[5]
    M[2], M[5] = b1, b2
    return M


def write_npy_float32(path: Path, values: list[float]) -> None:
    import numpy as np
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, np.asarray(values, dtype=np.float32))


# --- the cases -------------------------------------------------------------------------------

W, H = 1280, 720          # 720p camera frame
VW, VH = 640, 480         # VGA frame (ALU-heavy and gather kernels: cheaper to simulate)

SHARPEN = [[0, -1, 0], [-1, 5, -1], [0, -1, 0]]
F2D_ALIGNED, F2D_COEFF = filter2d_coeff(SHARPEN)
WARP_M = HERE / "warp_affine_M.npy"
MORPH_3X3 = "".join(f"PROCESS({y},{x})" for y in range(3) for x in range(3))
# filter2DSmall: the kernel as one row of floats (ocl::kernelToStr of kernelMat.reshape(0, 1))
F2D_SMALL_COEFF = "".join(f"DIG({float(v):#.10g}f)" for row in SHARPEN for v in row)
F2D_SMALL = filter2d_small_params(W, H, 3, 3)


def u8(nbytes: int, seed: int | None = None) -> str:
    return f"uchar[{nbytes}]" + (f"=rand:{seed}:0:256" if seed is not None else "")


CASES = [
    # cv::cvtColor(src8UC4, dst, COLOR_RGBA2GRAY): color.cpp ocl_cvtColor -> color_rgb.dispatch.cpp
    # oclCvtColorBGR2Gray (bidx = swapBlue(code) ? 2 : 0 = 2); color.hpp OclHelper::createKernel
    # (PIX_PER_WI_Y = 1 off Intel; global = src.cols x src.rows; NULL local).
    Case("cvtcolor_rgba2gray_720p", "color_rgb.cl", "RGB2Gray", f"{W},{H}", "32,8",
         [u8(W * H * 4, 1), f"int:{W * 4}", "int:0",
          u8(W * H), f"int:{W}", "int:0", f"int:{H}", f"int:{W}"],
         ["SRC_DEPTH=0", "SCN=4", "PIX_PER_WI_Y=1", "DCN=1", "BIDX=2", "STRIPE_SIZE=1"],
         sample="first:40", host="color_rgb.dispatch.cpp oclCvtColorBGR2Gray; color.hpp OclHelper"),
    # cv::cvtColor(nv21 (W x 3H/2, 8UC1), dst, COLOR_YUV2RGBA_NV21): color.cpp (uidx = 1, bidx = 2,
    # dcn = 4) -> color_yuv.dispatch.cpp oclCvtColorTwoPlaneYUV2BGR; OclHelper FROM_YUV:
    # global = dst.cols/2 x dst.rows/2 = 640 x 360, rounded up by Kernel::run to 768 x 360.
    Case("cvtcolor_nv21_to_rgba_720p", "color_yuv.cl", "YUV2RGB_NVx", "768,360", "32,8",
         [u8(W * H * 3 // 2, 2), f"int:{W}", "int:0",
          u8(W * H * 4), f"int:{W * 4}", "int:0", f"int:{H}", f"int:{W}"],
         ["SRC_DEPTH=0", "SCN=1", "PIX_PER_WI_Y=1", "DCN=4", "BIDX=2", "UIDX=1"],
         sample="first:24", host="color_yuv.dispatch.cpp oclCvtColorTwoPlaneYUV2BGR; color.hpp OclHelper"),
    # cv::resize(src 1280x720 8UC4, dst, Size(960, 540), 0, 0, INTER_LINEAR): resize.cpp ocl_resize,
    # buffer path (useSampler false: no cl_khr_image2d_from_buffer alias, as on PowerVR Rogue
    # drivers), INTER_LINEAR (the integer-table variant is disabled in the host code);
    # wdepth = CV_32S.  global = dst.cols x dst.rows rounded to 1024 x 544, NULL local.
    Case("resize_linear_8uc4_720p_to_540p", "resize.cl", "resizeLN", "1024,544", "32,8",
         [u8(W * H * 4, 3), f"int:{W * 4}", "int:0", f"int:{H}", f"int:{W}",
          u8(960 * 540 * 4), f"int:{960 * 4}", "int:0", "int:540", "int:960",
          "float:1.3333334", "float:1.3333334"],
         ["INTER_LINEAR", "SRC_DEPTH=0", "T=uchar4", "T1=uchar", "WT=int4",
          "CONVERT_TO_WT=convert_int4", "CONVERT_TO_DT=convert_uchar4_sat", "CN=4",
          "INTER_RESIZE_COEF_BITS=11"],
         sample="first:32", host="resize.cpp ocl_resize (INTER_LINEAR, !useSampler)"),
    # cv::warpAffine(src 640x480 8UC1, dst, getRotationMatrix2D((320,240), 5, 1.15), Size(640,480),
    # INTER_LINEAR, BORDER_CONSTANT, 0), the rotate-and-zoom of a video stabiliser (the zoom keeps
    # every destination pixel inside the source, so the first rows recorded are typical):
    # imgwarp.cpp ocl_warpTransform (OCL_OP_AFFINE):
    # is32f (not AMD) -> WT=float; rowsPerWI = 1 (not Intel); M inverted on the host;
    # global = dst.cols x dst.rows rounded to 768 x 480, NULL local.
    Case("warpaffine_linear_8uc1_vga", "warp_affine.cl", "warpAffine", "768,480", "32,8",
         [u8(VW * VH, 4), f"int:{VW}", "int:0", f"int:{VH}", f"int:{VW}",
          u8(VW * VH), f"int:{VW}", "int:0", f"int:{VH}", f"int:{VW}",
          f"float[6]=@{WARP_M}", "float:0"],
         ["INTER_LINEAR", "T=uchar", "T1=uchar", "ST=float", "WT=float", "SRC_DEPTH=0",
          "CONVERT_TO_WT=convert_float", "CONVERT_TO_T=convert_uchar_sat_rte", "CT=float",
          "CN=1", "ROWS_PER_WI=1"],
         sample="first:24", host="imgwarp.cpp ocl_warpTransform",
         extra_files={WARP_M: warp_affine_inverse(5.0, VW / 2, VH / 2, 1.15)}),
    # cv::pyrDown(src 1280x720 8UC1, dst 640x360): pyramids.cpp ocl_pyrDown, kercn = 1 (not
    # Intel), BORDER_DEFAULT = BORDER_REFLECT_101, LOCAL_SIZE 256; local 256 x 1,
    # global = src.cols x (dst.rows + 1) / 2 = 1280 x 180.
    Case("pyrdown_8uc1_720p", "pyr_down.cl", "pyrDown", f"{W},180", "256,1",
         [u8(W * H, 5), f"int:{W}", "int:0", f"int:{H}", f"int:{W}",
          u8(640 * 360), "int:640", "int:0", "int:360", "int:640"],
         ["T=uchar", "FT=float", "CONVERT_TO_T=convert_uchar_sat_rte", "CONVERT_TO_FT=convert_float",
          "T1=uchar", "CN=1", "KERCN=1", "FDEPTH=5", "BORDER_REFLECT_101", "LOCAL_SIZE=256"],
         sample="first:20", host="pyramids.cpp ocl_pyrDown"),
    # cv::filter2D(src 1280x720 8UC1, dst, -1, 3x3 sharpen kernel): filter.dispatch.cpp
    # ocl_filter2D, general (non-Intel) path: BLOCK_SIZE = 256 (a device or kernel whose
    # work-group limit is 256), BORDER_DEFAULT, not isolated, no extra extrapolation;
    # local 256 x 1, global = DIVUP(1280, 256 - 2) * 256 x 720 = 1536 x 720.
    Case("filter2d_3x3_8uc1_720p", "filter2D.cl", "filter2D", f"1536,{H}", "256,1",
         [u8(W * H, 6), f"int:{W}", "int:0", "int:0", f"int:{W}", f"int:{H}",
          u8(W * H), f"int:{W}", "int:0", f"int:{H}", f"int:{W}", "float:0"],
         ["LOCAL_SIZE=256", "cn=1", "ANCHOR_X=1", "ANCHOR_Y=1", "KERNEL_SIZE_X=3", "KERNEL_SIZE_Y=3",
          f"KERNEL_SIZE_Y2_ALIGNED={F2D_ALIGNED}", "BORDER_REFLECT_101", "NO_EXTRA_EXTRAPOLATION",
          "NO_BORDER_ISOLATED", f"COEFF={F2D_COEFF}", "srcT=uchar", "srcT1=uchar", "dstT=uchar",
          "dstT1=uchar", "WT=float", "WT1=float", "convertToWT=convert_float",
          "convertToDstT=convert_uchar_sat_rte"],
         sample="first:48", host="filter.dispatch.cpp ocl_filter2D (general path)"),
    # cv::erode(src 1280x720 8UC1, dst, Mat() /* 3x3 rect */): morph.dispatch.cpp morphOp ->
    # ocl_morphOp, generic "morph" kernel (the 3x3 special kernels are Intel-only);
    # __ANDROID__ local size 16 x 8; global = 1280 x 720.
    Case("erode_3x3_8uc1_720p", "morph.cl", "morph", f"{W},{H}", "16,8",
         [u8(W * H, 7), f"int:{W}", "int:0", u8(W * H), f"int:{W}", "int:0",
          "int:0", "int:0", f"int:{W}", f"int:{H}", f"int:{W}", f"int:{H}"],
         ["RADIUSX=1", "RADIUSY=1", "LSIZE0=16", "LSIZE1=8", "OP_ERODE", f"PROCESS_ELEMS={MORPH_3X3}",
          "T=uchar", "DEPTH_0", "cn=1", "T1=uchar", "convertToWT=convert_float",
          "convertToT=convert_uchar_sat_rte", "ST=uchar"],
         sample="first:80", host="morph.dispatch.cpp ocl_morphOp (__ANDROID__ local size)"),
    # cv::medianBlur(src 640x480 8UC1, dst, 5): median_blur.dispatch.cpp ocl_medianFilter,
    # not the Intel-only "_u" variant; local 16 x 16,
    # global = (cols + 16 + 2) / 16 * 16 x (rows + 15) / 16 * 16 = 656 x 480.
    Case("medianblur_5x5_8uc1_vga", "medianFilter.cl", "medianFilter5", "656,480", "16,16",
         [u8(VW * VH, 8), f"int:{VW}", "int:0", u8(VW * VH), f"int:{VW}", "int:0",
          f"int:{VH}", f"int:{VW}"],
         ["T=uchar", "T1=uchar", "cn=1"],
         sample="first:41", host="median_blur.dispatch.cpp ocl_medianFilter"),

    # --- fixed variants: OpenCV's own faster kernel for the same call on the same image ------
    # (the branches below are taken by OpenCV on Intel GPUs only; their defines are used as is,
    # still without -D INTEL_DEVICE, i.e. on the same non-Intel device as the cases above)

    # pyrdown_8uc1_720p with kercn = 4 (pyramids.cpp ocl_pyrDown, line 1187, Intel-only):
    # 4 columns per work-item, local = LOCAL_SIZE / kercn = 64 x 1,
    # global = (src.cols + 3) / 4 x (dst.rows + 1) / 2 = 320 x 180 (lines 1206-1207).
    Case("pyrdown_8uc1_720p_kercn4", "pyr_down.cl", "pyrDown", "320,180", "64,1",
         [u8(W * H, 5), f"int:{W}", "int:0", f"int:{H}", f"int:{W}",
          u8(640 * 360), "int:640", "int:0", "int:360", "int:640"],
         ["T=uchar", "FT=float", "CONVERT_TO_T=convert_uchar_sat_rte", "CONVERT_TO_FT=convert_float",
          "T1=uchar", "CN=1", "KERCN=4", "FDEPTH=5", "BORDER_REFLECT_101", "LOCAL_SIZE=256"],
         sample="first:20", host="pyramids.cpp ocl_pyrDown (kercn = 4, Intel-only)"),
    # erode_3x3_8uc1_720p with morph3x3_8UC1_cols16_rows2 (morph.dispatch.cpp ocl_morphOp line 790,
    # Intel-only -> ocl_morph3x3_8UC1, lines 519-589): 16 columns x 2 rows per work-item,
    # global = cols / 16 x rows / 2 = 80 x 360, NULL local, rounded by Kernel::run to 256 x 360.
    # src/dst are passed as uint pointers (PtrReadOnly/PtrWriteOnly, steps in bytes), so the
    # buffers are uint[W*H/4] of random bytes.
    Case("erode_3x3_8uc1_720p_cols16_rows2", "morph3x3.cl", "morph3x3_8UC1_cols16_rows2",
         f"256,{H // 2}", "32,8",
         [f"uint[{W * H // 4}]=rand:7:0:4294967296", f"int:{W}", f"uint[{W * H // 4}]", f"int:{W}",
          f"int:{H}", f"int:{W}"],
         [f"PROCESS_ELEM_={MORPH_3X3}", "OP_ERODE"],
         sample="first:8", host="morph.dispatch.cpp ocl_morph3x3_8UC1 (Intel-only)"),
    # filter2d_3x3_8uc1_720p with filter2DSmall (filter.dispatch.cpp ocl_filter2D, Intel-only
    # branch, lines 596-656): 4-pixel vector loads, 8 x 2 pixels per work-item,
    # global = ROUNDUP(1280 / 8, 256) x 720 / 2 = 256 x 360, NULL local; same arguments (line 724).
    # One deviation: BORDER_REFLECT in place of OpenCV's BORDER_REFLECT_101.  Under
    # BORDER_REFLECT_101 the kernel's ADDR_L/ADDR_H macros are `i < 0 ? -i : i`, which LLVM 14
    # folds into llvm.abs.i32, an intrinsic Oclgrind 21.10 cannot run (the kernel cannot be
    # created; -cl-opt-disable records every local variable as private memory traffic instead).
    # BORDER_REFLECT takes the same branches and issues the same number of loads (a pixel outside
    # the image reads the edge pixel instead of its neighbour); only the values read there differ.
    Case("filter2d_3x3_8uc1_720p_small", "filter2DSmall.cl", "filter2DSmall",
         "{},{}".format(*F2D_SMALL["global"]), "32,8",
         [u8(W * H, 6), f"int:{W}", "int:0", "int:0", f"int:{W}", f"int:{H}",
          u8(W * H), f"int:{W}", "int:0", f"int:{H}", f"int:{W}", "float:0"],
         ["cn=1", "ANCHOR_X=1", "ANCHOR_Y=1", "KERNEL_SIZE_X=3", "KERNEL_SIZE_Y=3"]
         + [f"{k}={F2D_SMALL[k]}" for k in ("PX_LOAD_VEC_SIZE", "PX_LOAD_NUM_PX", "PX_PER_WI_X",
                                             "PX_PER_WI_Y", "PRIV_DATA_WIDTH")]
         + ["BORDER_REFLECT", "NO_BORDER_ISOLATED"]  # OpenCV: BORDER_REFLECT_101 (see above)
         + [f"{k}={F2D_SMALL[k]}" for k in ("PX_LOAD_X_ITERATIONS", "PX_LOAD_Y_ITERATIONS")]
         + ["srcT=uchar", "srcT1=uchar", "dstT=uchar", "dstT1=uchar", "WT=float", "WT1=float",
            "convertToWT=convert_float", "convertToDstT=convert_uchar_sat_rte",
            f"COEFF={F2D_SMALL_COEFF}"],
         sample="first:8", host="filter.dispatch.cpp ocl_filter2D (filter2DSmall, Intel-only)"),
]


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def command(c: Case) -> list[str]:
    cmd = [str(TRACEKIT), "record", str(HERE / c.file), "--kernel", c.kernel,
           "--global", c.global_size, "--local", c.local_size, "--sample", c.sample,
           "-o", str(TRACES / f"{c.name}.tkt")]
    for a in c.args:
        cmd += ["--arg", a]
    for d in c.defines:
        cmd += ["-D", d]
    return cmd


def main(names: list[str]) -> int:
    unknown = set(names) - {c.name for c in CASES}
    if unknown:
        print(f"unknown case(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    os.chdir(ROOT)
    TRACES.mkdir(parents=True, exist_ok=True)
    failed = []
    t_all = time.perf_counter()
    for c in CASES:
        if names and c.name not in names:
            continue
        for path, values in c.extra_files.items():
            write_npy_float32(path, values)
        t0 = time.perf_counter()
        r = subprocess.run(command(c), capture_output=True, text=True)
        dt = time.perf_counter() - t0
        out = TRACES / f"{c.name}.tkt"
        if r.returncode != 0:
            failed.append(c.name)
            print(f"{c.name:36s} FAILED (exit {r.returncode}) {dt:6.1f} s\n{r.stdout}{r.stderr}",
                  file=sys.stderr)
            continue
        warn = " ".join(line.strip() for line in r.stderr.splitlines() if line.strip())
        print(f"{c.name:36s} {du(out):>10,} bytes {dt:6.1f} s  {warn}")
    total = sum(du(p) for p in TRACES.glob("*.tkt"))
    print(f"total {total:,} bytes in {TRACES} ({time.perf_counter() - t_all:.1f} s)")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    if total > BUDGET_BYTES:
        print(f"traces exceed the {BUDGET_BYTES:,}-byte budget", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
