#!/usr/bin/env bash
# Per-instruction execution counts of the suite's SASS, and warp-request latency against the
# lines a request touches, on an NVIDIA H200 with Nsight Compute.
#   bash tests/data/h200_real/run_sass_counts.sh OUTDIR [SECONDS]
# Writes, each as soon as it exists:
#   sass_counts_build.txt       nvcc and ncu versions
#   chase_lines.csv             chase_lines.cu: ns per step of one warp whose k lanes chase k lines
#   realkernels_source.csv.gz   ncu --page source --print-source sass --csv of every launch of
#                               realkernels.cu, SourceCounters section (Instructions Executed per SASS
#                               instruction, warp level); launch i = twin launch i
#   microkernels_source.csv.gz  the same for tests/data/h200/microkernels.cu
#   realkernels_device.sass.gz, microkernels_device.sass.gz
#                               cuobjdump -sass of the binaries profiled (NOPs kept), whose
#                               instructions the source pages list in the same order
# SECONDS (default 380) bounds the whole run; each step gets what is left.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here}"
budget="${2:-380}"
mkdir -p "$out"
work="$(mktemp -d)"
NVCC=(nvcc -O3 -arch=sm_90 -lineinfo)

# shellcheck source=steps.sh
. "$here/steps.sh"   # left, step
# source_page NAME: the SASS source page of $work/NAME.ncu-rep, gzipped into $out
source_page() {
  ncu --import "$work/$1.ncu-rep" --page source --print-source sass --csv > "$work/$1_source.csv" 2> "$work/$1_err.txt"
  if ! grep -q '^"Address"' "$work/$1_source.csv"; then
    echo "source page of $1 has no Address rows:"; head -5 "$work/$1_source.csv"; cat "$work/$1_err.txt"
    ncu --import "$work/$1.ncu-rep" --page source --csv > "$work/$1_source.csv" 2>> "$work/$1_err.txt"
  fi
  gzip -c "$work/$1_source.csv" > "$out/$1_source.csv.gz"
  echo "$1: $(grep -c '^"Kernel Name"' "$work/$1_source.csv") launches, $(wc -l < "$work/$1_source.csv") lines"
}

{ nvcc --version | tail -1; ncu --version | tail -1; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "measured: $(date -u +%Y-%m-%d)"; } > "$out/sass_counts_build.txt"
"${NVCC[@]}" -o "$work/realkernels" "$here/realkernels.cu" & p1=$!
"${NVCC[@]}" -o "$work/microkernels" "$here/../h200/microkernels.cu" & p2=$!
"${NVCC[@]}" -o "$work/chase_lines" "$here/chase_lines.cu" & p3=$!
wait $p1; a=$?; wait $p2; b=$?; wait $p3; c=$?
echo "builds: realkernels $a, microkernels $b, chase_lines $c"
(( a == 0 )) && cuobjdump -sass "$work/realkernels" | gzip > "$out/realkernels_device.sass.gz"
(( b == 0 )) && cuobjdump -sass "$work/microkernels" | gzip > "$out/microkernels_device.sass.gz"

(( c == 0 )) && step chase_lines 60 "$work/chase_lines" "$out/chase_lines.csv" > /dev/null
if (( a == 0 )); then
  step ncu_real 170 ncu --clock-control none --section SourceCounters --import-source no -f -o "$work/realkernels" \
    "$work/realkernels" > "$work/real_run.txt" 2>&1
  tail -3 "$work/real_run.txt"
  [ -f "$work/realkernels.ncu-rep" ] && source_page realkernels
fi
if (( b == 0 )); then
  step ncu_micro 110 ncu --clock-control none --section SourceCounters --import-source no -f -o "$work/microkernels" \
    "$work/microkernels" > "$work/micro_run.txt" 2>&1
  tail -3 "$work/micro_run.txt"
  [ -f "$work/microkernels.ncu-rep" ] && source_page microkernels
fi
ls -la "$out"
rm -rf "$work"
echo "done in ${SECONDS}s"
