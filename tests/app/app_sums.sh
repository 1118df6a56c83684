#!/bin/sh
# --sums exact|ordinary and each app's default (app_cli.h): every app sums exactly by default here
# (TeaLeaf and miniFE would sum ordinarily over several GPUs, which this test has not); every
# run's summary names its sums; miniMD's default thermo table is bitwise --sums exact's, and
# --sums ordinary's differs from it (so the comparison can see a difference); TeaLeaf's and
# miniFE's defaults are their --sums exact and their --reproducible, bit for bit.
#   app_sums.sh MPIEXEC H5DIFF TEALEAF MINIFE MINIMD INPUTS_DIR
set -u
mpiexec=$1 h5diff=$2 tealeaf=$3 minife=$4 minimd=$5 inputs=$6
dir=$(mktemp -d "${TMPDIR:-/tmp}/app_sums.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
bad() {
  echo "FAILED: $*"
  fail=1
}

run() { # NAME APP ARGS...: 2 ranks, results in NAME.h5, summary in NAME.json
  name=$1 app=$2
  shift 2
  if ! "$mpiexec" -n 2 "$app" "$@" --out "$name" --summary-json "$name.json" >"$name.log" 2>&1; then
    tail -15 "$name.log"
    bad "$name exited with an error"
  fi
}
sums_is() { # NAME KIND: the summary names the sums
  grep -q "\"sums\": \"$2\"" "$1.json" || bad "$1: the summary does not say \"sums\": \"$2\": $(grep -o '"sums": [^,]*' "$1.json")"
}
same() { # A B OBJECT...: bitwise equal (h5diff without tolerance)
  a=$1 b=$2
  shift 2
  for o in "$@"; do
    "$h5diff" -q "$a.h5" "$b.h5" "$o" "$o" >/dev/null 2>&1 || bad "$a and $b differ in $o"
  done
}

# miniMD, thermo every step (the sums: temperature, energy, pressure), on the Serial back end: on a
# GPU two runs of one input differ in their bits unless --reproducible (the neighbour lists' order
# comes from atomics), and what is compared here is the sums' option
sed 's/^100\( *thermo\)/1  \1/' "$inputs/minimd/in.lj.miniMD" >in.lj
grep -q '^1  *thermo' in.lj || bad "the LJ deck's thermo line was not found"
run md_default "$minimd" -i in.lj -s 6 -n 30 --porta-backend=serial
run md_exact "$minimd" -i in.lj -s 6 -n 30 --porta-backend=serial --sums exact
run md_ordinary "$minimd" -i in.lj -s 6 -n 30 --porta-backend=serial --sums=ordinary
sums_is md_default exact
sums_is md_exact exact
sums_is md_ordinary ordinary
same md_default md_exact /thermo/T /thermo/U /thermo/P /final/x
differ=0
for o in /thermo/T /thermo/U /thermo/P; do
  "$h5diff" -q md_default.h5 md_ordinary.h5 "$o" "$o" >/dev/null 2>&1
  case $? in 0) ;; 1) differ=1 ;; *) bad "h5diff could not compare $o" ;; esac
done
[ "$differ" = 1 ] || bad "miniMD's ordinary sums gave the exact sums' thermo table, bit for bit"
echo "minimd: default = --sums exact (thermo every step, 2 ranks); --sums ordinary differs"

# TeaLeaf and miniFE on the Serial back end: exact by default (ordinary only with several ranks
# on GPUs, app_common.cli); the default is --sums exact and
# --reproducible, bit for bit; --sums ordinary is said to be ordinary
run tea_default "$tealeaf" --porta-backend=serial --in "$inputs/tealeaf/tea_bm_1.in"
run tea_exact "$tealeaf" --porta-backend=serial --in "$inputs/tealeaf/tea_bm_1.in" --sums exact
run tea_repro "$tealeaf" --porta-backend=serial --in "$inputs/tealeaf/tea_bm_1.in" --reproducible
run tea_ordinary "$tealeaf" --porta-backend=serial --in "$inputs/tealeaf/tea_bm_1.in" --sums ordinary
sums_is tea_default exact
sums_is tea_exact exact
sums_is tea_ordinary ordinary
grep -q '"reproducible": true' tea_default.json || bad "tealeaf's default: not reported reproducible"
grep -q '"reproducible": false' tea_ordinary.json || bad "tealeaf --sums ordinary: reported reproducible"
same tea_default tea_exact /fields/u /fields/energy
same tea_exact tea_repro /fields/u /fields/energy
run fe_default "$minife" --porta-backend=serial --nx 12
run fe_exact "$minife" --porta-backend=serial --nx 12 --sums=exact
run fe_repro "$minife" --porta-backend=serial --nx 12 --reproducible
run fe_ordinary "$minife" --porta-backend=serial --nx 12 --sums=ordinary
sums_is fe_default exact
sums_is fe_exact exact
sums_is fe_ordinary ordinary
same fe_default fe_exact /solution /cg/residual_history
same fe_exact fe_repro /solution /cg/residual_history
echo "tealeaf, minife: exact by default = --sums exact = --reproducible; --sums ordinary named"

[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
