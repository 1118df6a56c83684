#!/bin/sh
# TeaLeaf with a deck of more than 64 KiB (BASE_DECK with 1100 comment lines, about 90 KB, after
# its first line): the run completes (exit 0, PASSED) and the result file's `deck` attribute
# holds the deck's text whole, byte for byte.
#   app_h5_deck.sh MPIEXEC NP TEALEAF READER BASE_DECK
set -u
mpiexec=$1 np=$2 exe=$3 reader=$4 base=$5
name=bigdeck_np$np
# an earlier run of this test killed hard (SIGKILL: ctest's or a batch job's time limit) can have
# left a temporary that no handler could remove; it is not this run's
rm -f "$name.in" "$name.h5" "$name.xmf" "$name.h5.tmp"* "$name.xmf.tmp"*
{
  head -n 1 "$base"
  i=0
  while [ $i -lt 1100 ]; do
    echo "! comment line $i: a deck may carry any amount of notes; this one is padded to 80 chars"
    i=$((i + 1))
  done
  tail -n +2 "$base"
} >"$name.in"
echo "$name.in: $(wc -c <"$name.in") bytes"
"$mpiexec" -n "$np" "$exe" --out "$name" "$name.in" >"$name.log" 2>&1
rc=$?
grep -E "PASSED|error|Results written" "$name.log"
fail=0
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; fail=1; }
grep -q "This test is considered PASSED" "$name.log" || { echo "FAIL: not PASSED"; fail=1; }
"$reader" --attr "$name.h5" / deck "$name.in" || fail=1
ls -d "$name.h5.tmp"* "$name.xmf.tmp"* >/dev/null 2>&1 && { echo "FAIL: a temporary was left"; fail=1; }
[ $fail -eq 0 ] && echo PASS
exit $fail
