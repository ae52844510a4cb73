#!/usr/bin/env bash
# Measure the real-kernel suite and the probes on an NVIDIA H200 with Nsight Compute.
#   bash tests/data/h200_real/run_ncu.sh OUTDIR [SECONDS]
# Everything is written to OUTDIR as soon as it exists; SECONDS (default 560) bounds
# the whole run, each step getting what is left (a step cut short leaves what it wrote).
#   build.txt            nvcc resource reports (-Xptxas -v) of both programs
#   realkernels.sass     cuobjdump -sass of realkernels.cu (encodings removed); probes.sass likewise
#   device.txt           GPU, driver, ncu version, date (the format tracekit.calibration_summary reads)
#   metrics.txt          the metrics collected: ncu_metrics.py's list, checked against this ncu
#   run.txt              realkernels' own output: launch table and result checks
#   ncu_raw.csv          ncu --csv --page raw over every launch of realkernels (ID i = twin launch i)
#   ncu_sol.csv          ncu --csv --page details --section SpeedOfLight --print-rule-details, same launches
#   probes_chase.csv     pointer-chase latencies (cycles, ns) from probes chase
#   probes_ncu_raw.csv   ncu --csv --page raw over the pitch-sweep and L1-line probes
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here}"
budget="${2:-560}"
mkdir -p "$out"
work="$(mktemp -d)"
NVCC=(nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v)

# shellcheck source=steps.sh
. "$here/steps.sh"   # left, step

sass() {  # cuobjdump -sass without encodings or NOPs
  echo "// cuobjdump -sass of $2 (nvcc -O3 -arch=sm_90 -lineinfo); $(nvcc --version | tail -1); encodings removed"
  cuobjdump -sass "$1" | sed -E 's| */\* 0x[0-9a-f]{16} \*/||' | grep -vE '^\s*(/\* 0x[0-9a-f]{16} \*/)?\s*$' \
    | grep -vE 'NOP ?;\s*$'
}

echo "== build (at ${SECONDS}s)" >&2
"${NVCC[@]}" -o "$work/realkernels" "$here/realkernels.cu" 2> "$work/build_real.txt" & p1=$!
"${NVCC[@]}" -o "$work/probes" "$here/probes.cu" 2> "$work/build_probes.txt" & p2=$!
wait $p1; a=$?; wait $p2; b=$?
if (( a || b )); then cat "$work"/build_*.txt; exit 1; fi
cat "$work/build_real.txt" "$work/build_probes.txt" > "$out/build.txt"
sass "$work/realkernels" realkernels.cu > "$out/realkernels.sass"
sass "$work/probes" probes.cu > "$out/probes.sass"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  ncu --version
  echo "measured: $(date -u +%Y-%m-%d)"; } > "$out/device.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$out/run.txt"

step metrics 90 python3 "$here/ncu_metrics.py" > "$out/metrics.txt" 2> "$work/metrics_dropped.txt"
cat "$work/metrics_dropped.txt"
[ -s "$out/metrics.txt" ] || python3 "$here/ncu_metrics.py" --base-only > "$out/metrics.txt"
metrics="$(paste -sd, "$out/metrics.txt")"
echo "collecting $(wc -l < "$out/metrics.txt") metrics"

step run 90 "$work/realkernels" >> "$out/run.txt" 2>&1
tail -3 "$out/run.txt"
step chase 90 "$work/probes" chase "$out/probes_chase.csv"

# ncu: raw counters over every launch; if the checked list is still refused, the base list
step ncu_raw 300 ncu --clock-control none --csv --page raw --metrics "$metrics" "$work/realkernels" > "$out/ncu_raw.csv"
if ! grep -q '^"ID"' "$out/ncu_raw.csv"; then
  head -20 "$out/ncu_raw.csv"
  metrics="$(python3 "$here/ncu_metrics.py" --base-only | paste -sd,)"
  step ncu_raw_base 200 ncu --clock-control none --csv --page raw --metrics "$metrics" "$work/realkernels" > "$out/ncu_raw.csv"
fi
echo "ncu_raw.csv: $(grep -c '^"[0-9]' "$out/ncu_raw.csv") launches"
step ncu_probes 150 ncu --clock-control none --csv --page raw --metrics "$metrics" \
  --kernel-name regex:'^(pitch_walk|l1_lines|l1_lines_spread|l1_lines_v4)$' "$work/probes" counters > "$out/probes_ncu_raw.csv"
echo "probes_ncu_raw.csv: $(grep -c '^"[0-9]' "$out/probes_ncu_raw.csv") launches"
step ncu_sol 150 ncu --clock-control none --csv --page details --section SpeedOfLight --print-rule-details \
  "$work/realkernels" > "$out/ncu_sol.csv"
echo "ncu_sol.csv: $(grep -c '^"[0-9]' "$out/ncu_sol.csv") rows"
rm -rf "$work"
echo "done in ${SECONDS}s"
