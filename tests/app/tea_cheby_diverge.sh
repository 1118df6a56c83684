#!/bin/sh
# A Chebyshev solve that diverges (tests/app/decks/cheby_diverge.in: a poor eigenvalue estimate)
# stops with one message in the user's words and exit status 1, the same with ordinary sums,
# with --reproducible and from the recorded loop (TEA_DEVICE_LOOP=1); the same deck stopped by
# tl_max_iters before the residual has grown far still ends NOT CONVERGED with exit status 0.
#   tea_cheby_diverge.sh MPIEXEC NP TEALEAF DECK
set -u
mpiexec=$1 np=$2 exe=$3 deck=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/tea_cheby_diverge.XXXXXX") || exit 1
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
first=
for mode in ordinary reproducible loop; do
  case $mode in
  ordinary) set -- --sums ordinary ;;
  reproducible) set -- --reproducible ;;
  loop) set -- --sums ordinary ;;
  esac
  if [ $mode = loop ]; then
    TEA_DEVICE_LOOP=1 "$mpiexec" -n "$np" "$exe" --no-h5 "$@" "$deck" >$mode.log 2>&1
  else
    "$mpiexec" -n "$np" "$exe" --no-h5 "$@" "$deck" >$mode.log 2>&1
  fi
  rc=$?
  echo "--- $mode: exit status $rc"
  grep -a "error" $mode.log | grep -v ORTE_
  [ $rc -eq 1 ] || fail "$mode: exit status $rc, not 1"
  line=$(grep -a "^tealeaf: rank 0: error: " $mode.log | head -n 1 | sed 's/^tealeaf: rank 0: error: //')
  case $line in
  "the Chebyshev solve diverged: at solver iteration "*) ;;
  *) fail "$mode: the message does not say that the solve diverged: '$line'" ;;
  esac
  grep -q "error: [a-z_0-9]*(.*) failed (" $mode.log && fail "$mode: a C expression leads"
  grep -q "error: .*overflow double" $mode.log && fail "$mode: 'overflow double precision' said"
  grep -q "iterations .*NOT CONVERGED" $mode.log && fail "$mode: NOT CONVERGED printed"
  [ -z "$first" ] && first=$line
  [ "$line" = "$first" ] || fail "$mode: another message than the ordinary sums'"
done
echo "--- stopped by tl_max_iters=20 before it has grown far: NOT CONVERGED, as before"
sed 's/^tl_max_iters=500/tl_max_iters=20/' "$deck" >short.in
for m in "--sums ordinary" --reproducible; do
  "$mpiexec" -n "$np" "$exe" --no-h5 $m short.in >short.log 2>&1
  rc=$?
  [ $rc -eq 0 ] || { cat short.log; fail "tl_max_iters=20 $m: exit status $rc, not 0"; }
  grep -q "iterations .*NOT CONVERGED" short.log || fail "tl_max_iters=20 $m: NOT CONVERGED not printed"
  grep -q "error:" short.log && fail "tl_max_iters=20 $m: an error printed"
done
cd .. || exit 1
if [ $fails -eq 0 ]; then
  rm -rf "$work"
  echo PASS
  exit 0
fi
echo "FAILED ($fails); files kept in $work"
exit 1
