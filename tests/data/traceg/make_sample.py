"""Writes kernel-1.traceg and kernelslist.g: a small hand-made Accel-Sim trace (see README.md).

    python tests/data/traceg/make_sample.py

Two thread blocks of 64 threads (two warps each; the last warp has only its low
16 lanes active) run a load / shared store / barrier / shared load / divergent
arithmetic / store sequence, with addresses in all three encodings.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
GLOBAL_IN = 0x7F2A40000000
GLOBAL_OUT = 0x7F2A40800000
FORMAT_LINE = ("#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
               "mem_width [adrrescompress?] [mem_addresses] immediate")
HEADER = [
    "-kernel name = _Z13shared_stridePKfPfi", "-kernel id = 1", "-grid dim = (2,1,1)",
    "-block dim = (64,1,1)", "-shmem = 4224", "-nregs = 16", "-binary version = 90",
    "-cuda stream id = 0", "-shmem base_addr = 0x00007f2a3c000000",
    "-local mem base_addr = 0x00007f2a3e000000", "-nvbit version = 1.7.1",
    "-accelsim tracer version = 4", "-enable lineinfo = 0", "", FORMAT_LINE, "",
]


def warp_lines(block: int, warp: int, mask: int) -> list[str]:
    lanes = [lane for lane in range(32) if mask >> lane & 1]
    t0 = warp * 32
    m = f"{mask:08x}"
    base = GLOBAL_IN + (block * 64 + t0 + lanes[0]) * 4
    # shared load: stride of 2 words, wrapping at 48 words (base + deltas encoding)
    offs = [((lane * 2) % 48) * 4 for lane in lanes]
    deltas = " ".join(str(offs[i] - offs[i - 1]) for i in range(1, len(offs)))
    # global store: one listed address per lane, reversed within the warp
    stores = " ".join(f"0x{GLOBAL_OUT + (block * 64 + t0 + 31 - lane) * 4:016x}" for lane in lanes)
    return [
        f"0000 {m} 1 R1 LDC 1 R255 0 0 ",
        f"0010 {m} 1 R0 S2R 0 0 0 ",
        f"0020 {m} 1 R3 S2R 0 0 0 ",
        f"0030 {m} 1 R5 IMAD 2 R3 R0 0 0 ",
        f"0040 {m} 1 R2 IMAD.WIDE 1 R5 0 4 ",
        f"0050 {m} 1 R7 LDG.E 2 R2 R3 4 1 0x{base:x} 4 0 ",
        f"0060 {m} 0 STS 2 R4 R7 4 1 0x{(t0 + lanes[0]) * 4:x} 4 0 ",
        f"0070 {m} 0 BAR.SYNC.DEFER_BLOCKING 0 0 0 ",
        f"0080 {m} 1 R6 IMAD.SHL.U32 1 R0 0 8 ",
        f"0090 {m} 1 R9 LDS 1 R6 4 2 0x{offs[0]:x} {deltas} 0 ",
        f"00a0 {m} 0 ISETP.NE.AND 2 R0 R255 0 0 ",
        f"00b0 {mask & 0x55555555:08x} 1 R9 FFMA 2 R9 R9 0 0 ",
        f"00c0 {mask & 0xAAAAAAAA:08x} 1 R9 FMUL 1 R9 0 0 ",
        f"00d0 {mask & 1:08x} 1 R10 MUFU.EX2 1 R9 0 0 ",
        f"00e0 {m} 0 STG.E 2 R2 R9 4 0 {stores} 0 ",
        f"00f0 {m} 0 EXIT 0 0 0 ",
    ]


def main() -> None:
    out = list(HEADER)
    for block in range(2):
        out += ["", "#BEGIN_TB", "", f"thread block = {block},0,0"]
        for warp in range(2):
            mask = 0x0000FFFF if (block, warp) == (1, 1) else 0xFFFFFFFF
            lines = warp_lines(block, warp, mask)
            out += ["", f"warp = {warp}", f"insts = {len(lines)}"] + lines
        out += ["", "#END_TB"]
    (HERE / "kernel-1.traceg").write_text("\n".join(out) + "\n")
    (HERE / "kernelslist.g").write_text("MemcpyHtoD,0x00007f2a40000000,512\nkernel-1.traceg\n")


if __name__ == "__main__":
    main()
