#!/usr/bin/env bash
# Regenerate the measured calibration CSVs on an NVIDIA H200 with Nsight Compute.
#   bash tests/data/h200/run_ncu.sh OUTDIR
# Writes OUTDIR/ncu_raw.csv (ncu --csv --page raw, one row per kernel launch, with
# ncu's banner and units rows kept as ncu prints them), OUTDIR/device.txt and
# OUTDIR/build.txt (nvcc's resource report) and OUTDIR/microkernels.sass (the SASS, to
# count instructions against the twins' IR).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here}"
mkdir -p "$out"
work="$(mktemp -d)"
nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v -o "$work/microkernels" "$here/microkernels.cu" 2> "$out/build.txt"
# The SASS the device runs, for counting instructions against the twins' IR.
{ echo "// cuobjdump -sass of microkernels.cu (nvcc -O3 -arch=sm_90 -lineinfo);"
  echo "// $(nvcc --version | tail -1); instruction encodings removed"
  cuobjdump -sass "$work/microkernels" | sed -E 's| */\* 0x[0-9a-f]{16} \*/||' | grep -vE '^\s*(/\* 0x[0-9a-f]{16} \*/)?\s*$' \
    | grep -vE 'NOP ?;\s*$'; } > "$out/microkernels.sass"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv > "$out/device.txt"
ncu --version >> "$out/device.txt"
echo "measured: $(date -u +%Y-%m-%d)" >> "$out/device.txt"
metrics=(
  gpu__time_duration.sum
  launch__grid_size launch__block_size launch__registers_per_thread
  smsp__thread_inst_executed_per_inst_executed.ratio
  smsp__inst_executed.sum smsp__thread_inst_executed.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sector_hit_rate.pct lts__t_sector_hit_rate.pct
  l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
  smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  dram__bytes_read.sum dram__bytes_write.sum
  sm__throughput.avg.pct_of_peak_sustained_elapsed
  gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
  dram__throughput.avg.pct_of_peak_sustained_elapsed
  sm__warps_active.avg.pct_of_peak_sustained_active
  sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
)
IFS=,; m="${metrics[*]}"; unset IFS
ncu --clock-control none --csv --page raw --metrics "$m" "$work/microkernels" > "$out/ncu_raw.csv"
echo "wrote $out/ncu_raw.csv ($(grep -c '^"' "$out/ncu_raw.csv") lines)"
# Nsight Compute's own Speed-of-Light verdict per kernel (section + rule output).
ncu --clock-control none --csv --page details --section SpeedOfLight --print-rule-details "$work/microkernels" > "$out/ncu_sol.csv"
echo "wrote $out/ncu_sol.csv"
