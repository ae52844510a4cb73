# Shared by run_ncu.sh and run_sass_counts.sh (sourced; needs $budget set): each step of a
# measurement run gets what is left of the run's time budget.
left() { echo $(( budget - SECONDS )); }
# step NAME CAP CMD...: run CMD under a timeout of min(CAP, time left - 5 s); log its status
step() {
  local name="$1" cap="$2"; shift 2
  local t; t=$(left); t=$(( t - 5 < cap ? t - 5 : cap ))
  if (( t < 5 )); then echo "== $name: skipped, no time left" >&2; return 124; fi
  echo "== $name (at ${SECONDS}s, limit ${t}s)" >&2
  timeout --signal=INT --kill-after=10 "$t" "$@"
  local rc=$?
  echo "== $name: exit $rc after ${SECONDS}s" >&2
  return $rc
}
