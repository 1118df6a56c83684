#!/bin/sh
# Input fuzzer for the mini-apps: COUNT mutated inputs from a deterministic SEED. Every case
# must end with exit status 0 and no NaN or Inf in its output, or with exit status 1 or 2 and a
# message from the app. A signal, a sanitizer report, a timeout or NaN/Inf with exit 0 fails
# the test; the failing input is kept in fuzz_failures/ with the command that ran it.
#
#   fuzz_inputs.sh tealeaf EXE SEED COUNT DECK...        mutated decks (small grids, few steps)
#   fuzz_inputs.sh minife  EXE SEED COUNT "ARGS" ...     mutated command lines (key=value ...)
#   fuzz_inputs.sh minimd  EXE SEED COUNT DECK...        mutated 14-line decks (4x4x4 cells, 20
#                                                        steps; Cu_u6.eam beside the first deck)
#
# Mutations: a number replaced by an extreme or malformed one (0, negatives, 1e308, 1e-320,
# INT_MAX + 1, 20 nines, nan, inf, '', '1e', '0x10', 200 digits), a line deleted, duplicated or
# replaced by another key's line, control bytes inserted, the input truncated. The same SEED
# gives the same cases. Runs are MPI singletons (no launcher), under `timeout` (FUZZ_TIMEOUT,
# default 60 s).
set -u
app=$1 exe=$2 seed=$3 count=$4
shift 4
tmo=${FUZZ_TIMEOUT:-60}
dir=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_${app}.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
keep=$PWD/fuzz_failures
nbase=$#
fail=0 ok=0 refused=0

# mutate SEED INPUT OUTPUT: write a mutated copy of INPUT (lines) to OUTPUT
mutate() {
  awk -v seed="$1" -v app="$app" '
    function pick(n) { return int(rand() * n) + 1 }
    BEGIN {
      srand(seed)
      nn = split("0|-1|-0|1e308|-1e308|1e-320|2147483647|2147483648|-2147483649|" \
                 "99999999999999999999|nan|inf|-inf||1e|0x10|1.0.0|.|+|" \
                 "00000000000000000000000000000000000000000000000000000000000000000000000001|" \
                 "3|7|1", nasty, "|")
      nasty[nn + 1] = sprintf("%0200d", 7); nn++
      if (app == "tealeaf")
        nk = split("x_cells=8|y_cells=1|halo_depth=3|end_step=2|end_time=1e-300|" \
                   "initial_timestep=0|tl_max_iters=5|tl_use_ppcg|tl_use_chebyshev|" \
                   "tl_use_jacobi|tl_preconditioner_type jac_block|tl_ch_cg_presteps=0|" \
                   "tl_ppcg_inner_steps=-1|visit_frequency=1|summary_frequency=0|" \
                   "state 2 density=0 energy=-1 geometry=circular xmin=1 ymin=1 radius=0|" \
                   "state 1 density=1e308 energy=1e308|tl_eps=0|xmin=5|xmax=5", keys, "|")
      else if (app == "minimd")
        nk = split("lj|metal|eam|none|1m.data|1.0 1.0|4 4 4|20|0.005|1.44|0.8442|" \
                   "2.5 0.30|4.95 1.00|0|600|0.07041125|10", keys, "|")
      else
        nk = split("nx=3|ny=1|nz=2|load_imbalance=50|mv_overlap_comm_comp=1|" \
                   "verify_solution=1|source_free=1|matvec_lanes=8|name=a|-nx|--ny|nz:4", keys, "|")
    }
    { line[++n] = $0 }
    END {
      muts = pick(3)
      for (m = 0; m < muts; ++m) {
        op = pick(7); i = pick(n > 0 ? n : 1)
        if (op <= 3) {            # a number (or a value) replaced
          t = split(line[i], w, /[ =,:]+/)
          if (t > 0) {
            j = pick(t); v = nasty[pick(nn)]
            k = index(line[i], w[j])
            if (k > 0) line[i] = substr(line[i], 1, k - 1) v substr(line[i], k + length(w[j]))
          }
        } else if (op == 4 && n > 1) {   # a line deleted
          for (k = i; k < n; ++k) line[k] = line[k + 1]
          --n
        } else if (op == 5) {            # a line duplicated or replaced by another key
          line[++n] = (rand() < 0.5) ? line[i] : keys[pick(nk)]
        } else if (op == 6) {            # control bytes
          c = sprintf("%c", pick(31))
          line[i] = substr(line[i], 1, pick(length(line[i]) + 1) - 1) c c \
                    substr(line[i], pick(length(line[i]) + 1))
        } else {                         # truncated
          n = i; line[n] = substr(line[n], 1, int(length(line[n]) / 2))
        }
      }
      for (k = 1; k <= n; ++k) print line[k]
    }' "$2" >"$3"
}

# small grids and few steps, so a case runs in seconds (the mutations may raise them again)
shrink() {
  if [ "$app" = tealeaf ]; then
    awk '{ l = tolower($0)
           if (l ~ /^[ \t]*x_cells/) { print "x_cells=12"; next }
           if (l ~ /^[ \t]*y_cells/) { print "y_cells=10"; next }
           if (l ~ /^[ \t]*end_step/) { print "end_step=2"; next }
           if (l ~ /^[ \t]*end_time/) next
           if (l ~ /^[ \t]*test_problem/) next
           print }' "$1"
  elif [ "$app" = minimd ]; then # fixed line positions: size, steps, thermo interval
    awk 'NR == 7 { print "4 4 4"; next } NR == 8 { print "20"; next }
         NR == 14 { print "10"; next } { print }' "$1"
  else
    cat "$1"
  fi
}
[ "$app" = minimd ] && cp "$(dirname "$1")/Cu_u6.eam" "$dir/" 

case_no=0
while [ $case_no -lt "$count" ]; do
  case_no=$((case_no + 1))
  b=$(((case_no - 1) % nbase + 1))
  eval "base=\${$b}"
  in=$dir/case$case_no.in
  if [ "$app" = tealeaf ] || [ "$app" = minimd ]; then
    shrink "$base" >"$dir/base.in"
  else
    printf '%s\n' $base >"$dir/base.in"
  fi
  mutate $((seed * 100003 + case_no)) "$dir/base.in" "$in"
  if [ "$app" = tealeaf ]; then
    (cd "$dir" && timeout "$tmo" "$exe" --no-h5 "$in") >"$dir/out" 2>&1
    rc=$?
  elif [ "$app" = minimd ]; then
    (cd "$dir" && timeout "$tmo" "$exe" --no-h5 --porta-threads=1 -i "$in") >"$dir/out" 2>&1
    rc=$?
  else
    # shellcheck disable=SC2046
    (cd "$dir" && timeout "$tmo" "$exe" --no-h5 $(cat "$in")) >"$dir/out" 2>&1
    rc=$?
  fi
  bad=""
  if [ $rc -eq 124 ]; then
    bad="timed out after $tmo s"
  elif [ $rc -ge 128 ]; then
    bad="killed by signal $((rc - 128))"
  elif grep -Eq "AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:" "$dir/out"; then
    bad="sanitizer report"
  elif [ $rc -eq 0 ]; then
    if grep -Eiq '(^|[^a-z])(nan|inf|infinity)([^a-z]|$)' "$dir/out"; then
      bad="NaN or Inf with exit status 0"
    fi
    ok=$((ok + 1))
  elif [ $rc -eq 1 ] || [ $rc -eq 2 ]; then
    if ! grep -q "$app" "$dir/out"; then
      bad="exit status $rc without a message"
    fi
    refused=$((refused + 1))
  else
    bad="exit status $rc"
  fi
  if [ -n "$bad" ]; then
    fail=$((fail + 1))
    mkdir -p "$keep"
    cp "$in" "$keep/${app}_seed${seed}_case$case_no.in"
    echo "FAIL case $case_no ($bad): input kept as $keep/${app}_seed${seed}_case$case_no.in"
    sed 's/^/    | /' "$in" | head -40
    tail -15 "$dir/out" | sed 's/^/    > /'
  fi
done
echo "$app fuzz, seed $seed: $count cases, $ok ran (exit 0), $refused refused cleanly, $fail failed"
[ $fail -eq 0 ] && echo PASS
exit $((fail > 0))
