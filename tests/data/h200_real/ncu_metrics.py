"""The Nsight Compute metrics run_ncu.sh collects, checked against what the installed ncu offers.

    python3 ncu_metrics.py [--ncu ncu] > metrics.txt      (one metric per line; dropped ones on stderr)

A metric name Nsight Compute does not know stops a whole profiling run, and the
names differ between ncu versions and chips, so the list is checked first: the
base name (before the first ``.``) against ``ncu --query-metrics`` and the full
name (base + rollup suffix) against ``ncu --query-metrics-mode suffix``.  Names
that fail either check are dropped and reported, never guessed.  Runs with the
device machine's plain python3 (standard library only).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

#: tests/data/h200/run_ncu.sh's list: the quantities tracekit calibrate compares.
BASE = [
    "gpu__time_duration.sum",
    "launch__grid_size",
    "launch__block_size",
    "launch__registers_per_thread",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
    "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
]

#: Added for the real-kernel suite and the probes.
EXTRA = [
    # throughput of the cache levels
    "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
    "l1tex__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "l1tex__cycles_active.avg",
    # L1: requests, sectors by outcome, tag lookups (set accesses), wavefronts
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_miss.sum",
    "l1tex__t_set_accesses_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_set_conflicts_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_bank_reads.sum",
    "l1tex__data_bank_writes.sum",
    "l1tex__lsuin_requests.sum",
    "l1tex__f_wavefronts.sum",
    "l1tex__m_xbar2l1tex_read_sectors.sum",
    "l1tex__m_l1tex2xbar_write_sectors.sum",
    # L2: sectors by operation and outcome
    "lts__t_sectors.sum",
    "lts__t_requests.sum",
    "lts__t_sectors_op_read.sum",
    "lts__t_sectors_op_write.sum",
    "lts__t_sectors_op_atom.sum",
    "lts__t_sectors_op_red.sum",
    "lts__t_sectors_op_read_lookup_hit.sum",
    "lts__t_sectors_op_read_lookup_miss.sum",
    "lts__t_sectors_op_write_lookup_hit.sum",
    "lts__t_sectors_op_write_lookup_miss.sum",
    "lts__t_sectors_op_atom_lookup_hit.sum",
    "lts__t_sectors_op_atom_lookup_miss.sum",
    "lts__t_sector_op_read_hit_rate.pct",
    "lts__t_sector_op_write_hit_rate.pct",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
    "lts__t_requests_srcunit_tex_op_read.sum",
    "lts__d_sectors_fill_device.sum",
    "lts__d_sectors_fill_sysmem.sum",
    # DRAM
    "dram__sectors_read.sum",
    "dram__sectors_write.sum",
    # clocks and cycles
    "sm__cycles_elapsed.avg",
    "sm__cycles_elapsed.max",
    "sm__cycles_active.avg",
    "smsp__cycles_active.avg",
    "gpc__cycles_elapsed.max",
    "sm__cycles_elapsed.avg.per_second",
    "dram__cycles_elapsed.avg.per_second",
    "lts__cycles_elapsed.avg",
    "lts__cycles_elapsed.avg.per_second",
    # instructions by operation and by pipe
    "smsp__sass_inst_executed_op_global_ld.sum",
    "smsp__sass_inst_executed_op_global_st.sum",
    "smsp__sass_inst_executed_op_global_atom.sum",
    "smsp__sass_inst_executed_op_global_red.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_local_ld.sum",
    "smsp__sass_inst_executed_op_local_st.sum",
    "smsp__sass_inst_executed_op_branch.sum",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_integer_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_conversion_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_control_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_memory_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_misc_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_inter_thread_communication_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_bit_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_uniform_pred_on.sum",
    "smsp__inst_executed_pipe_alu.sum",
    "smsp__inst_executed_pipe_fma.sum",
    "smsp__inst_executed_pipe_fmaheavy.sum",
    "smsp__inst_executed_pipe_fp64.sum",
    "smsp__inst_executed_pipe_lsu.sum",
    "smsp__inst_executed_pipe_xu.sum",
    "smsp__inst_executed_pipe_cbu.sum",
    "smsp__inst_executed_pipe_adu.sum",
    "smsp__inst_executed_pipe_uniform.sum",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    # warps, blocks, occupancy
    "smsp__warps_launched.sum",
    "sm__ctas_launched.sum",
    "sm__warps_active.avg.per_cycle_active",
    "launch__waves_per_multiprocessor",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    "launch__shared_mem_per_block_static",
    # where warps wait
    "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
    "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct",
    "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct",
    "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct",
    "smsp__warp_issue_stalled_barrier_per_warp_active.pct",
    "smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct",
    "smsp__warp_issue_stalled_wait_per_warp_active.pct",
    "smsp__warp_issue_stalled_not_selected_per_warp_active.pct",
    "smsp__warp_issue_stalled_selected_per_warp_active.pct",
    "smsp__warp_issue_stalled_no_instruction_per_warp_active.pct",
    "smsp__warp_issue_stalled_drain_per_warp_active.pct",
    "smsp__warp_issue_stalled_membar_per_warp_active.pct",
]

WANTED = BASE + [m for m in EXTRA if m not in BASE]
_NAME = re.compile(r"^\s*([a-z0-9]+__[A-Za-z0-9_.]+)")


def _names(cmd: list[str]) -> set[str] | None:
    """The metric names (first column) ncu lists for ``cmd``; None when the query fails."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"query failed: {' '.join(cmd)}: {exc}", file=sys.stderr)
        return None
    if p.returncode != 0:
        print(f"query failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}", file=sys.stderr)
        return None
    return {m.group(1) for line in p.stdout.splitlines() if (m := _NAME.match(line))}


def select(ncu: str) -> list[str]:
    bases = _names([ncu, "--query-metrics"]) or _names([ncu, "--query-metrics", "--chip", "gh100"])
    keep = WANTED
    if bases:
        keep = [m for m in WANTED if m.split(".")[0] in bases]
    wanted_bases = sorted({m.split(".")[0] for m in keep})
    full = _names([ncu, "--query-metrics-mode", "suffix", "--metrics", ",".join(wanted_bases)])
    if full is None:
        full = _names(
            [ncu, "--query-metrics-mode", "suffix", "--chip", "gh100", "--metrics", ",".join(wanted_bases)]
        )
    if full:
        # a base name with no suffix (launch__*, device__*) lists itself
        keep = [m for m in keep if m in full or ("." not in m and m in (bases or set()))]
    for m in WANTED:
        if m not in keep:
            print(f"dropped: {m}", file=sys.stderr)
    return keep


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--base-only", action="store_true", help="print tests/data/h200's list unchecked")
    opts = ap.parse_args()
    print("\n".join(BASE if opts.base_only else select(opts.ncu)))


if __name__ == "__main__":
    main()
