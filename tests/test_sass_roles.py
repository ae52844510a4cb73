"""SASS listings by role (tracekit/calibration/sass.py) and the H200 role factors they measure
(tracekit/calibration/roles.py, tests/data/h200_real/role_factors.py)."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import numpy as np
import pytest

from tracekit.calibration import roles, sass
from tracekit.calibration.calibrate import measured_frame
from tracekit.formats.ncu import read_ncu_raw
from tracekit.targets import load_target

REAL = Path(__file__).resolve().parent / "data" / "h200_real"

# A row walk as nvcc writes it: a loop unrolled twice over two pointers, a gather through a loaded
# index, the loop counter, and the thread's bounds check.
LISTING = """
        Function : walk
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   ULDC UR4, c[0x0][0x210] ;
        /*0020*/                   ISETP.GE.AND P0, PT, R0, UR4, PT ;
        /*0030*/               @P0 EXIT ;
        /*0040*/                   LDC.64 R2, c[0x0][0x218] ;
        /*0050*/                   ULDC.64 UR8, c[0x0][0x208] ;
        /*0060*/                   IMAD.WIDE R2, R0, 0x4, R2 ;
        /*0070*/                   LDC R10, c[0x0][0x214] ;
        /*0080*/                   LDC.64 R6, c[0x0][0x220] ;
        /*0090*/                   HFMA2.MMA R11, -RZ, RZ, 0, 0 ;
        /*00a0*/                   LDG.E R12, desc[UR8][R2.64] ;
        /*00b0*/                   LDG.E R13, desc[UR8][R2.64+0x4] ;
        /*00c0*/                   IMAD.WIDE R8, R12, 0x4, R6 ;
        /*00d0*/                   LDG.E R14, desc[UR8][R8.64] ;
        /*00e0*/                   FFMA R11, R13, R14, R11 ;
        /*00f0*/                   IADD3 R10, R10, -0x2, RZ ;
        /*0100*/                   IADD3 R2, P1, R2, 0x8, RZ ;
        /*0110*/                   IADD3.X R3, RZ, R3, RZ, P1, !PT ;
        /*0120*/                   ISETP.NE.AND P0, PT, R10, RZ, PT ;
        /*0130*/               @P0 BRA 0xa0 ;
        /*0140*/                   STG.E desc[UR8][R6.64], R11 ;
        /*0150*/                   EXIT ;
"""


@pytest.fixture(scope="module")
def walk():
    ins = sass.parse_listing(LISTING)["walk"]
    return {x.pc: (x, r) for x, r in zip(ins, sass.roles(ins), strict=True)}


def role(walk, pc):
    return walk[pc][1]


def test_parse_reads_destinations_uses_and_address_operands(walk):
    ld = walk[0xb0][0]
    assert ld.dests == ["R13"] and ld.address_uses == {"UR8", "R2", "R3"} and ld.is_memory
    wide = walk[0x60][0]
    assert wide.dests == ["R2", "R3"] and set(wide.uses) == {"R0", "R2", "R3"}
    carry = walk[0x100][0]
    assert carry.dests == ["R2", "P1"]
    br = walk[0x130][0]
    assert br.guard == "P0" and br.target == 0xA0


def test_pointer_arithmetic_is_address_and_a_loaded_index_is_indirect(walk):
    assert role(walk, 0x60) == "address"      # IMAD.WIDE of the row pointer
    assert role(walk, 0x100) == "address" and role(walk, 0x110) == "address"   # pointer increment
    assert role(walk, 0x40) == "address"      # the kernel parameter holding the base
    assert role(walk, 0xC0) == "indirect"     # x[col]: col was loaded at 0xa0


def test_counter_compare_and_back_edge_are_loop_control(walk):
    assert role(walk, 0xF0) == "loop" and role(walk, 0x120) == "loop" and role(walk, 0x130) == "loop"
    assert role(walk, 0x70) == "loop"         # the trip count's parameter load only feeds the counter


def test_work_and_memory_keep_no_role(walk):
    for pc in (0xA0, 0xB0, 0xD0, 0xE0, 0x140, 0x150):
        assert role(walk, pc) is None, hex(pc)
    # the thread index feeds the bounds check (not a loop's) and an address: the kernel's work
    assert role(walk, 0x0) is None and role(walk, 0x30) is None
    assert sass.group_of(walk[0xE0][0]) == "float" and sass.group_of(walk[0x90][0]) == "other"


def test_source_page_rows_are_read_per_launch():
    text = ('"Kernel Name","walk",\n"Address","Source","Instructions Executed"\n'
            '"0x10","      S2R R0, SR_TID.X","1,024"\n"0x20","@P0   EXIT","-"\n'
            '"Kernel Name","walk",\n"Address","Source","Instructions Executed"\n'
            '"0x10","S2R R0, SR_TID.X","8"\n')
    frames = sass.read_source_counts(csv.reader(io.StringIO(text)))
    assert [len(f) for f in frames] == [2, 1]
    assert frames[0]["executed"].tolist() == [1024.0, 0.0] and frames[1]["kernel"].iloc[0] == "walk"


@pytest.fixture(scope="module")
def real():
    sys.path.insert(0, str(REAL))
    import role_factors

    return role_factors.comparison("real")


def test_source_page_counts_are_the_launches_instruction_counts(real):
    """The per-instruction counts (a later run) add up to each launch's smsp__inst_executed.sum;
    SpMV's differs by 19 instructions in 1 M between the two runs."""
    m = measured_frame(read_ncu_raw(REAL / "ncu_raw.csv"))
    total = real.groupby("launch")["machine"].sum()
    np.testing.assert_allclose(total.to_numpy(), m["instructions_per_warp"].to_numpy(), rtol=1e-4)


def test_target_factors_are_what_the_suite_measures(real):
    measured = roles.measured_factors(real)
    target = load_target("nvidia-h200").ir_role_factors
    assert set(measured) == set(target)
    for k, v in target.items():
        assert v == pytest.approx(measured[k], rel=0.02), k


def test_roles_bring_ir_instruction_counts_to_the_device(real):
    """Priced with the factors, most launches are within 10 % of the device's instructions per warp."""
    f = {**load_target("nvidia-h200").ir_role_factors, "work": 1.0}
    t = real.assign(scaled=real["ir"] * real["cls"].map(f))
    per = t.groupby("launch")[["ir", "scaled", "machine"]].sum()
    raw = (abs(per["ir"] / per["machine"] - 1) <= 0.10).sum()
    scaled = (abs(per["scaled"] / per["machine"] - 1) <= 0.10).sum()
    assert raw <= 4 and scaled >= 12


def test_a_loop_round_a_barrier_has_no_loop_control():
    """nvcc keeps a loop that waits at a barrier rolled (its count known only at run time):
    its counter, compare and back edge run every iteration, as the recorder takes them."""
    with_bar = LISTING.replace("        /*00e0*/                   FFMA R11, R13, R14, R11 ;\n",
                               "        /*00e0*/                   FFMA R11, R13, R14, R11 ;\n"
                               "        /*00e8*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n")
    assert with_bar != LISTING
    ins = sass.parse_listing(with_bar)["walk"]
    got = {x.pc: r for x, r in zip(ins, sass.roles(ins), strict=True)}
    assert got[0x120] is None and got[0x130] is None and got[0xF0] is None
    assert sass.loop_branches(ins) == set()
