#!/bin/sh
# OpenMP's busy waiting on an oversubscribed node (apps/common/app_omp_wait.h): 2 unbound ranks
# x as many threads as the process may use CPUs start again with GOMP_SPINCOUNT=1000 and say so
# on the run's first line, with the same arguments and answer; the user's OMP_WAIT_POLICY, one
# rank with few threads, and the Serial back end are left alone (no line, no restart).
#   app_omp_wait.sh MPIEXEC APP ANSWER_REGEX APP_ARGS...
set -u
mpiexec=$1 exe=$2 answer=$3
shift 3
dir=$(mktemp -d "${TMPDIR:-/tmp}/app_omp_wait.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
cpus=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) # nproc obeys those two
fail=0
# run NAME NP EXPECT(line|none) ENV... -- ARGS...: one run, its first line checked
run() {
  name=$1 np=$2 expect=$3
  shift 3
  envs=""
  while [ "$1" != -- ]; do envs="$envs $1"; shift; done
  shift
  # shellcheck disable=SC2086
  timeout 300 env -u GOMP_SPINCOUNT -u OMP_WAIT_POLICY $envs "$mpiexec" --bind-to none -n "$np" \
    "$exe" "$@" >"$name.log" 2>&1
  rc=$?
  echo "---- $name (exit $rc):"; head -3 "$name.log"
  [ $rc -eq 0 ] || { echo "FAIL: $name: exit status $rc"; fail=1; }
  grep -Eq -- "$answer" "$name.log" || { echo "FAIL: $name: no answer matching '$answer'"; fail=1; }
  first=$(head -1 "$name.log")
  line="^porta: 2 ranks x $cpus threads share $cpus CPUs: OpenMP's idle threads spin 1000 times before they sleep \(GOMP_SPINCOUNT=1000; set OMP_WAIT_POLICY or GOMP_SPINCOUNT to choose\)$"
  if [ "$expect" = line ]; then
    echo "$first" | grep -Eq -- "$line" || { echo "FAIL: $name: first line is not the restart's"; fail=1; }
    [ "$(grep -c '^porta: ' "$name.log")" -eq 1 ] || { echo "FAIL: $name: the line is not said once"; fail=1; }
  else
    grep -q '^porta: ' "$name.log" && { echo "FAIL: $name: unexpected porta line"; fail=1; }
  fi
}
run crowded 2 line -- "$@" --porta-backend=openmp --porta-threads="$cpus"
run crowded_env 2 line PORTA_NUM_THREADS="$cpus" PORTA_BACKEND=openmp -- "$@"
run user_policy 2 none OMP_WAIT_POLICY=passive -- "$@" --porta-backend=openmp --porta-threads="$cpus"
run user_spin 2 none GOMP_SPINCOUNT=300000 -- "$@" --porta-backend=openmp --porta-threads="$cpus"
run one_rank 1 none -- "$@" --porta-backend=openmp --porta-threads="$cpus"
run serial 2 none -- "$@" --porta-backend=serial --porta-threads="$cpus"
[ $fail -eq 0 ] && echo PASS
exit $fail
