#!/bin/sh
# One TeaLeaf rank whose start-up allocations fail (an address-space limit, `ulimit -v`, on that
# rank only) while the other's succeed: every rank must stop on the same path, exit 1 (a run
# error), the limited rank naming what it could not allocate and how much, the other saying that
# another rank failed; no hang (the ranks had waited in different collectives of the start-up:
# issue 68), no MPI_Abort, and a result already at the output's name is kept, no temporary left.
# Run twice: the limit on rank 0, then on rank 1. Exit 77 (skipped, saying why) in a sanitized
# build (AddressSanitizer reserves terabytes of address space: no `ulimit -v` applies) or where
# MPI cannot start under the limit.
#   tea_rank_oom.sh MPIEXEC TEALEAF DECK
# DECK is a small deck (tea_bm_1.in): the test runs it with 2000 x 2000 cells, whose fields
# (20 of at least 1002 x 2002 doubles a rank, 321 MB) cannot fit under the limit of 300 MB,
# while MPI and the app's start-up (about 220 MB of address space here) do.
set -u
mpiexec=$1 exe=$2 deck=$3
limit_kb=300000
if [ -n "${ASAN_OPTIONS:-}" ]; then
  echo "SKIP: a sanitized build cannot run under ulimit -v"
  exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/tea_rank_oom.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
sed -e 's/^x_cells=.*/x_cells=2000/' -e 's/^y_cells=.*/y_cells=2000/' \
  -e 's/^end_step=.*/end_step=1/' "$deck" >big.in || exit 1
if ! grep -q '^x_cells=2000' big.in || ! grep -q '^y_cells=2000' big.in; then
  echo "FAIL: could not make the 2000 x 2000 deck from $deck"
  exit 1
fi
# run NAME LIMITED_RANK DECK: 2 ranks, LIMITED_RANK under the limit; out.log, status in rc
run() {
  lim="ulimit -v $limit_kb && exec \"\$0\" \"\$@\""
  if [ "$2" -eq 0 ]; then
    timeout 120 "$mpiexec" -n 1 sh -c "$lim" "$exe" --out "$1" "$3" : -n 1 "$exe" --out "$1" "$3" \
      >out.log 2>&1
  else
    timeout 120 "$mpiexec" -n 1 "$exe" --out "$1" "$3" : -n 1 sh -c "$lim" "$exe" --out "$1" "$3" \
      >out.log 2>&1
  fi
  rc=$?
}
# the small deck runs with the limit: MPI and the app start under it (else nothing to test)
run small 0 "$deck"
if [ $rc -ne 0 ]; then
  cat out.log
  echo "SKIP: the small deck does not run with a rank under ulimit -v $limit_kb (exit $rc)"
  exit 77
fi
fail=0
for limited in 0 1; do
  other=$((1 - limited))
  echo "previous result" >res.h5
  run res $limited big.in
  echo "== rank $limited under ulimit -v $limit_kb: exit $rc"
  cat out.log
  [ $rc -eq 124 ] && { echo "FAIL: the job hung (killed after 120 s)"; fail=1; }
  [ $rc -eq 124 ] || [ $rc -eq 1 ] || { echo "FAIL: exit status $rc (expected 1)"; fail=1; }
  grep -Eq "^tealeaf: rank $limited: error: allocating the fields \(20 of [0-9]+ x [0-9]+ values, at least [0-9.]+ MB\) failed: .*could not allocate [0-9]+ bytes" out.log ||
    { echo "FAIL: rank $limited does not name what it could not allocate"; fail=1; }
  grep -q "^tealeaf: rank $other: error: stopping: allocating the fields failed on another rank" \
    out.log || { echo "FAIL: rank $other does not say that another rank failed"; fail=1; }
  grep -q "MPI_ABORT" out.log && { echo "FAIL: the run ended through MPI_Abort"; fail=1; }
  [ "$(cat res.h5)" = "previous result" ] ||
    { echo "FAIL: the previous res.h5 was not kept"; fail=1; }
  leftover=""
  for f in * .[!.]*; do
    case $f in
    big.in | out.log | res.h5 | small.* | '*' | '.[!.]*') ;;
    *) leftover="$leftover $f" ;;
    esac
  done
  [ -z "$leftover" ] || { echo "FAIL: files left behind: $leftover"; fail=1; }
done
[ $fail -eq 0 ] && echo PASS
exit $fail
