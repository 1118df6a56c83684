#!/bin/sh
# miniMD with a bad deck, potential file or command line: exit status 2 (EXPECT_STATUS=1 for a
# run that starts and fails; never a crash, a signal or a hang), a message matching REGEX that
# names the problem, no result file left.
# With REGEX "ok:RE" the run must instead succeed (exit 0) and print a line matching RE.
# The decks and the potential of INPUTS are copied to a directory of its own, then EDIT:
#   -                  nothing
#   line:FILE:N:TEXT   line N of FILE becomes TEXT
#   head:FILE:N        FILE keeps its first N lines
#   blank:FILE:N       a blank line is inserted after line N of FILE
#   insert:FILE:N:TEXT the lines of TEXT ('|' between them) are inserted after line N of FILE
#   drop:FILE          FILE is removed
#   fifo:FILE          FILE becomes a FIFO that no process writes
#   link:FILE:TARGET   FILE becomes a symbolic link to TARGET (/dev/zero)
#   join:FILE:N:M      lines N to M of FILE become one line
# In MINIMD_ARGS, @DIR@ stands for that directory's absolute path (-i @DIR@/in.lj.miniMD names the
# deck as an absolute path; the files it names are then looked for beside it).
#   minimd_bad_input.sh MPIEXEC NP MINIMD INPUTS REGEX EDIT MINIMD_ARGS...
set -u
mpiexec=$1 np=$2 exe=$3 inputs=$4 regex=$5 edit=$6
shift 6
dir=$(mktemp -d "${TMPDIR:-/tmp}/minimd_bad.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
for a; do
  shift
  case $a in *@DIR@*) a=${a%%@DIR@*}$dir${a#*@DIR@} ;; esac
  set -- "$@" "$a"
done
cp "$inputs"/in.lj.miniMD "$inputs"/in.eam.miniMD "$inputs"/Cu_u6.eam "$inputs"/in.lj-data.miniMD \
  "$inputs"/lj4.data . || exit 1
IFS=: read -r kind file n text <<END
$edit
END
case $kind in
  -) ;;
  line) awk -v n="$n" -v t="$text" 'NR == n { print t; next } { print }' "$file" >e && mv e "$file" ;;
  head) head -n "$n" "$file" >e && mv e "$file" ;;
  blank) awk -v n="$n" '{ print } NR == n { print "" }' "$file" >e && mv e "$file" ;;
  insert)
    awk -v n="$n" -v t="$text" '{ print } NR == n { gsub(/\|/, "\n", t); print t }' "$file" >e &&
      mv e "$file"
    ;;
  drop) rm -f "$file" ;;
  fifo) rm -f "$file" && mkfifo "$file" ;;
  link) rm -f "$file" && ln -s "$n" "$file" ;;
  join)
    awk -v n="$n" -v m="$text" 'NR < n || NR > m { print; next }
      { j = j (NR > n ? " " : "") $0 } NR == m { print j }' "$file" >e && mv e "$file"
    ;;
  *) echo "minimd_bad_input.sh: unknown edit $edit"; exit 2 ;;
esac
# VMEM_KB: run the ranks under `ulimit -v` (a guard: a regression that allocates without limit
# fails quickly instead of calling the OOM killer; not under AddressSanitizer or on CUDA, which
# reserve more address space; a CUDA build run with PORTA_BACKEND=serial takes it). The ranks
# only, not mpiexec: the launcher loads the node's topology, and where PoCL is installed hwloc's
# OpenCL component starts its CPU device, one thread per core; on 64 cores their stacks and
# malloc arenas did not fit in 4 GB and PoCL aborted mpiexec (exit 134) before any rank ran.
if [ -n "${VMEM_KB:-}" ] && [ -z "${ASAN_OPTIONS:-}" ] &&
  { [ "${PORTA_BACKEND:-}" = serial ] || ! grep -q cudaMalloc "$exe" 2>/dev/null; }; then
  set -- -c 'ulimit -v "$0" || echo "note: ulimit -v $0 not applied"; exec "$@"' "$VMEM_KB" \
    "$exe" "$@"
  exe=sh
fi
. "$(dirname "$0")/one_rank_quick_exit.sh"
# RUN_TIMEOUT=S: a run not over in S seconds is ended and fails as a hang (a FIFO opened for
# reading waits for a writer for ever; the directory and its FIFO are still removed)
if [ -n "${RUN_TIMEOUT:-}" ] && command -v timeout >/dev/null 2>&1; then
  timeout -k 5 "$RUN_TIMEOUT" "$mpiexec" -n "$np" "$exe" "$@" >out.log 2>&1
else
  "$mpiexec" -n "$np" "$exe" "$@" >out.log 2>&1
fi
rc=$?
cat out.log
fail=0
if [ -n "${RUN_TIMEOUT:-}" ] && { [ $rc -eq 124 ] || [ $rc -eq 137 ]; }; then
  echo "FAIL: the run hung (ended after ${RUN_TIMEOUT} s)"
  fail=1
fi
case $regex in
  ok:*)
    [ $rc -eq 0 ] || { echo "FAIL: exit status $rc (expected 0)"; fail=1; }
    grep -Eq -- "${regex#ok:}" out.log || { echo "FAIL: no line matching '${regex#ok:}'"; fail=1; }
    ;;
  *)
    # 2: refused as bad input (README, "Exit status"); 1 where the test says the run fails
    [ "$rc" -eq "${EXPECT_STATUS:-2}" ] ||
      { echo "FAIL: exit status $rc (expected ${EXPECT_STATUS:-2})"; fail=1; }
    grep -Eq -- "$regex" out.log || { echo "FAIL: no message matching '$regex'"; fail=1; }
    ls minimd.h5 minimd.h5.tmp* >/dev/null 2>&1 && { echo "FAIL: a result file was left"; fail=1; }
    ;;
esac
grep -Eqi "segmentation|signal [0-9]|core dumped|AddressSanitizer|runtime error|floating point" out.log &&
  { echo "FAIL: crashed"; fail=1; }
[ $fail -eq 0 ] && echo PASS
exit $fail
