#!/bin/sh
# A malformed deck must stop TeaLeaf with exit status 2 and one clear message that
# names the deck (and, when given, the line) and matches PATTERN.
#   tea_bad_deck.sh [MODE] [--vmem=KB] MPIEXEC NP TEALEAF DECK PATTERN [TEALEAF_ARGS...]
# MODE:
#   (none)   refused by the parser: "tealeaf: error in the input deck: DECK:LINE: ..." once
#   --load   refused when loading (too large, a device, ...): "tealeaf: DECK: ..." once
#   --fail   the run starts and must stop with exit status != 0 and PATTERN in the output
#   --run    the deck must be accepted and run: exit status 0, no NaN or Inf in the report,
#            PATTERN (may be '') in the output
# --vmem=KB runs TeaLeaf under `ulimit -v KB` (a guard against a run that allocates without
# bound; skipped in sanitizer builds and with CUDA, which reserve large address ranges).
set -u
mode=refuse
vmem=
while :; do
  case "${1:-}" in
  --load) mode=load; shift ;;
  --fail) mode=fail; shift ;;
  --run) mode=run; shift ;;
  --vmem=*) vmem=${1#--vmem=}; shift ;;
  *) break ;;
  esac
done
mpiexec=$1 np=$2 exe=$3 deck=$4 pattern=$5
shift 5
if [ -n "$vmem" ] && [ -z "${ASAN_OPTIONS:-}" ] && ! grep -q cudaMalloc "$exe" 2>/dev/null; then
  ulimit -v "$vmem" || echo "note: ulimit -v $vmem not applied"
fi
. "$(dirname "$0")/one_rank_quick_exit.sh"
out=$("$mpiexec" -n "$np" "$exe" --no-h5 "$@" "$deck" 2>&1)
rc=$?
echo "$out"
echo "exit status: $rc"
case $mode in
run)
  [ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
  if echo "$out" | grep -Eiq '(^|[^a-z])(nan|inf|infinity)([^a-z]|$)'; then
    echo "FAIL: NaN or Inf in the output"
    exit 1
  fi
  [ -z "$pattern" ] || echo "$out" | grep -Eq -- "$pattern" ||
    { echo "FAIL: no output matching '$pattern'"; exit 1; }
  echo "PASS"
  exit 0
  ;;
fail)
  [ $rc -ne 0 ] || { echo "FAIL: exit status 0"; exit 1; }
  echo "$out" | grep -Eq -- "$pattern" || { echo "FAIL: no message matching '$pattern'"; exit 1; }
  echo "PASS"
  exit 0
  ;;
esac
# refused at input: exit status 2 (README, "Exit status")
[ $rc -eq 2 ] || { echo "FAIL: exit status $rc (expected 2)"; exit 1; }
echo "$out" | grep -E "tealeaf: .*$(basename "$deck")" | grep -Eq -- "$pattern" ||
  { echo "FAIL: no message matching '$pattern'"; exit 1; }
if [ $mode = load ]; then
  n=$(echo "$out" | grep -E "tealeaf: .*$(basename "$deck")" | grep -Ec -- "$pattern")
else
  n=$(echo "$out" | grep -c "error in the input deck")
fi
[ "$n" -eq 1 ] || { echo "FAIL: expected the message once, got $n"; exit 1; }
echo "PASS"
