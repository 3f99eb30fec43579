#!/bin/bash
# ratelab sim without files runs its whole default set, found beside the
# binary: 300 scenarios (more than the 256 it once kept, silently dropping
# the rest and exiting 0) give 300 rows.
source "$(dirname "$0")/lib/harness.sh" "$1"

mkdir -p "$tmp/bin/scenarios"
cp "$ratelab" "$tmp/bin/ratelab"
for i in $(seq -w 1 300); do
	printf '[scenario]\nlimit = 1\nwindow = 1s\nduration = 1s\nalgos = gcra\n[traffic a]\ntype = constant\n' \
		>"$tmp/bin/scenarios/s$i.ini"
done
"$tmp/bin/ratelab" sim --no-timing --quiet --out "$tmp/out" >/dev/null 2>"$tmp/err" ||
	fail "exit $? ($(cat "$tmp/err"))"
rows=$(($(wc -l <"$tmp/out/summary.csv") - 1))
[ "$rows" -eq 300 ] || fail "$rows summary rows, want 300"
grep -q '^s300,gcra,' "$tmp/out/summary.csv" || fail "the last scenario (s300) is missing"
finish sim_default_set
