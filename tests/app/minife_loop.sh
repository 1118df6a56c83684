#!/bin/sh
# miniFE's CG on the device (a recorded loop, MINIFE_DEVICE_LOOP=1) against the host's loop
# (MINIFE_DEVICE_LOOP=0), on MINIFE_LOOP_NP ranks (default 1; several on GPUs of their own:
# the loop's sums and exchange of p by NCCL) and the back end the environment names: the same
# printed residual lines, iteration count and final residual, and the same solution and
# residual history bit for bit (h5diff without tolerance); the report says the device loop ran.
#   minife_loop.sh MPIEXEC MINIFE H5DIFF MINIFE_ARGS...
set -u
mpiexec=$1 exe=$2 h5diff=$3
shift 3
np=${MINIFE_LOOP_NP:-1}
dir=$(mktemp -d "${TMPDIR:-/tmp}/minife_loop.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
for m in 0 1; do
  mkdir "l$m" && (cd "l$m" && MINIFE_DEVICE_LOOP=$m "$mpiexec" -n "$np" "$exe" --out run "$@" >out.log 2>&1) || {
    cat "l$m/out.log"
    echo "FAIL: minife with MINIFE_DEVICE_LOOP=$m exited with an error"
    exit 1
  }
done
key() { sed -n "s/^ *$2: *//p" "$1"/miniFE.*.yaml | head -1; }
fail=0
for k in "Iterations" "Final Resid Norm"; do
  a=$(key l0 "$k") b=$(key l1 "$k")
  if [ -z "$a" ] || [ "$a" != "$b" ]; then echo "FAIL: $k: host loop '$a', device loop '$b'"; fail=1; fi
done
grep "Iteration = " l0/out.log >l0/res.txt
grep "Iteration = " l1/out.log >l1/res.txt
[ -s l1/res.txt ] || { echo "FAIL: no residual lines"; fail=1; }
cmp -s l0/res.txt l1/res.txt || { echo "FAIL: the residual lines differ"; fail=1; }
"$h5diff" -q l0/run.h5 l1/run.h5 /solution /solution || { echo "FAIL: the solutions differ"; fail=1; }
"$h5diff" -q l0/run.h5 l1/run.h5 /cg/residual_history /cg/residual_history ||
  { echo "FAIL: the residual histories differ"; fail=1; }
loop_time=$(key l1 "Device Loop Time (iterations on the device, in no kernel's time above)")
host_time=$(key l0 "Device Loop Time (iterations on the device, in no kernel's time above)")
case $loop_time in 0 | "") echo "FAIL: the device loop did not run ($loop_time)"; fail=1 ;; esac
[ "$host_time" = 0 ] || { echo "FAIL: the host loop reports a device loop time ($host_time)"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: device loop = host loop ($(key l1 Iterations) iterations)"
exit $fail
