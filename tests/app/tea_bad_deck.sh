#!/bin/sh
# A malformed deck must stop TeaLeaf with a non-zero exit status and one clear message that
# names the deck (and, when given, the line) and matches PATTERN.
#   tea_bad_deck.sh MPIEXEC NP TEALEAF DECK PATTERN
set -u
mpiexec=$1 np=$2 exe=$3 deck=$4 pattern=$5
out=$("$mpiexec" -n "$np" "$exe" --no-h5 "$deck" 2>&1)
rc=$?
echo "$out"
echo "exit status: $rc"
[ $rc -ne 0 ] || { echo "FAIL: exit status 0"; exit 1; }
echo "$out" | grep -E "tealeaf: .*$(basename "$deck")" | grep -Eq -- "$pattern" ||
  { echo "FAIL: no message matching '$pattern'"; exit 1; }
n=$(echo "$out" | grep -c "error in the input deck")
[ "$n" -eq 1 ] || { echo "FAIL: expected the message once, got $n"; exit 1; }
echo "PASS"
