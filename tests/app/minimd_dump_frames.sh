#!/bin/sh
# miniMD's --dump-every series: the frames of NAME.xmf (its grids' times, in order) must be
# TIMES, each time once, and NAME.h5 must hold one set of atoms per frame (counted with h5ls
# where H5LS names it; '-' skips that count). -n 0 --dump-every N had written step 0 twice (a
# snapshot and /final at time 0), and ParaView's readers showed no points.
#   minimd_dump_frames.sh MPIEXEC MINIMD H5LS TIMES MINIMD_ARGS...   (TIMES: 0,0.005,0.01)
set -u
mpiexec=$1 exe=$2 h5ls=$3 times=$4
shift 4
dir=$(mktemp -d "${TMPDIR:-/tmp}/minimd_frames.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
"$mpiexec" -n 1 "$exe" --out result "$@" >run.log 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  cat run.log
  echo "FAIL: minimd exited with $rc"
  exit 1
fi
fail=0
got=$(sed -n 's/.*<Time Value="\([^"]*\)".*/\1/p' result.xmf | paste -sd, -)
echo "frames at times: $got (expected $times)"
[ "$got" = "$times" ] || { echo "FAIL: the series' times are not $times"; fail=1; }
nframes=$(printf '%s\n' "$times" | tr ',' '\n' | wc -l)
ngrids=$(grep -c '<Grid Name=.*GridType="Uniform"' result.xmf)
[ "$ngrids" -eq "$nframes" ] || { echo "FAIL: $ngrids grids for $nframes frames"; fail=1; }
if [ "$h5ls" != - ]; then
  "$h5ls" -r result.h5 >h5ls.log 2>&1 || { cat h5ls.log; echo "FAIL: h5ls failed"; fail=1; }
  nsets=$(grep -c '^/\(final\|snapshots/step_[0-9]*\)/x  *Dataset' h5ls.log)
  echo "sets of atoms in result.h5: $nsets"
  [ "$nsets" -eq "$nframes" ] || { echo "FAIL: $nsets sets of atoms for $nframes frames"; fail=1; }
fi
[ $fail -eq 0 ] && echo PASS
exit $fail
