"""Peak arithmetic throughput computed from a target's own numbers.

A target file stores the inputs of the peak table (operations per instruction and
cycles per instruction, per ALU lane), never the GFLOPS result, so the printed
table is a check of the file: clock x compute units x issuers x lanes x ops /
cycles must reproduce the vendor's figures.  Rows that name an opclass also imply
that opclass's ``alu_cycles`` (cycles one wave keeps its issuer busy), which
:func:`implied_alu_cycles` returns for the tests to compare.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.targets.model import Target


@dataclass(frozen=True)
class PeakRow:
    data_type: str
    operation: str
    unit: str                    # "GFLOPS" | "GILOPS"
    ops_per_instruction: float   # per lane
    cycles_per_instruction: float
    value: float                 # in ``unit``
    opclass: str = ""


def peak_throughput(target: Target) -> list[PeakRow]:
    """The target's peak-throughput rows, each computed from lanes, clock and op rates."""
    lanes = target.compute_units * target.simd.issuers_per_cu * target.simd.lanes
    ghz = target.clock_mhz / 1000.0
    rows = []
    for r in target.peak_throughput:
        ops, cyc = float(r.ops_per_instruction), float(r.cycles_per_instruction)
        rows.append(PeakRow(data_type=r.data_type, operation=r.operation, unit=r.unit,
                            ops_per_instruction=ops, cycles_per_instruction=cyc,
                            value=ghz * lanes * ops / cyc, opclass=r.opclass))
    return rows


def implied_alu_cycles(target: Target) -> dict[str, float]:
    """Wave cycles per issue implied by the peak rows that name an opclass.

    A lane finishes ``ops_per_instruction / ops_per_result`` results every
    ``cycles_per_instruction`` cycles, so a wave of ``width`` items keeps an
    issuer of ``lanes`` lanes busy for width / lanes x cycles / results.
    """
    width, lanes = target.simd.width, target.simd.lanes
    out = {}
    for r in target.peak_throughput:
        if r.opclass:
            results = float(r.ops_per_instruction) / float(r.ops_per_result)
            out[r.opclass] = width / lanes * float(r.cycles_per_instruction) / results
    return out


def format_value(value: float) -> str:
    """Three significant figures, as vendor tables print them (1.07, 64, 192)."""
    return f"{value:.3g}"
