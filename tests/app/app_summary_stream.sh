#!/bin/sh
# --summary-json into a stream (issue 68, point 5): the summary had been written to a temporary
# renamed over the name given, so a link there was replaced by a JSON file and its target never
# written (as root, --summary-json /dev/stdout replaced the system's /dev/stdout link). Now:
#   - "-" is standard output (no file named "-" is made);
#   - a link to /dev/stdout, to /proc/self/fd/1 or to /dev/stderr is written through, into the
#     descriptor, wherever it leads (here a log file), and stays a link;
#   - a link to a descriptor the run does not have open is refused at start (exit status 2);
#   - a link to a plain file is still replaced, never followed, as the results' links are.
# The links are this test's own, in a directory of its own: no system file is touched (a
# regression would replace the link made here, not /dev/stdout). The runs whose standard output
# is a file are started without the launcher (a singleton), so the descriptor leads to a
# plain file, the case that was broken; the launcher's own pipe is tried with "-".
#   app_summary_stream.sh MPIEXEC APP APP_ARGS...
set -u
mpiexec=$1 exe=$2
shift 2
app=$(basename "$exe")
top=$(mktemp -d "${TMPDIR:-/tmp}/app_summary_stream.XXXXXX") || exit 1
trap 'rm -rf "$top"' EXIT
cd "$top" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# has_json LOG: LOG holds the summary's JSON object (its first and last keys and the closing
# brace on a line of its own)
has_json() {
  grep -q "^  \"app\": \"$app\",\$" "$1" && grep -q '^  "fields_digest": ' "$1" && grep -q '^}$' "$1"
}

ln -s /dev/stdout to_stdout && ln -s /proc/self/fd/1 to_fd1 && ln -s /dev/stderr to_stderr &&
  ln -s /proc/self/fd/999 to_closed && echo old >plain && ln -s plain to_plain || exit 1

for link in to_stdout to_fd1; do
  echo "--- --summary-json $link (-> $(readlink $link)), standard output a file"
  "$exe" "$@" --no-h5 --summary-json "$link" >"$link.out" 2>"$link.err"
  rc=$?
  [ $rc -eq 0 ] || { cat "$link.out" "$link.err"; bad "exit status $rc"; }
  [ -L "$link" ] || bad "the link $link was replaced"
  has_json "$link.out" || { cat "$link.out"; bad "the summary is not in standard output's file"; }
done
[ -L /dev/stdout ] || bad "/dev/stdout is no longer a link"

echo "--- --summary-json to_stderr (-> /dev/stderr)"
"$exe" "$@" --no-h5 --summary-json to_stderr >se.out 2>se.err
rc=$?
[ $rc -eq 0 ] || { cat se.out se.err; bad "exit status $rc"; }
[ -L to_stderr ] || bad "the link to_stderr was replaced"
has_json se.err || { cat se.err; bad "the summary is not in standard error's file"; }
has_json se.out && bad "the summary went to standard output"

echo "--- --summary-json - (standard output), through the launcher"
"$mpiexec" -n 1 "$exe" "$@" --no-h5 --summary-json - >dash.out 2>&1
rc=$?
[ $rc -eq 0 ] || { cat dash.out; bad "exit status $rc"; }
has_json dash.out || { cat dash.out; bad "the summary is not in standard output"; }
[ -e ./- ] && bad "a file named '-' was written"

echo "--- --summary-json - (standard output), standard output a file"
"$exe" "$@" --no-h5 --summary-json - >dash1.out 2>dash1.err
rc=$?
[ $rc -eq 0 ] || { cat dash1.out dash1.err; bad "exit status $rc"; }
has_json dash1.out || { cat dash1.out; bad "the summary is not in standard output's file"; }
[ -e ./- ] && bad "a file named '-' was written"

echo "--- --summary-json to_closed (-> /proc/self/fd/999, not open): refused at start"
"$exe" "$@" --no-h5 --summary-json to_closed >closed.out 2>&1
rc=$?
grep -q -- "--summary-json('to_closed'): cannot write it: Bad file descriptor" closed.out &&
  [ $rc -eq 2 ] || { cat closed.out; bad "exit status $rc, or the reason is not said"; }
[ -L to_closed ] || bad "the link to_closed was replaced"
ls | grep -q '\.tmp\.' && { ls; bad "a temporary was left"; }

echo "--- --summary-json to_plain (-> a plain file): the link is replaced, its target kept"
"$mpiexec" -n 1 "$exe" "$@" --no-h5 --summary-json to_plain >plain.log 2>&1
rc=$?
[ $rc -eq 0 ] || { cat plain.log; bad "exit status $rc"; }
[ ! -L to_plain ] && has_json to_plain || bad "the link to a file was not replaced by the summary"
[ "$(cat plain)" = old ] || bad "the link's target was written"

[ $fail -eq 0 ] && echo "PASS: streams written into, links kept, plain links replaced"
exit $fail
