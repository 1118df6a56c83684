#!/bin/sh
# miniFE's YAML report never replaces a file, nor writes through a link: every name the run
# could take in the next 20 seconds (the reference's name is stamped to the second) is taken
# beforehand, one by a link to a victim; after the run each is unchanged and the report is
# under the name with .2 before .yaml, complete.
#   minife_yaml_safety.sh MINIFE
set -u
exe=$1
work=$(mktemp -d "./minife_yaml_safety.XXXXXX") || exit 1
cd "$work" || exit 1
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
echo "victim: must stay as it is" >victim
k=0
while [ $k -lt 20 ]; do
  name="miniFE.2x2x2.P1.$(date -d "+$k sec" +%Y:%m:%d-%H:%M:%S).yaml"
  if [ $k -eq 1 ]; then ln -s victim "$name"; else echo "taken $k" >"$name"; fi
  k=$((k + 1))
done
"$exe" nx=2 --no-h5 >run.log 2>&1
rc=$?
tail -n 2 run.log
[ $rc -eq 0 ] || fail "exit status $rc"
[ "$(cat victim)" = "victim: must stay as it is" ] || fail "the victim of a link changed"
new=$(sed -n 's/^YAML report: //p' run.log)
for f in miniFE.*[0-9].yaml; do
  [ -L "$f" ] || [ "$f" = "$new" ] && continue
  grep -q "^taken [0-9]*$" "$f" || fail "$f was replaced"
done
echo "report: $new"
case $new in *.2.yaml) ;; *) fail "the report is not under a .2 name: '$new'" ;; esac
[ -f "$new" ] && grep -q "Total Program Time" "$new" || fail "the report is incomplete"
cd .. || exit 1
[ $fails -eq 0 ] && rm -rf "$work" && echo PASS && exit 0
echo "$fails failure(s); files in $work"
exit 1
