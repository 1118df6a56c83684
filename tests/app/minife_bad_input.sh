#!/bin/sh
# miniFE refuses a bad command line or an impossible size: exit status 2 (EXPECT_STATUS=1 for a
# run that starts and fails; never a crash or a signal), a message matching REGEX that names the
# problem, and no result file left behind.
#   minife_bad_input.sh MPIEXEC NP MINIFE REGEX MINIFE_ARGS...
set -u
mpiexec=$1 np=$2 exe=$3 regex=$4
shift 4
dir=$(mktemp -d "${TMPDIR:-/tmp}/minife_bad.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
. "$(dirname "$0")/one_rank_quick_exit.sh"
"$mpiexec" -n "$np" "$exe" "$@" >out.log 2>&1
rc=$?
cat out.log
fail=0
# 2: refused as bad input (README, "Exit status"); 1 where the test says the run fails
[ "$rc" -eq "${EXPECT_STATUS:-2}" ] ||
  { echo "FAIL: exit status $rc (expected ${EXPECT_STATUS:-2})"; fail=1; }
grep -Eq -- "$regex" out.log || { echo "FAIL: no message matching '$regex'"; fail=1; }
grep -Eqi "segmentation|signal [0-9]|core dumped|AddressSanitizer|runtime error" out.log &&
  { echo "FAIL: crashed"; fail=1; }
ls minife.h5 minife.h5.tmp >/dev/null 2>&1 && { echo "FAIL: a result file was left"; fail=1; }
[ $fail -eq 0 ] && echo PASS
exit $fail
