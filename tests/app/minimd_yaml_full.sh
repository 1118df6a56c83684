#!/bin/sh
# miniMD's YAML report on a full file system: the run says it could not write the report, leaves
# no partial one behind, and its results (written before the report, elsewhere) are complete. Needs a private mount namespace with a 64 KiB tmpfs (root);
# where that cannot be made the test is skipped (exit 77).
#   minimd_yaml_full.sh MINIMD DECK_DIR
set -u
exe=$1 decks=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/minimd_yaml_full.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cp "$decks/in.lj.miniMD" "$work/" || exit 1
mkdir "$work/fs"
unshare -m true 2>/dev/null || { echo "SKIP: no private mount namespace here"; exit 77; }
unshare -m sh -c '
  mount -t tmpfs -o size=64k none "$1/fs" 2>/dev/null || exit 77
  cd "$1/fs" || exit 1
  dd if=/dev/zero of=filler bs=1k count=1000 2>/dev/null # fills it
  "$2" -i "$1/in.lj.miniMD" -s 4 -n 10 --out "$1/res" -o 1 >"$1/run.log" 2>&1
  echo "exit status $?"
  ls miniFE* miniMD* 2>/dev/null >"$1/left.txt"
  exit 0' sh "$work" "$exe"
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: no private tmpfs here"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: the namespace could not be set up ($rc)"; exit 1; }
cat "$work/run.log" | tail -n 3
fails=0
grep -q "writing the YAML report failed" "$work/run.log" || { echo "FAIL: no message"; fails=1; }
[ -s "$work/left.txt" ] && { echo "FAIL: left behind: $(cat "$work/left.txt")"; fails=1; }
[ -s "$work/res.h5" ] && [ -s "$work/res.xmf" ] || { echo "FAIL: the results are missing"; fails=1; }
[ $fails -eq 0 ] && echo PASS
exit $fails
