#!/bin/sh
# A result named like an input of the run (--out=run with the deck run.xmf, --out=r with the
# deck r.h5, --out=atoms with the data file atoms.h5) must be refused at start-up, exit 2, with
# a message matching REGEX, and the input left as it was (results are renamed over their names:
# the deck had been replaced by the XDMF file).
#   app_out_over_input.sh MPIEXEC NP APP SOURCE NAME REGEX APP_ARGS...
# SOURCE is copied to NAME in a directory of its own, where APP_ARGS run.
set -u
mpiexec=$1 np=$2 exe=$3 source=$4 name=$5 regex=$6
shift 6
dir=$(mktemp -d "${TMPDIR:-/tmp}/app_out_input.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
cp "$source" "$name" || exit 1
. "$(dirname "$0")/one_rank_quick_exit.sh"
timeout 120 "$mpiexec" -n "$np" "$exe" "$@" >out.log 2>&1
rc=$?
cat out.log
fail=0
[ $rc -eq 2 ] || { echo "FAIL: exit status $rc (expected 2)"; fail=1; }
grep -Eq -- "$regex" out.log || { echo "FAIL: no message matching '$regex'"; fail=1; }
cmp -s "$name" "$source" || { echo "FAIL: the input $name was changed"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: refused, $name unchanged"
exit $fail
