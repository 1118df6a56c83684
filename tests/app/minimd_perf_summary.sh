#!/bin/sh
# miniMD's Performance Summary tells the truth: its times add up (t_total = t_force + t_neigh +
# t_comm + t_other to the printed digits, t_other >= 0: the last force evaluation after the
# loop had been counted in t_force, making t_other negative) and OMP_threads is the threads
# that ran the kernels (1 for the Serial back end, whatever OpenMP's count).
#   minimd_perf_summary.sh MPIEXEC MINIMD DECK BACKEND WANT_THREADS MINIMD_ARGS...
# (one rank under MPIEXEC, as the other app tests: LeakSanitizer's tracer has crashed at the
# exit of sanitized singleton runs)
set -u
mpiexec=$1 exe=$2 deck=$3 backend=$4 want=$5
shift 5
dir=$(mktemp -d "${TMPDIR:-/tmp}/minimd_perf.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
(cd "$dir" && "$mpiexec" -n 1 "$exe" -i "$deck" --no-h5 --porta-backend="$backend" "$@" \
  >run.log 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  cat "$dir/run.log"
  echo "FAIL: minimd exited with $rc"
  exit 1
fi
line=$(grep -A1 '^# MPI_proc OMP_threads' "$dir/run.log" | tail -n 1)
echo "summary: $line"
echo "$line" | awk -v want="$want" '{
  sum = $6 + $7 + $8 + $9
  bad = 0
  if ($2 != want) { print "FAIL: OMP_threads " $2 ", want " want; bad = 1 }
  if ($9 < 0) { print "FAIL: t_other " $9 " is negative"; bad = 1 }
  d = $5 - sum; if (d < 0) d = -d
  if (d > 3e-6) { print "FAIL: t_total " $5 " but the parts add up to " sum; bad = 1 }
  if (NF < 12) { print "FAIL: not a summary line"; bad = 1 }
  exit bad
}' || exit 1
echo "PASS: the parts add up to t_total, t_other >= 0, OMP_threads $want"
