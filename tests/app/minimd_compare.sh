#!/bin/sh
# miniMD against the reference's thermo output: runs minimd on NP ranks in a directory of its
# own and compares its printed thermo lines (step T U P) with a reference file of lines
# "step T U P" (inputs/minimd/reference): the same steps, and every value within one unit of
# the last of its 7 printed significant digits.
#   minimd_compare.sh MPIEXEC NP MINIMD REF [--conserve TOL] [--expect TEXT] -- MINIMD_ARGS...
# --conserve TOL: also the total energy 1.5 T + U (LJ units) may not move by more than TOL
# (relative) from its value at step 0 on any printed step.
# --expect TEXT: the output must also have a line containing TEXT (the path a run took).
set -u
mpiexec=$1 np=$2 exe=$3 ref=$4
shift 4
conserve="" expect=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    --conserve) conserve=$2; shift 2 ;;
    --expect) expect=$2; shift 2 ;;
    *) echo "minimd_compare.sh: unknown argument $1"; exit 2 ;;
  esac
done
[ "${1:-}" = "--" ] && shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/minimd_cmp.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
(cd "$dir" && "$mpiexec" -n "$np" "$exe" --no-h5 "$@" >run.log 2>&1)
rc=$?
cat "$dir/run.log"
if [ $rc -ne 0 ]; then
  echo "FAIL: minimd exited with $rc"
  exit 1
fi
if [ -n "$expect" ] && ! grep -qF -- "$expect" "$dir/run.log"; then
  echo "FAIL: no line containing '$expect' in the output"
  exit 1
fi
grep -E '^[0-9]+ [-0-9.e+]+ [-0-9.e+]+ [-0-9.e+]+ +[0-9.]+$' "$dir/run.log" | cut -d' ' -f1-4 >"$dir/ours"
grep -v '^#' "$ref" >"$dir/ref"
if [ ! -s "$dir/ref" ]; then
  echo "FAIL: no thermo lines in $ref"
  exit 1
fi
awk -v conserve="$conserve" '
  function ulp(x,   p) { # one unit in the 7th significant digit of x as %e prints it
    split(sprintf("%e", x), p, "e")
    return 10 ^ (p[2] + 0 - 6)
  }
  function abs(x) { return x < 0 ? -x : x }
  NR == FNR { rs[FNR] = $1; rv[FNR, 2] = $2; rv[FNR, 3] = $3; rv[FNR, 4] = $4; nref = FNR; next }
  {
    n++
    if (n > nref) { printf "FAIL: extra thermo line: %s\n", $0; bad++; next }
    if ($1 != rs[n]) { printf "FAIL: line %d is step %s, the reference has step %s\n", n, $1, rs[n]; bad++; next }
    for (k = 2; k <= 4; k++)
      if (abs($k - rv[n, k]) > 1.01 * ulp(rv[n, k])) {
        printf "FAIL: step %s column %d: %s, the reference %s\n", $1, k, $k, rv[n, k]; bad++
      }
    e = 1.5 * $2 + $3
    if (n == 1) e0 = e
    if (conserve != "" && abs(e - e0) > conserve * abs(e0)) {
      printf "FAIL: step %s: energy %.7g drifted from %.7g (more than %s relative)\n", $1, e, e0, conserve; bad++
    }
  }
  END {
    if (n < nref) { printf "FAIL: %d thermo lines, the reference has %d\n", n, nref; bad++ }
    if (bad) exit 1
    printf "PASS: %d thermo lines agree with the reference to the last printed digit\n", n
  }' "$dir/ref" "$dir/ours"
