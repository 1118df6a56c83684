#!/bin/sh
# An environment switch set differently on different ranks (an MPMD launch: rank 0 with
# VAR=FIRST, the other NP-1 ranks with VAR=REST, '-' for unset) must be refused at start-up,
# exit 2, naming the variable and the ranks' values, and never hang (it had, with
# MINIMD_DEVICE_RENEIGHBOR 1 on rank 0 and 0 on rank 1).
#   app_env_ranks.sh MPIEXEC NP APP VAR FIRST REST REGEX APP_ARGS...
set -u
mpiexec=$1 np=$2 exe=$3 var=$4 first=$5 rest=$6 regex=$7
shift 7
dir=$(mktemp -d "${TMPDIR:-/tmp}/app_env_ranks.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
setting() { [ "$1" = - ] && echo "-u $var" || echo "$var=$1"; }
# shellcheck disable=SC2046
timeout 120 "$mpiexec" -n 1 env $(setting "$first") "$exe" "$@" : -n $((np - 1)) \
  env $(setting "$rest") "$exe" "$@" >out.log 2>&1
rc=$?
cat out.log
fail=0
[ $rc -eq 124 ] && { echo "FAIL: the job hung (killed after 120 s)"; fail=1; }
[ $rc -eq 2 ] || { [ $fail -eq 1 ] || echo "FAIL: exit status $rc (expected 2)"; fail=1; }
grep -Eq -- "$regex" out.log || { echo "FAIL: no message matching '$regex'"; fail=1; }
[ $fail -eq 0 ] && echo PASS
exit $fail
