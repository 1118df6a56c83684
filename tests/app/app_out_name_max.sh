#!/bin/sh
# --out NAME whose results' own names fit the directory's longest file name (NAME_MAX, 255 on
# Linux) works, whatever the length of the temporaries' names (issue 68, point 13): a 237- to
# 251-byte NAME had failed, its temporary NAME.h5.tmp.PID.RANDOM passing 255 bytes. NAME.xmf,
# the longer result, has at most NAME_MAX bytes here; one byte more is refused at start (exit
# status 2) naming --out, before anything is written. The same for --summary-json FILE: a FILE of
# NAME_MAX bytes is written (through its temporary), one byte more is refused at start.
#   app_out_name_max.sh MPIEXEC APP APP_ARGS...
set -u
mpiexec=$1 exe=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd) || exit 1
top=$(mktemp -d "${TMPDIR:-/tmp}/app_name_max.XXXXXX") || exit 1
trap 'rm -rf "$top"' EXIT
cd "$top" || exit 1
max=$(getconf NAME_MAX .) || exit 1
np=1
. "$here/one_rank_quick_exit.sh"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
name() { printf "%${1}s" "" | tr ' ' "$2"; }
leftover() { ls | grep -q '\.tmp\.' && { ls | grep '\.tmp\.'; bad "a temporary was left"; }; }

for n in 237 245 $((max - 4)); do
  out=$(name $n a)
  echo "--- --out of $n bytes (NAME.xmf: $((n + 4)))"
  "$mpiexec" -n 1 "$exe" "$@" --out "$out" >ok.log 2>&1
  rc=$?
  [ $rc -eq 0 ] && [ -f "$out.h5" ] && [ -f "$out.xmf" ] ||
    { cat ok.log; bad "exit status $rc; the results of a $n-byte name are missing"; }
  grep -q "$out.h5" "$out.xmf" || bad "$out.xmf does not name $out.h5"
  leftover
  rm -f ./a*
done

out=$(name $((max - 4)) b).h5
echo "--- --out NAME.h5 of ${#out} bytes"
"$mpiexec" -n 1 "$exe" "$@" --out "$out" >h5.log 2>&1
rc=$?
[ $rc -eq 0 ] && [ -f "$out" ] || { cat h5.log; bad "exit status $rc; $out is missing"; }
leftover
rm -f ./b*

out=$(name $((max - 3)) c)
echo "--- --out of $((max - 3)) bytes (NAME.xmf: $((max + 1))): refused at start"
"$mpiexec" -n 1 "$exe" "$@" --out "$out" >long.log 2>&1
rc=$?
grep -q -- "app_cli_parse('--out'): the result's file name 'c*\.xmf' would have $((max + 1)) bytes: a file name may have at most $max here" long.log &&
  [ $rc -eq 2 ] || { cat long.log; bad "exit status $rc; not refused naming --out"; }
grep -q "Calculation\|CG\|Atoms\|Setup" long.log && bad "the run started"
ls | grep -q '^c' && bad "something was written under the refused name"

echo "--- --out of $((max - 3)) bytes with --no-h5: nothing is written under it, not refused"
"$mpiexec" -n 1 "$exe" "$@" --out "$out" --no-h5 >noh5.log 2>&1
rc=$?
[ $rc -eq 0 ] || { cat noh5.log; bad "exit status $rc"; }

json=$(name "$max" j)
echo "--- --summary-json of $max bytes"
"$mpiexec" -n 1 "$exe" "$@" --no-h5 --summary-json "$json" >json.log 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '"app": ' "$json" || { cat json.log; bad "exit status $rc; no summary"; }
leftover
json=$(name $((max + 1)) k)
echo "--- --summary-json of $((max + 1)) bytes: refused at start"
"$mpiexec" -n 1 "$exe" "$@" --no-h5 --summary-json "$json" >json2.log 2>&1
rc=$?
grep -q -- "--summary-json('k.*'): cannot write it: File name too long" json2.log && [ $rc -eq 2 ] ||
  { cat json2.log; bad "exit status $rc; not refused saying why"; }
leftover

[ $fail -eq 0 ] && echo "PASS: every name whose results fit is written; longer ones refused at start"
exit $fail
