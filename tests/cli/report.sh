#!/bin/bash
# ratelab report: on a copy of the committed results/, REPORT.md is the
# committed results/REPORT.md byte for byte, the chart data and the README's
# tradeoff table are what is committed; report.html is self-contained (no
# http:// or https:// src/href, every chart embedded as a data: URI) and
# passes the page check in headless chromium (tests/cli/lib/page_check.sh:
# its table of contents, sorting, pinned first columns, no console message,
# nothing fetched). Bad input
# gets FILE:LINE and exit 2, writes nothing, and no file it did not write is
# overwritten.
source "$(dirname "$0")/lib/harness.sh" "$1"
root=$(cd "$(dirname "$0")/../.." && pwd)

cp -r "$root/results" "$tmp/results"
cp "$root/README.md" "$tmp/README.md"
"$ratelab" report "$tmp/results" --readme "$tmp/README.md" >"$tmp/out" 2>"$tmp/err" ||
	fail "report: exit $? ($(cat "$tmp/err"))"
[ -s "$tmp/err" ] && fail "report: stderr not empty: $(cat "$tmp/err")"
cmp -s "$tmp/results/REPORT.md" "$root/results/REPORT.md" ||
	fail "REPORT.md differs from the committed one: $(diff "$root/results/REPORT.md" "$tmp/results/REPORT.md" | head -5)"
# vars.gp names the results' folder: the committed one was written as "results"
sed -i "s|\"$tmp/results/|\"results/|" "$tmp/results/plots/data/vars.gp"
for f in "$root"/results/plots/data/*; do
	cmp -s "$f" "$tmp/results/plots/data/${f##*/}" || fail "plots/data/${f##*/} differs from the committed one"
done
cmp -s "$tmp/README.md" "$root/README.md" || fail "the README's tradeoff table differs from the committed one"
# --out: the same report elsewhere, the results' chart data rewritten alike
mkdir "$tmp/elsewhere"
"$ratelab" report "$tmp/results" --out "$tmp/elsewhere" >/dev/null 2>"$tmp/err" || fail "--out: exit $? ($(cat "$tmp/err"))"
cmp -s "$tmp/elsewhere/REPORT.md" "$root/results/REPORT.md" || fail "--out: REPORT.md differs"
[ -e "$tmp/elsewhere/plots" ] && fail "--out: chart data written beside the report, not into RESULTS_DIR/plots/data"

# report.html: self-contained, every chart of REPORT.md embedded
html=$tmp/results/report.html
[ -s "$html" ] || fail "no report.html"
grep -Eiq '(src|href)="?(https?:)?//' "$html" && fail "report.html links outside: $(grep -Eio '(src|href)="?(https?:)?//[^" ]*' "$html" | head -3)"
charts=$(grep -c '^!\[.*\](plots/.*\.png)$' "$tmp/results/REPORT.md")
embedded=$(grep -o '<img alt="[^"]*" src="data:image/png;base64,' "$html" | wc -l)
[ "$charts" -ge 10 ] || fail "REPORT.md has $charts charts"
[ "$embedded" -eq "$charts" ] || fail "report.html embeds $embedded charts, REPORT.md has $charts"
grep -q 'Chart not drawn' "$html" && fail "report.html misses a chart"
grep -q '<h2 id="the-answer">The answer</h2>' "$html" || fail "report.html has no 'The answer' heading"
[ "$(grep -c '<table class="sort">' "$html")" -eq "$(grep -c '^|---' "$tmp/results/REPORT.md")" ] ||
	fail "report.html has $(grep -c '<table class="sort">' "$html") tables, REPORT.md $(grep -c '^|---' "$tmp/results/REPORT.md")"
mkdir "$tmp/page"
bash "$(dirname "$0")/lib/page_check.sh" "$html" "$tmp/page" || fail "report.html: the page check failed"

# Bad input: FILE:LINE and exit 2, nothing written.
bad() { # NAME WANT_STATUS NEEDLE... -- ARGS...: ratelab report ARGS
	local name=$1 want=$2 rc
	shift 2
	local needles=()
	while [ "$1" != "--" ]; do needles+=("$1"); shift; done
	shift
	"$ratelab" report "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq "$want" ] || fail "$name: exit $rc, want $want (stderr: $(cat "$tmp/err"))"
	for n in "${needles[@]}"; do
		grep -qF -- "$n" "$tmp/err" || fail "$name: stderr lacks \"$n\": $(cat "$tmp/err")"
	done
	grep -q '^ratelab report: ' "$tmp/err" || fail "$name: stderr does not start 'ratelab report: ': $(cat "$tmp/err")"
}
fresh() { rm -rf "$tmp/r"; cp -r "$root/results" "$tmp/r"; rm -f "$tmp/r/REPORT.md"; }
fresh
sed -i '3s/^\([^,]*\),/"\1,/' "$tmp/r/sim/summary.csv"
bad unclosed_quote 2 "$tmp/r/sim/summary.csv:3: a quoted field is not closed" -- "$tmp/r"
[ -e "$tmp/r/REPORT.md" ] && fail "unclosed_quote: REPORT.md written"
fresh
sed -i '1s/,seed,/,sead,/' "$tmp/r/sim/summary.csv"
bad no_column 2 "$tmp/r/sim/summary.csv:1: no column 'seed'" -- "$tmp/r"
fresh
sed -i '5s/,[^,]*$//' "$tmp/r/sim/summary.csv" # a row cut short
bad short_row 2 "$tmp/r/sim/summary.csv:5: $(($(head -1 "$tmp/r/sim/summary.csv" | tr -cd , | wc -c))) fields, the header has" -- "$tmp/r"
fresh
printf '{"context": {}, "benchmarks": [\n{"name": x}]}\n' >"$tmp/r/bench/bench.json"
bad bad_json 2 "$tmp/r/bench/bench.json:2: expected a value" -- "$tmp/r"
fresh
rm "$tmp/r/bench/env.txt"
bad missing_input 2 "missing: $tmp/r/bench/env.txt (the machine)" "1 input(s) missing" -- "$tmp/r"
[ -e "$tmp/r/REPORT.md" ] && fail "missing_input: REPORT.md written"
fresh
sed -i '2s/^random,2,/random,2,x,/' "$tmp/r/sim/fleet.csv"
bad fleet_fields 2 "$tmp/r/sim/fleet.csv:2: 24 fields, the header has 23" -- "$tmp/r"
fresh
printf 'no markers here\n' >"$tmp/r/README"
bad readme_markers 2 "$tmp/r/README has no <!-- tradeoff:begin --> ... <!-- tradeoff:end --> markers" -- \
	"$tmp/r" --readme "$tmp/r/README"
[ "$(cat "$tmp/r/README")" = "no markers here" ] || fail "readme_markers: the README was changed"
bad no_dir 2 "$tmp/nope: No such file or directory" -- "$tmp/nope"
bad bad_mode 2 "--mode 'fast' is not full or quick" -- "$tmp/r" --mode fast
bad no_args 2 "RESULTS_DIR is required" --

# A file it did not write is never overwritten: REPORT.md.part left by someone else.
fresh
echo mine >"$tmp/r/REPORT.md.part"
bad part_exists 1 "'$tmp/r/REPORT.md.part': File exists" -- "$tmp/r"
[ "$(cat "$tmp/r/REPORT.md.part")" = mine ] || fail "part_exists: REPORT.md.part overwritten"
# A failed write names the path and the reason, exit 1.
fresh
chmod 555 "$tmp/r"
if ! touch "$tmp/r/probe" 2>/dev/null; then
	bad unwritable 1 "'$tmp/r/REPORT.md.part': Permission denied" -- "$tmp/r"
fi
chmod 755 "$tmp/r"

finish report
