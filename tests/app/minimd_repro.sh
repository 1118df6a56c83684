#!/bin/sh
# miniMD --reproducible: the thermo table and the final positions, velocities and types must be
# bitwise identical (h5diff without tolerance) on 1, 2, 3 and 4 ranks, 1 and 2 threads and the
# Serial back end; and a default-mode run on 2 ranks must differ from them somewhere in the
# last bits (so the comparison can see a difference).
# CROSS = 0 (a CUDA build with FMA contraction, not configured with PORTA_ENABLE_REPRODUCIBLE):
# when the default back end is CUDA (PORTA_BACKEND=cuda, or unset on a machine with a GPU), the
# Serial run is compared for the record only - host and device round a*b+c differently there;
# every CUDA run must still agree.
#   minimd_repro.sh MPIEXEC MINIMD H5DIFF CROSS MINIMD_ARGS...
set -u
mpiexec=$1 exe=$2 h5diff=$3 cross=$4
shift 4
dir=$(mktemp -d "${TMPDIR:-/tmp}/minimd_repro.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
# the runs without a back end named run on CUDA when PORTA_BACKEND says so, or when it is unset
# and this machine has a GPU (the default of a CUDA build)
default_is_cuda() {
  case ${PORTA_BACKEND:-} in
  cuda) return 0 ;;
  "") command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 ;;
  *) return 1 ;;
  esac
}
run() { # run NAME NP THREADS BACKEND MODE [args...]
  name=$1 np=$2 t=$3 be=$4 mode=$5
  shift 5
  env OMP_NUM_THREADS="$t" PORTA_NUM_THREADS="$t" ${be:+PORTA_BACKEND=$be} \
    "$mpiexec" -n "$np" "$exe" $mode --out "$name" "$@" >"$name.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    cat "$name.log"
    echo "FAIL: $name: minimd exited with $rc"
    exit 1
  fi
}
same() { # same NAME: /thermo and /final of NAME.h5 equal ref.h5's bit for bit
  "$h5diff" ref.h5 "$1.h5" /final /final >"$1.diff" 2>&1 &&
    "$h5diff" ref.h5 "$1.h5" /thermo/T /thermo/T >>"$1.diff" 2>&1 &&
    "$h5diff" ref.h5 "$1.h5" /thermo/U /thermo/U >>"$1.diff" 2>&1 &&
    "$h5diff" ref.h5 "$1.h5" /thermo/P /thermo/P >>"$1.diff" 2>&1
}
run ref 1 1 "" --reproducible "$@"
for cfg in 2:1: 3:1: 4:1: 1:2: 2:2: 1:1:serial; do
  np=${cfg%%:*} rest=${cfg#*:}
  t=${rest%%:*} be=${rest#*:}
  name=np${np}_t${t}${be:+_$be}
  run "$name" "$np" "$t" "$be" --reproducible "$@"
  if same "$name"; then
    echo "same bits: $name"
  elif [ "$cross" = 0 ] && default_is_cuda && [ "$be" = serial ]; then
    echo "differs (for the record): $name - a CUDA build with FMA contraction rounds otherwise"
  else
    head -n 20 "$name.diff"
    echo "FAIL: $name differs from the 1-rank run"
    fail=1
  fi
done
run plain 2 1 "" "" "$@"
if same plain; then
  echo "FAIL: the default mode on 2 ranks gave the same bits: the test cannot see a difference"
  fail=1
else
  echo "differs as expected: the default mode on 2 ranks"
fi
[ $fail -eq 0 ] && echo PASS
exit $fail
