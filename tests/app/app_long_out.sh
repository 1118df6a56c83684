#!/bin/sh
# --out paths of up to 4,096 characters are kept whole, and errors on long paths keep their
# reason: a 2,000-character path in an existing directory gets its results there (it had been
# cut to 1,023 characters); in a missing directory the message still says why (its end had been
# cut off); a name longer than a path may be is refused saying so.
#   app_long_out.sh MPIEXEC APP APP_ARGS...
set -u
mpiexec=$1 exe=$2
shift 2
top=$(mktemp -d "${TMPDIR:-/tmp}/app_long_out.XXXXXX") || exit 1
trap 'rm -rf "$top"' EXIT
cd "$top" || exit 1
deep=$top
part=$(printf 'd%.0s' $(seq 1 200))
for i in 1 2 3 4 5 6 7 8 9 10; do deep="$deep/$part$i"; done
mkdir -p "$deep" || exit 1
fail=0
echo "path of ${#deep} characters"
np=1
. "$(dirname "$0")/one_rank_quick_exit.sh"
"$mpiexec" -n 1 "$exe" "$@" --out "$deep/result" >ok.log 2>&1
rc=$?
[ $rc -eq 0 ] && [ -f "$deep/result.h5" ] && [ -f "$deep/result.xmf" ] ||
  { cat ok.log; echo "FAIL: exit $rc; the results are not at the whole path"; fail=1; }
"$mpiexec" -n 1 "$exe" "$@" --out "$deep/missing/result" >missing.log 2>&1
rc=$?
grep -q "No such file or directory" missing.log && [ $rc -ne 0 ] ||
  { cat missing.log; echo "FAIL: exit $rc; the reason is missing from the message"; fail=1; }
long="$deep/$(printf 'e%.0s' $(seq 1 2100))"
"$mpiexec" -n 1 "$exe" "$@" --out "$long" >long.log 2>&1
rc=$?
grep -q "an output name of 4[0-9][0-9][0-9] characters: at most" long.log && [ $rc -eq 2 ] ||
  { cat long.log; echo "FAIL: exit $rc; a name longer than a path is not refused saying so"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: the whole path kept, the reasons said"
exit $fail
