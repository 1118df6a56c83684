#!/bin/sh
# Reproducible mode for every solver (jacobi, cg, chebyshev, ppcg) x preconditioner (none,
# jac_diag, jac_block): TeaLeaf --reproducible on 2 to 5 ranks must write the bits of 1 rank,
# h5diff (exact) of /fields and /steps, and so must 1 rank whose iterations run as the recorded
# device loop (TEA_DEVICE_LOOP=1: its exact sums land in the loop's memory and are rounded
# there, as on a GPU). The deck (decks/repro_combo.in) gets the solver and the
# preconditioner appended. Two cases broke this once: Chebyshev's first step read u's halo as the
# step began (its CG iterations never exchange u), and jac_block's blocks of 4 rows started at
# each rank's first row, which is now a block's (tea_decompose).
#   tea_repro_combos.sh MPIEXEC TEALEAF DECK [H5DIFF]
set -u
mpiexec=$1 exe=$2 deck=$3 h5diff=${4:-h5diff}
fail=0 cases=0
for solver in jacobi cg chebyshev ppcg; do
  for pc in none jac_diag jac_block; do
    name=combo_${solver}_$pc
    { sed '/^\*endtea/d' "$deck"; printf 'tl_use_%s\ntl_preconditioner_type %s\n*endtea\n' \
      "$solver" "$pc"; } >"$name.in"
    for np in 1 2 3 4 5 loop; do
      loop=0 n=$np
      [ "$np" = loop ] && loop=1 n=1
      rm -f "${name}_np$np.h5"
      if ! env OMP_NUM_THREADS=1 PORTA_NUM_THREADS=1 TEA_DEVICE_LOOP=$loop "$mpiexec" -n "$n" "$exe" \
        --reproducible --out "${name}_np$np" "$name.in" >"${name}_np$np.log" 2>&1; then
        tail -20 "${name}_np$np.log"
        echo "FAIL: $name on $np ranks: tealeaf failed"
        fail=1
        continue
      fi
      [ "$np" = 1 ] && continue
      cases=$((cases + 1))
      if ! "$h5diff" "${name}_np1.h5" "${name}_np$np.h5" /fields /fields >"${name}_np$np.diff" 2>&1 ||
        ! "$h5diff" "${name}_np1.h5" "${name}_np$np.h5" /steps /steps >>"${name}_np$np.diff" 2>&1; then
        head -12 "${name}_np$np.diff"
        echo "FAIL: $solver with $pc on $np ranks (loop: 1 rank's device loop) differs from 1 rank"
        fail=1
      fi
    done
  done
done
echo "$cases comparisons with 1 rank"

# fewer blocks of 4 rows than ranks along y: refused, naming the deck's keys
sed -e 's/^x_cells=.*/x_cells=2/' -e 's/^y_cells=.*/y_cells=6/' -e '/^\*endtea/d' "$deck" >few_blocks.in
printf 'tl_use_cg\ntl_preconditioner_type jac_block\n*endtea\n' >>few_blocks.in
env OMP_NUM_THREADS=1 "$mpiexec" -n 3 "$exe" --reproducible --no-h5 few_blocks.in >few_blocks.log 2>&1
rc=$?
if [ $rc -ne 2 ] || ! grep -q 'y_cells=6 makes 2 blocks of 4 rows, fewer than the 3 ranks along y' few_blocks.log; then
  tail -5 few_blocks.log
  echo "FAIL: 2 blocks on 3 ranks along y: exit $rc, expected 2 and the reason"
  fail=1
fi
[ $fail -eq 0 ] && echo "PASS"
exit $fail
