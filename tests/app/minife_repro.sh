#!/bin/sh
# miniFE --reproducible: the solution and the residual history must be bitwise identical
# (h5diff without tolerance) on 1, 2 and 4 ranks, 1 and 2 threads, the Serial back end, with
# mv_overlap_comm_comp=1, with load_imbalance and with the matrix stored in slices
# (matvec_slice=S, a GPU's storage); the iteration count too.
# MINIFE_REPRO_CUDA=1 adds CUDA runs on 1 and 2 ranks.
# CROSS = 0 (a CUDA build with FMA contraction, not configured with PORTA_ENABLE_REPRODUCIBLE):
# when the default back end is CUDA (PORTA_BACKEND=cuda, or unset on a machine with a GPU), the
# Serial and OpenMP runs are compared for the record only - host and device round a*b+c
# differently there; every CUDA run must still agree.
#   minife_repro.sh MPIEXEC MINIFE H5DIFF CROSS MINIFE_ARGS...
set -u
mpiexec=$1 exe=$2 h5diff=$3 cross=$4
shift 4
dir=$(mktemp -d "${TMPDIR:-/tmp}/minife_repro.XXXXXX") || exit 1
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
run() { # run NAME NP THREADS BACKEND [args...]
  name=$1 np=$2 t=$3 be=$4
  shift 4
  env OMP_NUM_THREADS="$t" PORTA_NUM_THREADS="$t" ${be:+PORTA_BACKEND=$be} \
    "$mpiexec" -n "$np" "$exe" --reproducible --out "$name" "$@" >"$name.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    cat "$name.log"
    echo "FAIL: $name: minife exited with $rc"
    exit 1
  fi
}
iters() { sed -n 's/^ *Iterations: *//p' "$1" | head -1; }
run ref 1 1 "" "$@"
ref_iters=$(iters miniFE.*.P1.*.yaml)
rm -f miniFE.*.yaml
echo "reference: 1 rank, 1 thread: $ref_iters iterations, $(grep 'Final Resid' ref.log)"
cfgs="2:1:: 4:1:: 1:2:: 2:2:: 4:2:: 1:1:serial: 2:1::mv_overlap_comm_comp=1 4:1::mv_overlap_comm_comp=1 3:1::load_imbalance=20"
# the sliced storage (a GPU's default) on the host back ends: alone, with the overlap's row
# lists, the imbalance's uneven boxes and the deterministic mode's matvec of its own (extra
# arguments joined by commas)
cfgs="$cfgs 1:2:openmp:matvec_slice=32 3:2:openmp:matvec_slice=32 1:1:serial:matvec_slice=32"
cfgs="$cfgs 2:1::matvec_slice=32,mv_overlap_comm_comp=1 3:1::matvec_slice=32,load_imbalance=20"
cfgs="$cfgs 2:2:openmp:matvec_slice=32,--porta-deterministic"
[ "${MINIFE_REPRO_CUDA:-0}" = 1 ] && cfgs="$cfgs 1:1:cuda: 2:1:cuda:"
for cfg in $cfgs; do
  np=${cfg%%:*} rest=${cfg#*:}
  t=${rest%%:*} rest=${rest#*:}
  be=${rest%%:*} extra=${rest#*:}
  name=np${np}_t${t}${be:+_$be}${extra:+_$(echo "$extra" | sed 's/--//g; s/[=,]/_/g')}
  run "$name" "$np" "$t" "$be" "$@" $(echo "$extra" | tr ',' ' ')
  it=$(iters miniFE.*.yaml)
  rm -f miniFE.*.yaml
  if "$h5diff" ref.h5 "$name.h5" /solution /solution >"$name.diff" 2>&1 &&
    "$h5diff" ref.h5 "$name.h5" /cg/residual_history /cg/residual_history >>"$name.diff" 2>&1 &&
    [ "$it" = "$ref_iters" ]; then
    echo "same bits: $name ($it iterations)"
  elif [ "$cross" = 0 ] && default_is_cuda && { [ "$be" = serial ] || [ "$be" = openmp ]; }; then
    echo "differs (for the record): $name - a CUDA build with FMA contraction rounds otherwise"
  else
    cat "$name.diff"
    echo "FAIL: $name differs from the 1-rank run ($it iterations, expected $ref_iters)"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo PASS
exit $fail
