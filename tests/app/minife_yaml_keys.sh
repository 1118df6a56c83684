#!/bin/sh
# miniFE's YAML report keeps the reference's keys, in the reference's order and nesting (so
# scripts written for the reference keep working; Porta adds keys, and the Platform and Build
# sections describe Porta's own run): every key path of the reference report (outside Platform
# and Build) must appear in ours, in the same order.
#   minife_yaml_keys.sh MPIEXEC MINIFE REF_YAML MINIFE_ARGS...
set -u
mpiexec=$1 exe=$2 ref=$3
shift 3
dir=$(mktemp -d "${TMPDIR:-/tmp}/minife_yaml.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
(cd "$dir" && "$mpiexec" -n 1 "$exe" --no-h5 "$@" >run.log 2>&1) || {
  cat "$dir/run.log"
  echo "FAIL: minife failed"
  exit 1
}
ours=$(ls "$dir"/miniFE.*.yaml | head -1)
# key paths: "Parent/Child/Key", skipping the Platform and Build sections
paths() {
  awk '{
    match($0, /^ */); ind = RLENGTH / 2
    line = substr($0, RLENGTH + 1); k = index(line, ":"); if (k == 0) next
    key = substr(line, 1, k - 1); stack[ind] = key
    p = stack[0]; for (i = 1; i <= ind; ++i) p = p "/" stack[i]
    if (stack[0] == "Platform" || stack[0] == "Build") next
    print p
  }' "$1"
}
paths "$ref" >"$dir/ref.keys"
paths "$ours" >"$dir/our.keys"
# every reference key, in order, as a subsequence of ours
awk 'NR == FNR { want[++n] = $0; next } { if (i < n && $0 == want[i + 1]) ++i }
     END { if (i < n) { print "FAIL: missing or out of order: " want[i + 1]; exit 1 }
           print "PASS: " n " reference keys found in order" }' "$dir/ref.keys" "$dir/our.keys"
