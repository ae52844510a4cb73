"""Re-record the traces of the mobile ML/BLAS expert-review cases into traces/.

Run from anywhere with the project's interpreter::

    .venv/bin/python tests/data/expert/mobile/mlblas/record.py [CASE ...]

Each case is one ``tracekit record`` of a real OpenCL kernel from a library that mobile
developers ship (CLBlast, MACE, Arm Compute Library), with the -D options that library's host
code passes for the configuration given in CASES.md, the global and local sizes it would
launch with, and ``--sample first:N`` to keep the trace small.  The command runs from the
repository root with repository-relative kernel paths, so the traces name
``tests/data/expert/mobile/mlblas/<case>.cl`` on any clone.  Oclgrind runs every work-group of
the launch; only the first N are recorded, and the launch metadata's ``sampling.scale`` carries
the counts to the whole grid.  Recordings run one at a time.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[4]                       # the repository root
REL = HERE.relative_to(ROOT)                 # tests/data/expert/mobile/mlblas
TRACES = REL / "traces"


@dataclass
class Case:
    name: str                 # trace name (traces/<name>.tkt)
    file: str                 # kernel file in this folder
    kernel: str
    global_size: str
    local_size: str
    args: list[str]
    defines: list[str] = field(default_factory=list)
    build_options: str = ""
    sample: str = "first:16"


# CLBlast: what src/utilities/compile.cpp prepends for a Qualcomm GPU, and SetOpenCLKernelStandard.
QCOM = ["USE_INLINE_KEYWORD=1", "USE_CL_MAD=1", "GLOBAL_MEM_FENCE=1", "RELAX_WORKGROUP_SIZE=1"]
CL11 = "-cl-std=CL1.1"
# MACE: opencl_executor.cc BuildProgram appends these to every program's options.
MACE_OPTS = "-Werror -cl-mad-enable -cl-fast-relaxed-math"
# Arm Compute Library: CLCompileContext::generate_build_options for an OpenCL 2.0, fp16-capable,
# non-Mali device (Adreno 6xx) adds these defines and -cl-std=CL2.0 (its way of asking for
# non-uniform work-groups).  -cl-std=CL2.0 is left out: under it clang passes vload's pointer as a
# generic-address-space pointer (addrspacecast), which Oclgrind cannot execute ("Unsupported
# instruction: addrspacecast"); CL3.0 does not build on Oclgrind's compiler and Mali's
# -cl-arm-non-uniform-work-group-size is unknown to it.  The launches below are uniform, so the
# option changes nothing else.
ACL_DEFS = ["GPU_ARCH=256", "ARM_COMPUTE_OPENCL_FP16_ENABLED=1"]
ACL_OPTS = ""

# --- sizes -------------------------------------------------------------------------------------
AXPY_N = 1 << 22                              # 4M-parameter SGD/axpy update, 16 MiB per vector
GEMV_M, GEMV_N = 4096, 1024                  # FC layer 1024 -> 4096 at batch 1, row-major weights
GEMM = 256                                   # M = N = K = 256
IM_C, IM_H, IM_W = 64, 56, 56                # 3x3/pad 1/stride 1 conv input, 56x56x64 (ResNet stage 1)
DW_C, DW_H, DW_W = 32, 112, 112              # MobileNet v1 conv_dw_1: 112x112x32, 3x3 s1, ReLU6
PL_C, PL_H, PL_W = 64, 112, 112              # ResNet max-pool 3x3 s2 SAME: 112x112x64 -> 56x56x64
SM_LEN, SM_ROWS, SM_HEADS = 256, 256, 8      # attention scores: 8 heads x 256 queries x 256 keys
HS_C, HS_W, HS_H = 16, 112, 112              # MobileNet v3 stem hard-swish: 112x112x16 NHWC

PL_OH, PL_OW = PL_H // 2, PL_W // 2

CASES = [
    # CLBlast XaxpyFastest, Intel HD Graphics 530 database entry (VW, WGS, WPT) = (1, 128, 1):
    # global = n / (WPT * VW), local = WGS (src/routines/level1/xaxpy.cpp).
    Case("clblast_xaxpy", "clblast_xaxpy.cl", "XaxpyFastest", f"{AXPY_N}", "128",
         [f"int:{AXPY_N}", "float:0.5", f"float[{AXPY_N}]=rand:1", f"float[{AXPY_N}]=rand:2"],
         ["PRECISION=32", "ROUTINE_AXPY", "USE_SUBGROUP_SHUFFLING=1", "SUBGROUP_SHUFFLING_INTEL=1",
          "VW=1", "WGS=128", "WPT=1"], "-cl-std=CL1.2", "first:32"),
    # CLBlast XgemvFastRot, Adreno 640 entries: global = m, local = WGS3 (xgemv.cpp MatVec).
    # Arguments in SetArgument order: m, n, alpha, beta, a_rotated, A, a_offset, a_ld, x, x_offset,
    # x_inc, y, y_offset, y_inc, do_conjugate, parameter, kl, ku.
    Case("clblast_xgemv_fast_rot", "clblast_xgemv_fast_rot.cl", "XgemvFastRot", f"{GEMV_M}", "32",
         [f"int:{GEMV_M}", f"int:{GEMV_N}", "float:1", "float:0", "int:1",
          f"float8[{GEMV_M * GEMV_N // 8}]=rand:3", "int:0", f"int:{GEMV_N}",
          f"float[{GEMV_N}]=rand:4", "int:0", "int:1",
          f"float[{GEMV_M}]", "int:0", "int:1", "int:0", "int:0", "int:0", "int:0"],
         ["PRECISION=32", "ROUTINE_GEMV", *QCOM, "WGS1=256", "WPT1=1", "VW2=1", "WGS2=64", "WPT2=1",
          "VW3=8", "WGS3=32", "WPT3=8"], CL11, "first:8"),
    # CLBlast Xgemm (indirect path), Adreno 640 entry: global = (M*MDIMC/MWG, N*NDIMC/NWG),
    # local = (MDIMC, NDIMC) (xgemm.cpp GemmIndirect). A is K x M (M contiguous), B is K x N (N
    # contiguous, as the routine's transpose pre-pass leaves a column-major B), C is M x N
    # column-major; sizes are multiples of the tiles, so no padding.
    Case("clblast_xgemm", "clblast_xgemm.cl", "Xgemm", f"{GEMM * 16 // 64},{GEMM * 8 // 64}", "16,8",
         [f"int:{GEMM}", f"int:{GEMM}", f"int:{GEMM}", "float:1", "float:0",
          f"float4[{GEMM * GEMM // 4}]=rand:5", f"float4[{GEMM * GEMM // 4}]=rand:6",
          f"float4[{GEMM * GEMM // 4}]", "int:0", "int:0"],
         ["PRECISION=32", "ROUTINE_GEMM", *QCOM, "XGEMM_MIN_INDIRECT_SIZE=192",
          "GEMMK=0", "KREG=1", "KWG=32", "KWI=2", "MDIMA=16", "MDIMC=16", "MWG=64", "NDIMB=8",
          "NDIMC=8", "NWG=64", "SA=0", "SB=0", "STRM=0", "STRN=0", "VWM=4", "VWN=4"], CL11, "first:4"),
    # CLBlast Xim2colKernelNormal, Adreno 640 "Copy" entry: global = (Ceil(col_w, COPY_DIMX),
    # Ceil(col_h, COPY_DIMY) * channels), local = (COPY_DIMX, COPY_DIMY) (xim2col.cpp).
    Case("clblast_im2col", "clblast_im2col.cl", "Xim2colKernelNormal",
         f"{-(-IM_W // 16) * 16},{-(-IM_H // 8) * 8 * IM_C}", "16,8",
         [f"int:{IM_H}", f"int:{IM_W}", f"int:{IM_C}", f"int:{IM_H}", f"int:{IM_W}", "int:3", "int:3",
          "int:1", "int:1", "int:1", "int:1", "int:1", "int:1",
          f"float[{IM_C * IM_H * IM_W}]=rand:7", "int:0", f"float[{IM_C * 9 * IM_H * IM_W}]", "int:0"],
         ["PRECISION=32", "ROUTINE_IM2COL", *QCOM, "COPY_DIMX=16", "COPY_DIMY=8", "COPY_VW=1",
          "COPY_WPT=8"], CL11, "first:32"),
    # MACE depthwise_conv2d_s1 on images: gws = (C/4, W/4, H*B); lws from depthwise::LocalWS with
    # a 128 KiB global-memory cache (base = 8) and a kernel work-group limit of 256:
    # (min(gws0, 8), min(gws1, 256), 1) = (8, 28, 1).  Input image: (W * C/4) x (H * B) RGBA texels;
    # filter: (kh * kw * multiplier) x (C/4); bias: (C/4) x 1.
    Case("mace_depthwise_conv2d", "mace_depthwise_conv2d.cl", "depthwise_conv2d_s1",
         f"{DW_C // 4},{DW_W // 4},{DW_H}", f"{DW_C // 4},{DW_W // 4},1",
         [f"int:{DW_C // 4}", f"int:{DW_W // 4}", f"int:{DW_H}",
          f"img:rgba:float:{DW_W * DW_C // 4},{DW_H}=rand:8", f"img:rgba:float:9,{DW_C // 4}=rand:9",
          f"img:rgba:float:{DW_C // 4},1=rand:10", f"img:rgba:float:{DW_W * DW_C // 4},{DW_H}",
          "float:6", "float:0",
          f"short:{DW_H}", f"short:{DW_W}", f"short:{DW_C // 4}", f"short:{DW_H}", f"short:{DW_W}",
          "short:3", "short:3", "short:1", "short:1"],
         ["depthwise_conv2d_s1=depthwise_conv2d_s1", "DATA_TYPE=float", "CMD_DATA_TYPE=f", "BIAS",
          "STRIDE=1", "USE_RELUX", "NON_UNIFORM_WORK_GROUP"], MACE_OPTS, "first:8"),
    # MACE pooling (NHWC buffer): gws = (C/4, OW, OH*B), lws = {4, 4, 4} (buffer/pooling.cc).
    # SAME padding of a 3x3/2 window on 112: 1 padded column in total, pad_left = pad_top = 1/2 = 0.
    Case("mace_pooling_buffer", "mace_pooling_buffer.cl", "pooling",
         f"{PL_C // 4},{PL_OW},{PL_OH}", "4,4,4",
         [f"int:{PL_C // 4}", f"int:{PL_OW}", f"int:{PL_OH}", f"float[{PL_H * PL_W * PL_C}]=rand:11",
          f"int:{PL_H}", f"int:{PL_W}", f"int:{PL_C}", f"int:{PL_OH}", f"int:{PL_C}", "int:0", "int:0",
          "int:2", "int:2", "int:3", "int:3", f"float[{PL_OH * PL_OW * PL_C}]"],
         ["pooling=pooling", "IN_DATA_TYPE=float", "OUT_DATA_TYPE=float", "DATA_TYPE=float",
          "NON_UNIFORM_WORK_GROUP"], MACE_OPTS, "first:32"),
    # ACL softmax_x on a [256 keys, 256 queries, 8 heads] F32 tensor: the window drops dimension 0,
    # so gws = (256, 8, 1), one work-item per row; strides are those of dimensions 1, 2, 3.
    # ACL passes no LWS for this kernel (NullRange on non-Midgard GPUs): 64 x 1 x 1 stands for the
    # driver's choice.  Buffers are uchar (ACL's TENSOR pointers); bytes below 64 make finite floats.
    Case("acl_softmax_x", "acl_softmax_x.cl", "softmax_x", f"{SM_ROWS},{SM_HEADS},1", "64,1,1",
         [f"uchar[{SM_LEN * SM_ROWS * SM_HEADS * 4}]=rand:12:0:64", f"uint:{SM_LEN * 4}",
          f"uint:{SM_LEN * SM_ROWS * 4}", f"uint:{SM_LEN * SM_ROWS * SM_HEADS * 4}", "uint:0",
          f"uchar[{SM_LEN * SM_ROWS * SM_HEADS * 4}]", f"uint:{SM_LEN * 4}",
          f"uint:{SM_LEN * SM_ROWS * 4}", f"uint:{SM_LEN * SM_ROWS * SM_HEADS * 4}", "uint:0"],
         ["DATA_TYPE=float", "TMP_DATA_TYPE=float", "VEC_SIZE=4", "VEC_SIZE_LEFTOVER=0",
          f"LENGTH={SM_LEN}", "BETA=1", "SOFTMAX_X", *ACL_DEFS], ACL_OPTS, "first:8"),
    # ACL activation_layer HARD_SWISH on a 112x112x16 NHWC F32 tensor (ACL shape [16, 112, 112]):
    # VEC_SIZE = 16 / 4 = 4, gws = (16/4, 112, 112); TENSOR3D arguments: stride, step (stride x
    # elements per item), per dimension, then the offset.  No LWS from ACL: 4 x 16 x 1 stands for
    # the driver's choice.
    Case("acl_activation_hard_swish", "acl_activation_hard_swish.cl", "activation_layer",
         f"{HS_C // 4},{HS_W},{HS_H}", f"{HS_C // 4},16,1",
         [f"uchar[{HS_C * HS_W * HS_H * 4}]=rand:13:0:64", "uint:4", "uint:16",
          f"uint:{HS_C * 4}", f"uint:{HS_C * 4}", f"uint:{HS_C * HS_W * 4}", f"uint:{HS_C * HS_W * 4}",
          "uint:0",
          f"uchar[{HS_C * HS_W * HS_H * 4}]", "uint:4", "uint:16",
          f"uint:{HS_C * 4}", f"uint:{HS_C * 4}", f"uint:{HS_C * HS_W * 4}", f"uint:{HS_C * HS_W * 4}",
          "uint:0"],
         ["FLOAT_DOMAIN", "ACT=hard_swish", "DATA_TYPE=float", "VEC_SIZE=4", "VEC_SIZE_LEFTOVER=0",
          "A_VAL=0", "B_VAL=0", *ACL_DEFS], ACL_OPTS, "first:32"),
]


def command(c: Case) -> list[str]:
    cmd = [sys.executable, "-c", "from tracekit.cli import main; main()", "record", str(REL / c.file),
           "--kernel", c.kernel, "--global", c.global_size, "--local", c.local_size,
           "--sample", c.sample, "-o", str(TRACES / f"{c.name}.tkt")]
    for d in c.defines:
        cmd += ["-D", d]
    if c.build_options:
        cmd += ["--build-options", c.build_options]
    for a in c.args:
        cmd += ["--arg", a]
    return cmd


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(names: list[str]) -> int:
    unknown = set(names) - {c.name for c in CASES}
    if unknown:
        print(f"unknown case(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    (ROOT / TRACES).mkdir(exist_ok=True)
    failed = 0
    for c in CASES:
        if names and c.name not in names:
            continue
        t0 = time.perf_counter()
        r = subprocess.run(command(c), cwd=ROOT)
        dt = time.perf_counter() - t0
        out = ROOT / TRACES / f"{c.name}.tkt"
        size = du(out) if out.exists() else 0
        print(f"== {c.name:28s} rc={r.returncode} {size:>10,} bytes {dt:6.1f} s", flush=True)
        failed += r.returncode != 0
    total = sum(du(p) for p in (ROOT / TRACES).glob("*.tkt"))
    print(f"total {total:,} bytes in {TRACES}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
