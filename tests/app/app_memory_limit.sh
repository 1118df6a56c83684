#!/bin/sh
# An app in a job whose memory is limited below what it needs: it must refuse at start-up,
# naming its estimate and the limit, instead of being killed by the OOM killer part-way.
# The limit is a memory cgroup of 1.5 GB made for this test (cgroup v2 memory.max, or v1
# memory.limit_in_bytes, under this process's own cgroup: Slurm's way), or where no cgroup can
# be made, an address-space limit (ulimit -v) of 1.5 GB; the test says which ran. Exit 77
# (skipped, saying why) where neither can: no cgroup and a sanitized build (AddressSanitizer
# reserves terabytes of address space).
#   app_memory_limit.sh MPIEXEC REGEX APP ARGS...
set -u
mpiexec=$1 regex=$2
shift 2
limit=1500000000
dir=$(mktemp -d "${TMPDIR:-/tmp}/app_memlimit.XXXXXX") || exit 1
cg=""
cleanup() {
  [ -n "$cg" ] && rmdir "$cg" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
# a child of this process's cgroup with the limit: v2 first, then v1's memory controller
v2=$(sed -n 's/^0:://p' /proc/self/cgroup)
v1=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
for try in "v2:/sys/fs/cgroup${v2%/}:memory.max" "v1:/sys/fs/cgroup/memory${v1%/}:memory.limit_in_bytes"; do
  kind=${try%%:*} rest=${try#*:}
  base=${rest%:*} file=${rest##*:}
  { [ "$kind" = v2 ] && [ -z "$v2$(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null)" ]; } && continue
  [ -d "$base" ] || continue
  c="$base/porta_memlimit_$$"
  if mkdir "$c" 2>/dev/null; then
    if echo "$limit" >"$c/$file" 2>/dev/null && [ -w "$c/cgroup.procs" ]; then
      cg=$c
      how="a $kind memory cgroup of 1.5 GB ($c/$file)"
      break
    fi
    rmdir "$c" 2>/dev/null
  fi
done
if [ -z "$cg" ]; then
  if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "SKIP: no memory cgroup can be made here, and a sanitized build cannot run under ulimit -v"
    exit 77
  fi
  how="an address-space limit of 1.5 GB (ulimit -v; no memory cgroup can be made here)"
  # Open MPI cannot always start under it (on a 16-core GPU machine its PMIx thread failed and
  # the launcher aborted): nothing of the app's can be tested there
  if ! (ulimit -v $((limit / 1024)) && timeout 60 "$mpiexec" -n 1 true) >/dev/null 2>&1; then
    echo "SKIP: no memory cgroup can be made here, and MPI does not start under ulimit -v"
    exit 77
  fi
fi
echo "limit: $how"
# the run's own shell joins the cgroup ($$ of a subshell would be this script's) and becomes
# the run; the script itself stays outside, so it can remove the cgroup after
cd "$dir" || exit 1
if [ -n "$cg" ]; then
  sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" timeout 120 "$mpiexec" -n 1 \
    "$@" >"$dir/out.log" 2>&1
else
  (ulimit -v $((limit / 1024)) && exec timeout 120 "$mpiexec" -n 1 "$@") >"$dir/out.log" 2>&1
fi
rc=$?
cd / || exit 1
cat "$dir/out.log"
fail=0
case $rc in
  1 | 2) ;;
  *) echo "FAIL: exit status $rc (expected a refusal: 1 or 2; 137 is the OOM killer)"; fail=1 ;;
esac
grep -Eq -- "$regex" "$dir/out.log" || { echo "FAIL: no message matching '$regex'"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: refused under $how"
exit $fail
