#!/bin/sh
# Ranks started in different working directories with a relative --out (issue 68, point 2):
#   mpiexec -np 1 -wdir A APP --out r : -np 1 -wdir B APP --out r
# had each rank open a temporary of its own in the collective open, and the job hung with a
# temporary left behind. Now every rank checks it sees the file rank 0 created: the run stops at
# once, on every rank, saying which directories differ, and leaves nothing in A or B. The same
# launch with an absolute --out, or with both ranks in one directory, writes the result.
#   app_out_wdir.sh MPIEXEC APP APP_ARGS...   (two ranks, launched MPMD with -wdir)
set -u
mpiexec=$1 exe=$2
shift 2
top=$(mktemp -d "${TMPDIR:-/tmp}/app_out_wdir.XXXXXX") || exit 1
trap 'rm -rf "$top"' EXIT
top=$(cd "$top" && pwd -P) || exit 1 # as the message names it (realpath)
mkdir "$top/A" "$top/B" || exit 1
cd "$top" || exit 1
limit=60
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# launch LOG DIR_A DIR_B OUT APP_ARGS...: the two ranks, one in each directory, under a time
# limit (timeout's 124, or 137 after its KILL, where the job hangs)
launch() {
  log=$1 a=$2 b=$3 out=$4
  shift 4
  timeout -k 10 $limit "$mpiexec" -np 1 -wdir "$a" "$exe" "$@" --out "$out" : \
    -np 1 -wdir "$b" "$exe" "$@" --out "$out" >"$log" 2>&1
}

echo "--- ranks in A and B, --out r: refused on every rank, nothing left"
launch rel.log "$top/A" "$top/B" r "$@"
rc=$?
[ $rc -eq 124 ] || [ $rc -eq 137 ] && bad "the job hung (killed after $limit s)"
[ $rc -ne 0 ] || bad "exit status 0"
grep -q "the ranks do not name the same result file: rank 0 writes it in '$top/A', rank 1 in '$top/B'" rel.log ||
  { cat rel.log; bad "the message does not name the two directories"; }
left=$(ls -A A B | grep -v '^[AB]:$' | grep -v '^$' | grep -v '\.yaml$')
[ -z "$left" ] || bad "files left: $left"

echo "--- ranks in A and B, --out $top/A/r (absolute): written"
launch abs.log "$top/A" "$top/B" "$top/A/r" "$@"
rc=$?
[ $rc -eq 0 ] && [ -f A/r.h5 ] && [ -f A/r.xmf ] || { cat abs.log; bad "exit status $rc; no result"; }
ls A B | grep -q '\.tmp\.' && bad "a temporary was left"
rm -f A/r.h5 A/r.xmf

echo "--- both ranks in A, --out r: written"
launch same.log "$top/A" "$top/A" r "$@"
rc=$?
[ $rc -eq 0 ] && [ -f A/r.h5 ] && [ -f A/r.xmf ] || { cat same.log; bad "exit status $rc; no result"; }

[ $fail -eq 0 ] && echo "PASS: ranks that name different files stop at once; the same file works"
exit $fail
