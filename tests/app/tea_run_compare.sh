#!/bin/sh
# Run TeaLeaf on a deck and compare with the reference's shipped output:
# the per-step "Iteration count" values must be equal and the final U within RELTOL.
#   tea_run_compare.sh MPIEXEC NP TEALEAF DECK REF_OUT RELTOL [extra tealeaf args...]
set -u
mpiexec=$1 np=$2 exe=$3 deck=$4 ref=$5 tol=$6
shift 6
# a log of its own: tests of one deck and rank count on other back ends run at the same time
log=$(mktemp "./$(basename "$deck" .in).np$np.XXXXXX.log") || exit 1
"$mpiexec" -n "$np" "$exe" "$@" "$deck" >"$log" 2>&1
rc=$?
cat "$log"
if [ $rc -ne 0 ]; then echo "FAIL: tealeaf exited with $rc"; exit 1; fi
got=$(grep '^Iteration count' "$log" | awk '{print $3}' | tr '\n' ' ')
want=$(grep '^Iteration count' "$ref" | awk '{print $3}' | tr '\n' ' ')
echo "iterations: got  [$got]"
echo "iterations: want [$want]"
if [ "$got" != "$want" ]; then echo "FAIL: per-step iteration counts differ"; exit 1; fi
ugot=$(grep ' step:' "$log" | tail -1 | awk '{print $7}')
uwant=$(grep ' step:' "$ref" | tail -1 | awk '{print $7}')
awk -v g="$ugot" -v w="$uwant" -v t="$tol" 'BEGIN {
  g += 0; w += 0; d = (g - w) / w; if (d < 0) d = -d;
  printf "U: got %.17g want %.17g relative difference %.3g (tolerance %s)\n", g, w, d, t;
  exit (d <= t + 0 && g == g) ? 0 : 1 }' || { echo "FAIL: U differs"; exit 1; }
rm -f "$log" # kept only when the test fails
echo "PASS"
