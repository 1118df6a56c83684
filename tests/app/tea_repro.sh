#!/bin/sh
# Reproducible mode: TeaLeaf --reproducible on 1, 2 and 4 ranks x 1 and 2 threads, and once on
# the serial back end, must write bitwise identical results: h5diff (exact, no tolerance) of
# /fields (u, energy, density) and /steps (the per-step table: U, energy, iterations, errors)
# against the 1 rank x 1 thread run finds no difference. Then ordinary sums (--sums ordinary) on
# 1, 2 and 4 ranks for comparison (information only): the relative difference of the final U and the smallest
# relative tolerance at which h5diff finds the final fields equal.
# TEA_REPRO_CUDA=1 adds CUDA runs (1 and 2 ranks) to the bitwise comparison.
# Each run's summary (--summary-json) carries the fields' digest: equal wherever the fields are
# bitwise equal, different wherever h5diff finds a difference.
#   tea_repro.sh MPIEXEC TEALEAF DECK TAG [H5DIFF]
set -u
mpiexec=$1 exe=$2 deck=$3 tag=$4 h5diff=${5:-h5diff}
fail=0

run() { # run NAME NP THREADS BACKEND [args...]
  name=$1 np=$2 t=$3 be=$4
  shift 4
  rm -f "$name.h5" "$name.xmf"
  env OMP_NUM_THREADS="$t" PORTA_NUM_THREADS="$t" ${be:+PORTA_BACKEND=$be} \
    "$mpiexec" -n "$np" "$exe" --out "$name" --summary-json "$name.json" "$@" "$deck" \
    >"$name.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    cat "$name.log"
    echo "FAIL: $name: tealeaf exited with $rc"
    exit 1
  fi
}
final_u() { grep ' step:' "$1.log" | tail -1 | awk '{print $7}'; }
digest() { sed -n 's/.*"fields_digest": *"\([0-9a-f]*\)".*/\1/p' "$1.json"; }
same_digest() { # same_digest NAME REF WANT(1: equal to REF's, 0: different)
  d=$(digest "$1") r=$(digest "$2")
  if [ -z "$d" ] || [ ${#d} -ne 16 ]; then
    echo "FAIL: $1: no fields digest in $1.json"
    fail=1
  elif [ "$3" = 1 ] && [ "$d" != "$r" ]; then
    echo "FAIL: $1: digest $d, the reference's $r, with bitwise equal fields"
    fail=1
  elif [ "$3" = 0 ] && [ "$d" = "$r" ]; then
    echo "FAIL: $1: digest $d equals the reference's with fields that differ"
    fail=1
  fi
}

ref=${tag}_rep_np1_t1
run "$ref" 1 1 "" --reproducible
echo "reproducible np=1 threads=1: U = $(final_u "$ref")"
cfgs="2:1: 4:1: 1:2: 2:2: 4:2: 2:1:serial"
# TEA_REPRO_CUDA=1 (a CUDA build on a GPU machine): the CUDA back end too, on 1 and 2 ranks
[ "${TEA_REPRO_CUDA:-0}" = 1 ] && cfgs="$cfgs 1:1:cuda 2:1:cuda"
for cfg in $cfgs; do
  np=${cfg%%:*} rest=${cfg#*:}
  t=${rest%%:*} be=${rest#*:}
  name=${tag}_rep_np${np}_t${t}${be:+_$be}
  run "$name" "$np" "$t" "$be" --reproducible
  if "$h5diff" "$ref.h5" "$name.h5" /fields /fields >"$name.diff" 2>&1 &&
    "$h5diff" "$ref.h5" "$name.h5" /steps /steps >>"$name.diff" 2>&1; then
    echo "reproducible np=$np threads=$t ${be:-default back end}: U = $(final_u "$name"), bitwise equal, digest $(digest "$name")"
    same_digest "$name" "$ref" 1
  else
    cat "$name.diff"
    echo "FAIL: reproducible np=$np threads=$t ${be:-default back end}: U = $(final_u "$name") differs from np=1"
    fail=1
  fi
done

# ordinary sums, for the record
run "${tag}_def_np1" 1 1 "" --sums ordinary
u1=$(final_u "${tag}_def_np1")
echo "ordinary sums np=1: U = $u1"
for np in 2 4; do
  name=${tag}_def_np$np
  run "$name" "$np" 1 "" --sums ordinary
  u=$(final_u "$name")
  tol=equal
  if "$h5diff" "${tag}_def_np1.h5" "$name.h5" /fields /fields >/dev/null 2>&1; then
    same_digest "$name" "${tag}_def_np1" 1
  else
    same_digest "$name" "${tag}_def_np1" 0
    tol="differ beyond 1e-10"
    for p in 1e-16 1e-15 1e-14 1e-13 1e-12 1e-11 1e-10; do
      if "$h5diff" -p "$p" "${tag}_def_np1.h5" "$name.h5" /fields /fields >/dev/null 2>&1; then
        tol="equal within relative $p"
        break
      fi
    done
  fi
  awk -v g="$u" -v w="$u1" -v np="$np" -v tol="$tol" 'BEGIN {
    d = (g - w) / w; if (d < 0) d = -d;
    printf "ordinary sums np=%s: U = %s, relative difference from np=1 %.3g; fields %s\n", np, g, d, tol }'
done

[ $fail -eq 0 ] && echo "PASS"
exit $fail
