#!/bin/sh
# The files written after the result on a full file system (issue 68, point 12): a private
# tmpfs (unshare -m, as app_h5_safety.sh's case full; skipped with 77 where there is none).
#   app_out_full.sh CASE MPIEXEC NP APP [APP_ARGS...]
# CASE:
#   xmf   room for NAME.h5 but not for NAME.xmf: exit status 1, a message that leads with the
#         .xmf, names 'No space left on device' once and says that NAME.h5 is complete; NAME.h5
#         is there, whole (the size of the same run's on a disk with room), no temporary left.
#         The file system runs out of inodes (nr_inodes=2: its root and NAME.h5's temporary),
#         not of blocks: app_h5_close reserves room for HDF5's last writes beyond the file's
#         final size and gives it back after, so no fixed filler leaves room for the .h5 alone
#   json  --summary-json into a full file system (--no-h5): exit status 1, a message that leads
#         with the file and names 'No space left on device' once, no temporary left
set -u
case=$1 mpiexec=$2 np=$3 exe=$4
shift 4
work=$(mktemp -d "${TMPDIR:-/tmp}/app_out_full.XXXXXX") || exit 1
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
skip() { cd / && rm -rf "$work"; echo "SKIP: $*"; exit 77; }
unshare -m true 2>/dev/null || skip "no private mount namespace here"
mkdir fs
if [ "$case" = xmf ]; then
  "$mpiexec" -n "$np" "$exe" --out ref "$@" >ref.log 2>&1 || { cat ref.log; fail "the run with room failed"; }
  size=$(stat -c %s ref.h5 2>/dev/null || echo 0)
  [ "$size" -gt 0 ] || fail "ref.h5 not written"
fi
# json: the tmpfs filled up (a page of 4 KiB is a tmpfs' unit); xmf: no inode left after the
# result's temporary
unshare -m sh -c '
  w=$1 case=$2 mpiexec=$3 np=$4 exe=$5
  shift 5
  if [ "$case" = xmf ]; then
    mount -t tmpfs -o size=16m,nr_inodes=2 none "$w/fs" 2>/dev/null || exit 77
  else
    mount -t tmpfs -o size=1024k none "$w/fs" 2>/dev/null || exit 77
  fi
  cd "$w/fs" || exit 1
  if [ "$case" = json ]; then
    free=$(df -B4096 --output=avail . | tail -n 1)
    dd if=/dev/zero of=filler bs=4096 count="$free" 2>/dev/null
  fi
  if [ "$case" = xmf ]; then
    "$mpiexec" -n "$np" "$exe" --out res "$@" >"$w/full.log" 2>&1
  else
    "$mpiexec" -n "$np" "$exe" --no-h5 --summary-json s.json "$@" >"$w/full.log" 2>&1
  fi
  echo $? >"$w/rc"
  ls | grep -E "\.tmp" >"$w/left"
  stat -c %s res.h5 >"$w/size" 2>/dev/null
  exit 0' sh "$work" "$case" "$mpiexec" "$np" "$exe" "$@"
st=$?
[ $st -eq 77 ] && skip "no private tmpfs here"
[ $st -eq 0 ] || fail "the namespace could not be set up ($st)"
grep -a "error" full.log | grep -v ORTE_ | head -n 4
[ "$(cat rc)" = 1 ] || fail "exit status $(cat rc), not 1"
grep -q "error: [a-z_0-9]*(.*) failed (" full.log && fail "the message leads with a C expression"
grep -a "No space" full.log | grep -q "No space left on device.*No space left on device" &&
  fail "a message names the cause twice"
[ -s left ] && fail "left behind: $(tr '\n' ' ' <left)"
case $case in
xmf)
  grep -q "error: 'res.xmf': cannot .*: No space left on device; the result 'res.h5' is complete and usable without it" full.log ||
    fail "the message does not name res.xmf, 'No space left on device' and that res.h5 is complete"
  [ "$(cat size 2>/dev/null)" = "$size" ] || fail "res.h5 is not whole: $(cat size 2>/dev/null) bytes, not $size"
  ;;
json)
  grep -q "error: 's.json': cannot write .*: No space left on device" full.log ||
    fail "the message does not lead with s.json and 'No space left on device'"
  ;;
*)
  echo "unknown case $case"
  exit 2
  ;;
esac
cd / || exit 1
if [ $fails -eq 0 ]; then
  rm -rf "$work"
  echo PASS
  exit 0
fi
echo "FAILED ($fails); files kept in $work"
exit 1
