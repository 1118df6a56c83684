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
#   fuzz_inputs.sh minimd-data EXE SEED COUNT DECK DATA  the LAMMPS data file DATA mutated, run
#                                                        by DECK (-f, 5 steps)
#   fuzz_inputs.sh minimd-eam EXE SEED COUNT DECK        the EAM potential beside DECK mutated
#                                                        (4x4x4 cells, 5 steps)
#   fuzz_inputs.sh minimd-bins EXE SEED COUNT DECK DATA  a sweep, not mutations: bins per side
#                                                        (-b 1 .. 2^31-1) x sizes (-s 1 .. 8) and
#                                                        boxes of DATA scaled from 1e-3 to 1e12
#
# Mutations: a number replaced by an extreme or malformed one (0, negatives, 1e308, 1e-320,
# INT_MAX + 1, 20 nines, nan, inf, '', '1e', '0x10', 200 digits), a line deleted, duplicated or
# replaced by another key's line, control bytes inserted, the input truncated. The same SEED
# gives the same cases. Runs are MPI singletons (no launcher), under `timeout` (FUZZ_TIMEOUT,
# default 60 s).
set -u
mode=$1 exe=$2 seed=$3 count=$4
app=${mode%%-*} # the program: its name starts every message
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
                   "2.5 0.30|4.95 1.00|0|600|0.07041125|10|Atoms|Velocities|Masses|" \
                   "2000000000 atoms|0 1e308 xlo xhi|-1e300 1e300 ylo yhi|1 1 nan 0 0|" \
                   "1 1.5 1.0|2 1 0.5 0.5 0.5|500 1e308 500 1e-2 4.95|29.5 63.55", keys, "|")
      else
        nk = split("nx=3|ny=1|nz=2|load_imbalance=50|mv_overlap_comm_comp=1|" \
                   "verify_solution=1|source_free=1|matvec_slice=32|name=a|-nx|--ny|nz:4", keys, "|")
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
# the sweep's cases: bins per side and sizes, then data-file boxes scaled by powers of ten
sweep_bins="1 2 7 100 5000 20000 100000 2147483647"
sweep_sizes="1 2 8"
sweep_scales="1e-3 1e-1 10 1e3 1e6 1e9 1e12"
nth() { # nth N WORDS...: the Nth word (1-based, cycling)
  n=$1
  shift
  i=$(((n - 1) % $# + 1))
  eval "echo \${$i}"
}

case_no=0
while [ $case_no -lt "$count" ]; do
  case_no=$((case_no + 1))
  b=$(((case_no - 1) % nbase + 1))
  eval "base=\${$b}"
  in=$dir/case$case_no.in
  if [ "$mode" = tealeaf ] || [ "$mode" = minimd ]; then
    shrink "$base" >"$dir/base.in"
    mutate $((seed * 100003 + case_no)) "$dir/base.in" "$in"
  elif [ "$mode" = minife ]; then
    printf '%s\n' $base >"$dir/base.in"
    mutate $((seed * 100003 + case_no)) "$dir/base.in" "$in"
  fi
  if [ "$mode" = minimd-data ]; then
    base=$1
    mutate $((seed * 100003 + case_no)) "$2" "$in"
    (cd "$dir" && timeout "$tmo" "$exe" --no-h5 --porta-threads=1 -i "$1" -f "$in" -n 5) \
      >"$dir/out" 2>&1
    rc=$?
  elif [ "$mode" = minimd-eam ]; then
    base=$dir/Cu_u6.eam.orig
    [ -f "$base" ] || cp "$dir/Cu_u6.eam" "$base"
    mutate $((seed * 100003 + case_no)) "$base" "$dir/Cu_u6.eam"
    cp "$dir/Cu_u6.eam" "$in"
    cp "$1" "$dir/eam.deck" # the potential is looked for beside the deck
    (cd "$dir" && timeout "$tmo" "$exe" --no-h5 --porta-threads=1 -i eam.deck -s 4 -n 5) \
      >"$dir/out" 2>&1
    rc=$?
  elif [ "$mode" = minimd-bins ]; then
    nbins=$(echo $sweep_bins | wc -w) nsizes=$(echo $sweep_sizes | wc -w)
    if [ $case_no -le $((nbins * nsizes)) ]; then # -b x -s on the lattice deck
      b=$(nth $case_no $sweep_bins)
      sz=$(nth $(((case_no - 1) / nbins + 1)) $sweep_sizes)
      echo "-i $1 -s $sz -b $b -n 5" >"$in"
      (cd "$dir" && timeout "$tmo" "$exe" --no-h5 --porta-threads=1 -i "$1" -s "$sz" -b "$b" \
        -n 5) >"$dir/out" 2>&1
    else # the data file's box and atoms scaled: a box of side 6.7e-3 to 6.7e12
      f=$(nth $((case_no - nbins * nsizes)) $sweep_scales)
      awk -v f="$f" '/xlo xhi|ylo yhi|zlo zhi/ { printf "%.17g %.17g %s %s\n", $1 * f, $2 * f, $3, $4; next }
        /^Atoms/ { atoms = 1; print; next } /^[A-Z]/ { atoms = 0 }
        atoms && NF >= 5 { printf "%s %s %.17g %.17g %.17g\n", $1, $2, $3 * f, $4 * f, $5 * f; next }
        { print }' "$2" >"$in"
      (cd "$dir" && timeout "$tmo" "$exe" --no-h5 --porta-threads=1 -i "$1" -f "$in" -n 5) \
        >"$dir/out" 2>&1
    fi
    rc=$?
  elif [ "$app" = tealeaf ]; then
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
    cp "$in" "$keep/${mode}_seed${seed}_case$case_no.in"
    echo "FAIL case $case_no ($bad): input kept as $keep/${mode}_seed${seed}_case$case_no.in"
    sed 's/^/    | /' "$in" | head -40
    tail -15 "$dir/out" | sed 's/^/    > /'
  fi
done
echo "$mode fuzz, seed $seed: $count cases, $ok ran (exit 0), $refused refused cleanly, $fail failed"
[ $fail -eq 0 ] && echo PASS
exit $((fail > 0))
