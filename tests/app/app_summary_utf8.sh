#!/bin/sh
# --summary-json from a run whose deck and summary lie in a directory whose name is not UTF-8
# (byte 0xff): the JSON file must load in a strict reader (Python's json, UTF-8), the byte shown
# as U+FFFD in the input's path (the path had been copied into the file as it is).
#   app_summary_utf8.sh MPIEXEC APP DECK APP_ARGS...
set -u
mpiexec=$1 exe=$2 deck=$3
shift 3
py=/usr/bin/python3
[ -x "$py" ] || { echo "SKIP: no /usr/bin/python3 to read the JSON file"; exit 77; }
top=$(mktemp -d "${TMPDIR:-/tmp}/app_utf8.XXXXXX") || exit 1
trap 'rm -rf "$top"' EXIT
dir="$top/$(printf 'run\377dir')"
mkdir "$dir" && cp "$deck" "$dir/deck.in" || exit 1
cd "$dir" || exit 1
"$mpiexec" -n 1 "$exe" -i "$dir/deck.in" --no-h5 --summary-json "$dir/s.json" "$@" >out.log 2>&1
rc=$?
[ $rc -eq 0 ] || { cat out.log; echo "FAIL: exit status $rc"; exit 1; }
"$py" - "$dir/s.json" <<'PY'
import json, sys
with open(sys.argv[1], encoding="utf-8", errors="strict") as f:
    s = json.load(f)
ok = "\ufffd" in s["input"] and s["input"].endswith("dir/deck.in")
print("input:", ascii(s["input"]))
print("PASS: the summary is UTF-8 JSON" if ok else "FAIL: the input's path is not as expected")
sys.exit(0 if ok else 1)
PY
