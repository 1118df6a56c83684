#!/bin/sh
# TeaLeaf without a deck on its command line, in a scratch directory of its own:
#   tea_default_deck.sh TEALEAF
# - no tea.in: the built-in default deck runs (as the reference does), exit 0;
# - tea.in a directory: an error naming it, exit 1, the default deck does not run;
# - --porta-help (like --help): the usage with Porta's options, exit 0, nothing runs.
set -u
exe=$1
work=$(mktemp -d "./tea_default_deck.XXXXXX") || exit 1
cd "$work" || exit 1
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
echo "--- no tea.in"
"$exe" --no-h5 >none.log 2>&1
rc=$?
tail -n 3 none.log
[ $rc -eq 0 ] || fail "exit status $rc"
grep -q "tea.in not found: running the built-in default deck" none.log || fail "no default deck"
echo "--- tea.in a directory"
mkdir tea.in
"$exe" --no-h5 >dir.log 2>&1
rc=$?
cat dir.log
[ $rc -eq 2 ] || fail "exit status $rc"
grep -q "tea.in: cannot read the input deck (it is a directory)" dir.log || fail "no reason given"
grep -q "built-in" dir.log && fail "the default deck ran instead"
rmdir tea.in
echo "--- --porta-help"
"$exe" --porta-help >help.log 2>&1
rc=$?
head -n 3 help.log
[ $rc -eq 0 ] || fail "exit status $rc"
grep -q "^Usage" help.log || fail "no usage text"
grep -q -- "--porta-backend" help.log || fail "no Porta options"
grep -q "built-in\|Starting" help.log && fail "a run started"
[ -e tealeaf.h5 ] && fail "tealeaf.h5 written"
cd .. || exit 1
[ $fails -eq 0 ] && rm -rf "$work" && echo PASS && exit 0
echo "$fails failure(s); files in $work"
exit 1
