#!/bin/sh
# miniMD's default mode (LJ, a full neighbour list, no atomics): the thermo table and the final
# atoms bitwise identical (h5diff without tolerance) with 1 and 3 threads, on 1 and on 2 ranks,
# and on every run. The bins are filled by atomics, in any order with several threads; each is
# put in atom order before the lists are built (a list's order is the order its forces add up).
#   minimd_threads.sh MPIEXEC MINIMD H5DIFF MINIMD_ARGS...
set -u
mpiexec=$1 exe=$2 h5diff=$3
shift 3
dir=$(mktemp -d "${TMPDIR:-/tmp}/minimd_threads.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
run() { # run NAME NP THREADS MINIMD_ARGS...
  name_=$1 np_=$2 t_=$3
  shift 3
  env OMP_NUM_THREADS="$t_" PORTA_NUM_THREADS="$t_" "$mpiexec" -n "$np_" "$exe" --out "$name_" \
    "$@" >"$name_.log" 2>&1 || {
    cat "$name_.log"
    echo "FAIL: $name_: minimd exited with an error"
    exit 1
  }
}
for np in 1 2; do
  run "np${np}_t1" "$np" 1 "$@"
  for k in a b; do
    name=np${np}_t3$k
    run "$name" "$np" 3 "$@"
    for path in /final /thermo/T /thermo/U /thermo/P; do
      if ! "$h5diff" "np${np}_t1.h5" "$name.h5" "$path" "$path" >"$name.diff" 2>&1; then
        head -n 12 "$name.diff"
        echo "FAIL: $name: $path differs from the run with 1 thread"
        fail=1
        break
      fi
    done
    [ $fail = 0 ] && echo "same bits: $name"
  done
done
exit $fail
