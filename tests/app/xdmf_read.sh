#!/usr/bin/env bash
# An app's result opened with ParaView's XDMF readers (xdmf_read.py, run by pvpython): runs the
# app on NP ranks in a directory of its own with --out NAME, then checks NAME.xmf and NAME.h5.
#   xdmf_read.sh PVPYTHON MPIEXEC NP APP_EXE APP -- APP_ARGS... -- CHECK_ARGS...
# Exit 77 (CTest: skipped, with the reason) where pvpython is missing; a reader's warning or
# error on its output fails the test like a failed check.
set -u
pvpython=$1 mpiexec=$2 np=$3 exe=$4 app=$5
shift 5
[ "${1:-}" = "--" ] && shift
if [ ! -x "$pvpython" ]; then
  echo "SKIP: ParaView's pvpython not found (Debian's paraview and python3-paraview;" \
    "scripts/install-deps installs them): the result files are not checked with a reader"
  exit 77
fi
script=$(dirname "$0")/xdmf_read.py
dir=$(mktemp -d "${TMPDIR:-/tmp}/xdmf_read.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
run_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  run_args+=("$1")
  shift
done
[ "${1:-}" = "--" ] && shift
(cd "$dir" && "$mpiexec" -n "$np" "$exe" --out result "${run_args[@]}" >run.log 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  cat "$dir/run.log"
  echo "FAIL: $app exited with $rc"
  exit 1
fi
"$pvpython" "$script" "$app" "$dir/result" "$@" >"$dir/read.log" 2>&1
rc=$?
cat "$dir/read.log"
[ $rc -eq 77 ] && exit 77
if grep -q -E 'WARN\||ERR\||Traceback|HDF5-DIAG' "$dir/read.log"; then
  echo "FAIL: the reader warned or failed (above)"
  exit 1
fi
exit $rc
