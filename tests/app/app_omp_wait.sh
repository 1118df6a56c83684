#!/bin/sh
# OpenMP's busy waiting on an oversubscribed node (apps/common/app_omp_wait.h): 2 unbound ranks
# x as many threads as the process may use CPUs start again with GOMP_SPINCOUNT=1000 and say so
# on the run's first line, with the same arguments and answer; the user's OMP_WAIT_POLICY, one
# rank with few threads, and the Serial back end are left alone (no line, no restart). The
# threads and back end are read by the core's rules (blanks, '+', an empty variable, the last of
# an option, a name's case), a cgroup CPU quota counts (the test hook PORTA_TEST_CPU_MAX_FILE
# stands for cpu.max), and a marker of a restart forged in the caller's environment neither
# prints its figures nor stops a restart.
#   app_omp_wait.sh MPIEXEC APP ANSWER_REGEX APP_ARGS...
set -u
mpiexec=$1 exe=$2 answer=$3
shift 3
dir=$(mktemp -d "${TMPDIR:-/tmp}/app_omp_wait.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
cpus=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) # nproc obeys those two
fail=0
# run NAME NP EXPECT ENV... -- ARGS...: one run, its first line checked. EXPECT: none (no
# restart, no line) or RANKS:THREADS:CPUS (the restart's line with these figures). ENV: the
# environment's settings (values may hold spaces).
run() {
  name=$1 np=$2 expect=$3
  shift 3
  # "ENV... -- ARGS..." becomes "ENV... MPIEXEC ... APP ARGS..." for env
  n=$#
  while [ "$n" -gt 0 ]; do
    a=$1
    shift
    if [ "$a" = -- ]; then set -- "$@" "$mpiexec" --bind-to none -n "$np" "$exe"; else set -- "$@" "$a"; fi
    n=$((n - 1))
  done
  # the thread counts of the test's environment (1 a rank) only where a case sets them
  timeout 300 env -u GOMP_SPINCOUNT -u OMP_WAIT_POLICY -u PORTA_OMP_WAIT_RESTARTED \
    -u PORTA_NUM_THREADS -u OMP_NUM_THREADS "$@" >"$name.log" 2>&1
  rc=$?
  echo "---- $name (exit $rc):"; head -3 "$name.log"
  [ $rc -eq 0 ] || { echo "FAIL: $name: exit status $rc"; fail=1; }
  grep -Eq -- "$answer" "$name.log" || { echo "FAIL: $name: no answer matching '$answer'"; fail=1; }
  first=$(head -1 "$name.log")
  if [ "$expect" != none ]; then
    r=${expect%%:*} t=${expect#*:} c=${expect##*:}
    t=${t%%:*}
    rs=s cs=s
    [ "$r" -eq 1 ] && rs=""
    [ "$c" -eq 1 ] && cs=""
    line="^porta: $r rank$rs x $t threads share $c CPU$cs: OpenMP's idle threads spin 1000 times before they sleep \(GOMP_SPINCOUNT=1000; set OMP_WAIT_POLICY or GOMP_SPINCOUNT to choose\)$"
    echo "$first" | grep -Eq -- "$line" || { echo "FAIL: $name: first line is not the restart's ($expect)"; fail=1; }
    [ "$(grep -c '^porta: ' "$name.log")" -eq 1 ] || { echo "FAIL: $name: the line is not said once"; fail=1; }
  else
    grep -q '^porta: ' "$name.log" && { echo "FAIL: $name: unexpected porta line"; fail=1; }
  fi
}
crowd="2:$cpus:$cpus" twice=$((2 * cpus))
run crowded 2 "$crowd" -- "$@" --porta-backend=openmp --porta-threads="$cpus"
run crowded_env 2 "$crowd" PORTA_NUM_THREADS="$cpus" PORTA_BACKEND=openmp -- "$@"
run user_policy 2 none OMP_WAIT_POLICY=passive -- "$@" --porta-backend=openmp --porta-threads="$cpus"
run user_spin 2 none GOMP_SPINCOUNT=300000 -- "$@" --porta-backend=openmp --porta-threads="$cpus"
run one_rank 1 none -- "$@" --porta-backend=openmp --porta-threads="$cpus"
run serial 2 none -- "$@" --porta-backend=serial --porta-threads="$cpus"
# the thread count and back end as the core reads them (porta_settings_read): strtol's
# leading blanks and sign, OMP_NUM_THREADS as libgomp reads it, an empty variable unset, the
# last of an option, a back end's name in any case
run space 2 "2:$twice:$cpus" PORTA_NUM_THREADS=" $twice" PORTA_BACKEND=openmp -- "$@"
run plus 2 "2:$twice:$cpus" PORTA_NUM_THREADS="+$twice" PORTA_BACKEND=openmp -- "$@"
run omp_space 2 "2:$twice:$cpus" OMP_NUM_THREADS=" $twice" PORTA_BACKEND=openmp -- "$@"
run empty_porta 2 "2:$twice:$cpus" PORTA_NUM_THREADS= OMP_NUM_THREADS="$twice" PORTA_BACKEND=openmp -- "$@"
run last_option 2 "$crowd" -- "$@" --porta-backend=openmp --porta-threads=1 --porta-threads="$cpus"
run backend_case 2 "$crowd" -- "$@" --porta-backend=OpenMP --porta-threads="$cpus"
run backend_env_case 2 "$crowd" PORTA_BACKEND=OpenMP -- "$@" --porta-threads="$cpus"
if [ "$cpus" -ge 2 ]; then # 2 ranks x 1 thread fit
  run omp_space_fits 2 none OMP_NUM_THREADS=" 1" PORTA_BACKEND=openmp -- "$@"
  run empty_porta_fits 2 none PORTA_NUM_THREADS= OMP_NUM_THREADS=1 PORTA_BACKEND=openmp -- "$@"
  run last_option_fits 2 none -- "$@" --porta-backend=openmp --porta-threads="$cpus" --porta-threads=1
fi
# a cgroup quota of a quarter of a CPU counts as 1 CPU (the test hook stands for cpu.max)
echo "25000 100000" >cpu.max
run quota 1 "1:$cpus:1" PORTA_TEST_CPU_MAX_FILE="$dir/cpu.max" -- "$@" --porta-backend=openmp --porta-threads="$cpus"
echo "max 100000" >nomax
run no_quota 1 none PORTA_TEST_CPU_MAX_FILE="$dir/nomax" -- "$@" --porta-backend=openmp --porta-threads="$cpus"
# the marker of a restart, forged in the caller's environment: no figures taken from it, and
# no restart suppressed
run forged_fits 1 none PORTA_OMP_WAIT_RESTARTED="64 64 1" -- "$@" --porta-backend=openmp --porta-threads="$cpus"
run forged_spin 1 none PORTA_OMP_WAIT_RESTARTED="64 64 1" GOMP_SPINCOUNT=1000 -- "$@" --porta-backend=openmp --porta-threads="$cpus"
run forged_crowded 2 "$crowd" PORTA_OMP_WAIT_RESTARTED="$$" -- "$@" --porta-backend=openmp --porta-threads="$cpus"
[ $fail -eq 0 ] && echo PASS
exit $fail
