#!/bin/sh
# One solver x preconditioner combination of TeaLeaf on a reference benchmark deck whose
# test_problem the app checks (tea_bm_1.in: 10 x 10, 10 steps, eps 1e-15). The deck is written at
# test time from BASE with its solver, preconditioner, halo_depth and tl_ch_cg_presteps lines
# replaced, so every combination runs the reference deck and nothing else changes.
#
#   tea_combo.sh MPIEXEC NP TEALEAF BASE NAME SOLVER PRECON [checks...]
#
# Always checked: exit status 0, "This test is considered PASSED" in the report, one
# "Iteration count" line per step (STEPS, default 10). Further checks (each can fail):
#   halo=N            run with halo_depth N
#   presteps=N        run with tl_ch_cg_presteps N (default: the deck's, i.e. the code's 25)
#   reflective=1      run with reflective_boundary (the twin too): Kx, Ky not zeroed on the faces
#   maxiters=N        run with tl_max_iters N (the twin too); the steps may stop at the limit, so
#                     the report's PASSED is not asked for
#   twinmaxiters=N    the twin runs with tl_max_iters N instead
#   twindigest=1      both runs write their results, and the digests of their fields (the run
#                     summary's fields_digest) must be equal: the same bits
#   counts="a b ..."  printed per-step iteration counts must be exactly these
#   twin=SOLVER:PRECON[:HALO]  run the same deck with that solver/preconditioner (and halo_depth)
#                     too: the printed per-step counts must be equal and the final U equal within
#                     twintol (default 0: the same printed digits)
#   twintol=REL       relative tolerance for the twin's final U
#   twinexec=1        the twin's per-step "Executed iterations" lines (the CG, Chebyshev and
#                     PPCG inner counts) must be the same too
#   cg="a b ..."      CG iterations executed in each step ("Executed iterations ... (CG a")
#   cheby=1           every step ran Chebyshev iterations and stopped where the reference can:
#                     printed count = 9 mod 10 (the residual is only recomputed when n mod 10 = 0)
#                     or tl_max_iters
#   inner=M           PPCG: every step ran inner steps, M per outer PPCG iteration plus M at the
#                     switch (inner total = M * (executed - CG + 1))
#   fixed_point=1     every step's "Conduction error" is exactly 0 (Jacobi reached a fixed point)
#   converged=1       no step says NOT CONVERGED
#   env=VAR=VALUE     run with VAR=VALUE in the environment (the twin too, unless twinenv)
#   twinenv=VAR=VALUE the twin runs with VAR=VALUE instead
#   twinexpect=TEXT   the twin's report must have a line containing TEXT
#   expect=TEXT       the report must have a line containing TEXT (the path a run took)
#   reject=PATTERN    the deck must be refused: non-zero exit and a message matching PATTERN
#   sums=KIND         run with --sums KIND (the twin too): exact or ordinary
set -u
mpiexec=$1 np=$2 exe=$3 base=$4 name=$5 solver=$6 precon=$7
shift 7
halo="" presteps="" reflective=0 maxiters="" twin_maxiters="" twin_digest=0 counts="" twin="" twintol=0 twinexec=0 cg="" cheby=0 inner="" fixed_point=0
converged=0 reject="" steps=10 run_env="" twin_env="" expect="" twin_expect="" sums=""
for kv in "$@"; do
  case $kv in
  halo=*) halo=${kv#*=} ;;
  presteps=*) presteps=${kv#*=} ;;
  reflective=*) reflective=${kv#*=} ;;
  maxiters=*) maxiters=${kv#*=} ;;
  twinmaxiters=*) twin_maxiters=${kv#*=} ;;
  twindigest=*) twin_digest=${kv#*=} ;;
  counts=*) counts=${kv#*=} ;;
  twin=*) twin=${kv#*=} ;;
  twintol=*) twintol=${kv#*=} ;;
  twinexec=*) twinexec=${kv#*=} ;;
  cg=*) cg=${kv#*=} ;;
  cheby=*) cheby=${kv#*=} ;;
  inner=*) inner=${kv#*=} ;;
  fixed_point=*) fixed_point=${kv#*=} ;;
  converged=*) converged=${kv#*=} ;;
  reject=*) reject=${kv#*=} ;;
  steps=*) steps=${kv#*=} ;;
  env=*) run_env=${kv#*=} ;;
  twinenv=*) twin_env=${kv#*=} ;;
  expect=*) expect=${kv#*=} ;;
  twinexpect=*) twin_expect=${kv#*=} ;;
  sums=*) sums=${kv#*=} ;;
  *) echo "tea_combo.sh: unknown check '$kv'"; exit 2 ;;
  esac
done
fail() { echo "FAIL: $name: $*"; exit 1; }

# write_deck FILE SOLVER PRECON HALO: BASE with the solver lines replaced
write_deck() {
  awk -v s="$2" -v p="$3" -v h="$4" -v ps="$presteps" -v mi="$maxiters" -v rb="$reflective" '
    /^[ \t]*(tl_use_|tl_preconditioner_type|halo_depth|tl_ch_cg_presteps|reflective_boundary)/ { next }
    mi != "" && /^[ \t]*tl_max_iters/ { next }
    /^[ \t]*\*endtea/ {
      print "tl_use_" s; print "tl_preconditioner_type=" p
      if (h != "") print "halo_depth=" h
      if (ps != "") print "tl_ch_cg_presteps=" ps
      if (mi != "") print "tl_max_iters=" mi
      if (rb == 1) print "reflective_boundary"
    }
    { print }' "$base" >"$1" || fail "cannot write $1"
}
# run DECK LOG [VAR=VALUE]: TeaLeaf on NP ranks (with that environment); sets rc
run() {
  out="--no-h5"
  [ "$twin_digest" = 1 ] && out="--out ${2%.log} --summary-json ${2%.log}.json"
  [ -n "$sums" ] && out="$out --sums $sums"
  if [ -n "${3:-}" ]; then
    env "$3" "$mpiexec" -n "$np" "$exe" $out "$1" >"$2" 2>&1
  else
    "$mpiexec" -n "$np" "$exe" $out "$1" >"$2" 2>&1
  fi
  rc=$?
}
digest() { grep -o '"fields_digest": *"[0-9a-f]*"' "${1%.log}.json" 2>/dev/null | grep -o '[0-9a-f]\{16\}'; }
iters() { grep '^Iteration count' "$1" | awk '{printf "%s ", $3}'; }
final_u() { grep ' step:' "$1" | tail -1 | awk '{print $7}'; }

deck=combo_$name.in log=combo_$name.log
write_deck "$deck" "$solver" "$precon" "$halo"
echo "deck $deck: tl_use_$solver tl_preconditioner_type=$precon${halo:+ halo_depth=$halo}${presteps:+ tl_ch_cg_presteps=$presteps}${maxiters:+ tl_max_iters=$maxiters}$([ "$reflective" = 1 ] && echo " reflective_boundary")"
run "$deck" "$log" "$run_env"
cat "$log"
echo "exit status: $rc"

if [ -n "$reject" ]; then
  [ $rc -ne 0 ] || fail "the deck was accepted (exit status 0)"
  grep -E "tealeaf: .*$deck" "$log" | grep -Eq -- "$reject" || fail "no message matching '$reject'"
  echo "PASS: rejected as the reference does"
  exit 0
fi

[ $rc -eq 0 ] || fail "tealeaf exited with $rc"
[ -n "$maxiters" ] || grep -q '^ This test is considered PASSED$' "$log" ||
  fail "the report does not say PASSED"
if [ -n "$expect" ]; then
  grep -qF -- "$expect" "$log" || fail "no line containing '$expect' in the report"
fi
got=$(iters "$log")
n=$(echo "$got" | wc -w)
[ "$n" -eq "$steps" ] || fail "$n 'Iteration count' lines, want $steps"
echo "iteration counts: [$got]"
if [ -n "$counts" ]; then
  [ "$got" = "$counts " ] || fail "per-step iteration counts [$got], want [$counts]"
fi
if [ "$converged" = 1 ] && grep -q 'NOT CONVERGED' "$log"; then
  fail "a step did not converge"
fi
if [ "$fixed_point" = 1 ]; then
  bad=$(grep '^Conduction error' "$log" | awk '$3 + 0 != 0' | wc -l)
  [ "$bad" -eq 0 ] || fail "$bad steps end with a non-zero conduction error"
fi
# per-step "Executed iterations E (CG a, Chebyshev b, PPCG inner c)" as "E a b c"
ex=$(grep '^ Executed iterations .*(CG' "$log" | sed 's/[(),]/ /g' | awk '{print $3, $5, $7, $10}')
if [ -n "$cg" ]; then
  gotcg=$(echo "$ex" | awk '{printf "%s ", $2}')
  [ "$gotcg" = "$cg " ] || fail "CG iterations per step [$gotcg], want [$cg]"
fi
if [ "$cheby" = 1 ]; then
  maxit=$(awk '/tl_max_iters/ {print $2}' "$log" | tail -1)
  echo "$ex" | awk '$3 <= 0 {exit 1}' || fail "a step ran no Chebyshev iteration"
  for c in $got; do
    [ $((c % 10)) -eq 9 ] || [ "$c" = "$maxit" ] ||
      fail "Chebyshev stopped at printed count $c: neither 9 mod 10 nor tl_max_iters $maxit"
  done
fi
if [ -n "$inner" ]; then
  echo "$ex" | awk -v m="$inner" '$4 <= 0 || $4 != m * ($1 - $2 + 1) {
    printf "step %d: %d inner steps, %d executed, %d CG; want %d x (executed - CG + 1)\n",
      NR, $4, $1, $2, m; bad = 1 } END { exit bad }' || fail "PPCG inner step counts"
fi
if [ -n "$twin" ]; then
  ts=${twin%%:*} rest=${twin#*:}
  tp=${rest%%:*} th=""
  [ "$tp" != "$rest" ] && th=${rest#*:}
  tdeck=combo_$name.twin.in tlog=combo_$name.twin.log
  run_maxiters=$maxiters
  maxiters=${twin_maxiters:-$maxiters}
  write_deck "$tdeck" "$ts" "$tp" "$th"
  maxiters=$run_maxiters
  run "$tdeck" "$tlog" "${twin_env:-$run_env}"
  [ $rc -eq 0 ] || { cat "$tlog"; fail "twin run ($ts, $tp${th:+, halo_depth $th}) exited with $rc"; }
  if [ -n "$twin_expect" ]; then
    grep -qF -- "$twin_expect" "$tlog" || fail "no line containing '$twin_expect' in the twin's report"
  fi
  tgot=$(iters "$tlog")
  echo "twin tl_use_$ts $tp${th:+ halo_depth=$th}: iteration counts [$tgot]"
  [ "$got" = "$tgot" ] || fail "per-step iteration counts differ from the twin's"
  if [ "$twinexec" = 1 ]; then
    grep '^ Executed iterations' "$log" >"$log.exec"
    grep '^ Executed iterations' "$tlog" >"$tlog.exec"
    [ -s "$log.exec" ] || fail "no 'Executed iterations' lines"
    cmp -s "$log.exec" "$tlog.exec" || {
      diff "$log.exec" "$tlog.exec"
      fail "the 'Executed iterations' lines differ from the twin's"
    }
  fi
  if [ "$twin_digest" = 1 ]; then
    d=$(digest "$log") td=$(digest "$tlog")
    echo "fields digest $d, twin $td"
    [ -n "$d" ] && [ "$d" = "$td" ] || fail "the fields' digests differ from the twin's (or are missing)"
  fi
  awk -v g="$(final_u "$log")" -v w="$(final_u "$tlog")" -v t="$twintol" 'BEGIN {
    printf "final U %s, twin %s\n", g, w
    if (t + 0 == 0) exit (g == w) ? 0 : 1
    d = (g - w) / w; if (d < 0) d = -d; printf "relative difference %.3g (tolerance %s)\n", d, t
    exit (d <= t + 0) ? 0 : 1 }' || fail "final U differs from the twin's"
fi
echo "PASS"
