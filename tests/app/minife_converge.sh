#!/bin/sh
# miniFE source-free mode (Q = 0, the problem of the reference's analytic solution): the
# largest nodal error away from the edges of the face x = 1 (where the boundary data jump) must
# fall by a factor in [3.5, 4.5] per halving of h - second-order convergence - over the sizes
# given (at least three). The whole-domain maximum is printed too (it does not converge: the
# jump; docs/minife.md).
#   minife_converge.sh MPIEXEC NP MINIFE N1 N2 N3 ...
set -u
mpiexec=$1 np=$2 exe=$3
shift 3
dir=$(mktemp -d "${TMPDIR:-/tmp}/minife_conv.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
prev="" fail=0 count=0
for n in "$@"; do
  "$mpiexec" -n "$np" "$exe" nx="$n" source_free=1 --no-h5 >run.log 2>&1
  rc=$?
  line=$(grep 'max nodal error' run.log)
  if [ $rc -ne 0 ] || [ -z "$line" ]; then
    cat run.log
    echo "FAIL: n=$n: minife exited with $rc"
    exit 1
  fi
  err=$(echo "$line" | sed -n 's/.*over x <= [0-9.]*: *//p')
  echo "n=$n: $line"
  if [ -n "$prev" ]; then
    ratio=$(awk -v a="$prev" -v b="$err" 'BEGIN { printf "%.3f", a / b }')
    ok=$(awk -v r="$ratio" 'BEGIN { print (r >= 3.5 && r <= 4.5) ? 1 : 0 }')
    echo "   error ratio to the previous size: $ratio"
    [ "$ok" = 1 ] || { echo "FAIL: ratio $ratio outside [3.5, 4.5]"; fail=1; }
  fi
  prev=$err
  count=$((count + 1))
done
[ $count -ge 3 ] || { echo "FAIL: needs at least three sizes"; fail=1; }
[ $fail -eq 0 ] && echo PASS
exit $fail
