#!/bin/bash
# ratelab compare: a run compared with itself gives only ~; a copy with
# benchmarks planted slower and faster flags exactly those (and
# --fail-on-slower exits 1); benchmarks of one run only are listed apart;
# --out writes exactly compare.csv, .md and .html (the page checked in
# headless chromium as the reports' are: tests/cli/lib/page_check.sh, and
# the geomean row its table's footer, still last after every header
# clicked), replaces its own and refuses anyone else's; bad input (not Google Benchmark's JSON, one
# repetition, no benchmark in common, a folder without bench.json) and bad
# options get one clear message and exit 2. $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

header='benchmark,old_median_ns,new_median_ns,change_pct,p_value,verdict'

# gb FILE NAME:T1,T2,... ...: a Google Benchmark JSON file, each NAME's
# repetitions with real_time Ti ns, and a mean aggregate (to be skipped).
gb() {
	local f=$1 sep="" spec name times t i
	shift
	{
		printf '{\n "context": {"date": "2026-12-05T00:00:00+00:00", "num_cpus": 2},\n "benchmarks": ['
		for spec in "$@"; do
			name=${spec%%:*}
			IFS=, read -ra times <<<"${spec#*:}"
			i=0
			for t in "${times[@]}"; do
				printf '%s\n  {"name": "%s", "run_name": "%s", "run_type": "iteration", "repetitions": %d, ' \
					"$sep" "$name" "$name" ${#times[@]}
				printf '"repetition_index": %d, "threads": 1, "iterations": 100, "real_time": %s, ' "$i" "$t"
				printf '"cpu_time": %s, "time_unit": "ns", "items_per_second": NaN}' "$t"
				sep=, i=$((i + 1))
			done
			printf ',\n  {"name": "%s_mean", "run_name": "%s", "run_type": "aggregate", "aggregate_name": "mean", ' \
				"$name" "$name"
			printf '"real_time": 1e9, "cpu_time": 1e9, "time_unit": "ns"}'
		done
		printf '\n ]\n}\n'
	} >"$f"
}

# column CSV BENCHMARK N: field N of BENCHMARK's row
column() { awk -F, -v b="$2" -v n="$3" '$1 == b { print $n }' "$1"; }

# -- a run compared with itself: only ~ (the committed full run, given as its results folder)
out=$("$ratelab" compare ../../results ../../results/bench/bench.json --out "$tmp/self" 2>"$tmp/err") ||
	fail "self: exit $? ($(cat "$tmp/err"))"
[ -s "$tmp/err" ] && fail "self: stderr: $(cat "$tmp/err")"
[ "$(head -1 "$tmp/self/compare.csv")" = "$header" ] || fail "self: CSV header $(head -1 "$tmp/self/compare.csv")"
n=$(grep -o '"run_name": "[^"]*"' ../../results/bench/bench.json | sort -u | wc -l)
[ "$(($(wc -l <"$tmp/self/compare.csv") - 1))" -eq "$n" ] || fail "self: $(wc -l <"$tmp/self/compare.csv") lines for $n benchmarks"
verdicts=$(tail -n +2 "$tmp/self/compare.csv" | awk -F, '{ print $NF }' | sort -u)
[ "$verdicts" = "~" ] || fail "self: verdicts $verdicts"
awk -F, 'NR > 1 && ($4 != "0.00" || $5 != 1 || $2 != $3) { bad = 1 } END { exit bad }' "$tmp/self/compare.csv" ||
	fail "self: a change, a p-value below 1 or differing medians: $(head -3 "$tmp/self/compare.csv")"
grep -q "^$n benchmarks in both: 0 slower, 0 faster, $n ~ (p <= 0.05 and a change of at least 2%); geomean: the geometric mean of the medians$" <<<"$out" || fail "self: summary: $(tail -1 <<<"$out")"
grep -q '^geomean .* +0.00%$' <<<"$out" || fail "self: geometric mean row: $out"
[ "$(ls -A "$tmp/self" | tr '\n' ' ')" = "compare.csv compare.html compare.md " ] || fail "self: files $(ls -A "$tmp/self")"

# -- planted: b is 30% slower, d 30% faster; c moves 1% (significant, below the 2% threshold)
gb "$tmp/old.json" a:10,10.1,10.2,9.9,10.05 b:20,20.2,19.9,20.1,20.05 c:100,100.5,99.5,100.2,99.8 \
	d:5,5.05,4.95,5.02,4.98 e:1000,1003,997,1001,999 gone:1,2,3,4,5
gb "$tmp/new.json" a:10.05,9.95,10.15,10.0,10.1 b:26,26.2,25.9,26.1,26.05 c:101,101.5,100.5,101.2,100.8 \
	d:3.5,3.55,3.45,3.52,3.48 e:1001,998,1002,1000,999.5 fresh:1,2
out=$("$ratelab" compare "$tmp/old.json" "$tmp/new.json" --out "$tmp/p" 2>"$tmp/err"); rc=$?
[ $rc -eq 0 ] || fail "planted: exit $rc ($(cat "$tmp/err"))"
got=$(tail -n +2 "$tmp/p/compare.csv" | awk -F, '{ printf "%s=%s ", $1, $6 }')
[ "$got" = "a=~ b=slower c=~ d=faster e=~ " ] || fail "planted: verdicts $got"
[ "$(column "$tmp/p/compare.csv" b 2)" = 20.050 ] || fail "planted: b's old median $(column "$tmp/p/compare.csv" b 2)"
[ "$(column "$tmp/p/compare.csv" b 3)" = 26.050 ] || fail "planted: b's new median $(column "$tmp/p/compare.csv" b 3)"
[ "$(column "$tmp/p/compare.csv" b 4)" = 29.93 ] || fail "planted: b's change $(column "$tmp/p/compare.csv" b 4)"
# five against five, fully separated: the smallest two-sided p, 2/252
[ "$(column "$tmp/p/compare.csv" b 5)" = 0.00793651 ] || fail "planted: b's p-value $(column "$tmp/p/compare.csv" b 5)"
[ "$(column "$tmp/p/compare.csv" c 6)" = "~" ] || fail "planted: c (1%) flagged"
grep -qx 'only in old: gone' <<<"$out" || fail "planted: 'gone' not listed: $out"
grep -qx 'only in new: fresh' <<<"$out" || fail "planted: 'fresh' not listed: $out"
grep -q '^5 benchmarks in both: 1 slower, 1 faster, 3 ~' <<<"$out" || fail "planted: summary $(tail -1 <<<"$out")"
grep -q 'Only in the old run (1): `gone`' "$tmp/p/compare.md" || fail "planted: md lacks the old-only list"
grep -q '^| \*\*geomean\*\* (geometric mean) |' "$tmp/p/compare.md" || fail "planted: md lacks the geometric mean"
grep -q '<tr><td><code>b</code></td>.*<td>slower</td></tr>' "$tmp/p/compare.html" || fail "planted: html lacks b slower"
# the page is the reports' one page layer (sim/report/report_html.h): sorting, pinned column, policy
head -2 "$tmp/p/compare.html" | cmp -s - <(printf '<!DOCTYPE html>\n<!-- ratelab compare -->\n') ||
	fail "planted: compare.html does not begin with its mark"
# the geomean row is the table's footer (a summary row, report_html.h), so no sort moves it
grep -q '^</tbody>$' "$tmp/p/compare.html" && grep -q '^<tfoot>$' "$tmp/p/compare.html" &&
	[ "$(sed -n '/^<tfoot>$/,/^<\/tfoot>/p' "$tmp/p/compare.html" | grep -c '<tr>')" = 1 ] &&
	sed -n '/^<tfoot>$/,/^<\/tfoot>/p' "$tmp/p/compare.html" | grep -q '^<tr><td><strong>geomean</strong> (geometric mean)</td>' ||
	fail "planted: the geomean row is not the table's one footer row: $(grep -A2 '^<tfoot>' "$tmp/p/compare.html")"
mkdir -p "$tmp/page"
page=$(bash "$(dirname "$0")/lib/page_check.sh" "$tmp/p/compare.html" "$tmp/page") || fail "compare.html: the page check failed: $page"
# every header clicked twice: the geomean row was still last, as drawn, after each click
case $page in *" reordered=0 "*) fail "compare.html: no click reordered the table: $page" ;; esac
case $page in *" footers=1 bad=0") ;; *) fail "compare.html: the geomean row is not a footer the page check followed: $page" ;; esac
# a name a code span cannot hold in a table ('|', '`'): escaped text in compare.md, the name on the page
gb "$tmp/odd.json" 'x|y`z:1,2'
"$ratelab" compare "$tmp/odd.json" "$tmp/odd.json" --out "$tmp/odd" >/dev/null || fail "odd name: exit $?"
grep -qF '| x\|y\`z | 1.500 |' "$tmp/odd/compare.md" || fail "odd name: md row $(grep '^| x' "$tmp/odd/compare.md")"
grep -qF '<tr><td>x|y`z</td>' "$tmp/odd/compare.html" || fail "odd name: html row"
grep -q '^| `d` | 5.000 | 3.500 | -30.00% | 0.0079 | faster |$' "$tmp/p/compare.md" || fail "planted: md row of d"
# --threshold 0.5%: c's 1% now counts; --alpha 0.005: nothing does (2/252 > 0.005)
"$ratelab" compare "$tmp/old.json" "$tmp/new.json" --threshold 0.5% --out "$tmp/t" >/dev/null || fail "threshold: exit $?"
[ "$(column "$tmp/t/compare.csv" c 6)" = slower ] || fail "--threshold 0.5%: c is $(column "$tmp/t/compare.csv" c 6)"
"$ratelab" compare "$tmp/old.json" "$tmp/new.json" --alpha=0.005 --out "$tmp/t" >/dev/null || fail "alpha: exit $?"
[ "$(tail -n +2 "$tmp/t/compare.csv" | cut -d, -f6 | sort -u)" = "~" ] || fail "--alpha 0.005 flagged something"

# --fail-on-slower: exit 1 with the table printed and the files written; 0 when none is slower
rm -rf "$tmp/p"
out=$("$ratelab" compare "$tmp/old.json" "$tmp/new.json" --fail-on-slower --out "$tmp/p" 2>"$tmp/err"); rc=$?
[ $rc -eq 1 ] || fail "--fail-on-slower: exit $rc"
[ "$(cat "$tmp/err")" = "ratelab compare: 1 benchmark is slower (--fail-on-slower)" ] || fail "--fail-on-slower: $(cat "$tmp/err")"
grep -q '^b .* slower$' <<<"$out" || fail "--fail-on-slower: no table"
[ -s "$tmp/p/compare.csv" ] || fail "--fail-on-slower: no compare.csv"
"$ratelab" compare "$tmp/new.json" "$tmp/old.json" --fail-on-slower=no >/dev/null || fail "--fail-on-slower=no: exit $?"
"$ratelab" compare "$tmp/old.json" "$tmp/old.json" --fail-on-slower >/dev/null || fail "self --fail-on-slower: exit $?"

# --out: only its three files; its own replaced; anyone else's refused, untouched
mkdir -p "$tmp/o"
echo keep >"$tmp/o/notes.txt"
"$ratelab" compare "$tmp/old.json" "$tmp/new.json" --out "$tmp/o" >/dev/null || fail "out: exit $?"
"$ratelab" compare "$tmp/old.json" "$tmp/old.json" --out "$tmp/o" >/dev/null || fail "out again: exit $?"
[ "$(column "$tmp/o/compare.csv" b 6)" = "~" ] || fail "out again: compare.csv not replaced"
[ "$(cat "$tmp/o/notes.txt")" = keep ] || fail "out: notes.txt touched"
[ "$(ls -A "$tmp/o" | tr '\n' ' ')" = "compare.csv compare.html compare.md notes.txt " ] || fail "out: files $(ls -A "$tmp/o")"
for f in compare.csv compare.md compare.html; do
	mkdir -p "$tmp/f_$f"
	echo mine >"$tmp/f_$f/$f"
	run_bad "foreign_$f" "" "" compare "$tmp/old.json" "$tmp/new.json" --out "$tmp/f_$f" -- \
		"--out: '$tmp/f_$f/$f' exists and was not written by ratelab compare: refusing to replace it"
	[ "$(cat "$tmp/f_$f/$f")" = mine ] || fail "foreign $f replaced"
	[ "$(ls -A "$tmp/f_$f")" = "$f" ] || fail "foreign $f: other files written: $(ls -A "$tmp/f_$f")"
done
echo x >"$tmp/plain"
run_bad out_file "" "" compare "$tmp/old.json" "$tmp/new.json" --out "$tmp/plain" -- "--out '$tmp/plain' is not a directory"

# -- bad input
printf '{"lines": 3767540, "runs": [{"cpu_s": 0.5}]}\n' >"$tmp/import.json"
run_bad not_gbench "" "" compare "$tmp/import.json" "$tmp/new.json" -- \
	"'$tmp/import.json' is not Google Benchmark's JSON: no \"benchmarks\" array"
printf 'name,value\nx,1\n' >"$tmp/x.csv"
run_bad not_json "" "" compare "$tmp/old.json" "$tmp/x.csv" -- "ratelab compare: $tmp/x.csv:1: "
printf '{"benchmarks": [\n{"run_name": "a", "run_type": "iteration", "real_time": 1, "time_unit": "ns"},\n]}\n' >"$tmp/comma.json"
run_bad trailing_comma "" "" compare "$tmp/comma.json" "$tmp/old.json" -- "ratelab compare: $tmp/comma.json:3: a trailing ','"
gb "$tmp/one.json" a:10 b:20
run_bad one_repetition "" "" compare "$tmp/old.json" "$tmp/one.json" -- \
	"benchmark 'a' has 1 repetition in NEW '$tmp/one.json': the U test needs at least 2 in each run"
gb "$tmp/other.json" x:1,2,3 y:4,5,6
run_bad nothing_in_common "" "" compare "$tmp/old.json" "$tmp/other.json" -- \
	"no benchmark is in both OLD '$tmp/old.json' (6 benchmarks) and NEW '$tmp/other.json' (2)"
run_bad missing_file "" "" compare "$tmp/old.json" "$tmp/nope.json" -- "cannot open '$tmp/nope.json': No such file"
mkdir -p "$tmp/empty"
run_bad folder_without "" "" compare "$tmp/empty" "$tmp/old.json" -- \
	"OLD '$tmp/empty' is a folder without bench.json (looked for $tmp/empty/bench.json and $tmp/empty/bench/bench.json)"
printf '{"benchmarks": [{"run_name": "a\\u001b[2J", "run_type": "iteration", "real_time": 1, "time_unit": "h"}]}' >"$tmp/esc.json"
run_bad escaped_name "" "" compare "$tmp/esc.json" "$tmp/old.json" -- "benchmark 'a\\x1b[2J' (entry 1): time_unit 'h' is not ns, us, ms or s"
grep -q $'\x1b' "$tmp/err" && fail "an escape byte reached stderr"

# a results folder's broken bench.json: compare (given the folder) and report
# read it through one JSON reader and word it alike, "FILE:LINE: why" (json.h)
root=$(cd "$(dirname "$0")/../.." && pwd)
cp -r "$root/results" "$tmp/r"
rm -f "$tmp/r/REPORT.md"
for broken in $'{"context": {}, "benchmarks": [\n{"name": x}]}\n' $'{"benchmarks": [\n{"run_name": "a"},\n]}\n' $'\n\n\n{'; do
	printf '%s' "$broken" >"$tmp/r/bench/bench.json"
	"$ratelab" compare "$tmp/r" "$tmp/r" >/dev/null 2>"$tmp/cmp_err"; rc_c=$?
	"$ratelab" report "$tmp/r" >/dev/null 2>"$tmp/rep_err"; rc_r=$?
	[ $rc_c = 2 ] && [ $rc_r = 2 ] || fail "broken bench.json: exit $rc_c (compare), $rc_r (report), want 2"
	c=$(sed 's/^ratelab compare: //' "$tmp/cmp_err") r=$(sed 's/^ratelab report: //' "$tmp/rep_err")
	case $c in "$tmp/r/bench/bench.json:"[1-9]*": "?*) ;; *) fail "broken bench.json: compare says '$c', not FILE:LINE: why" ;; esac
	[ "$c" = "$r" ] || fail "broken bench.json: compare says '$c', report '$r'"
	[ -e "$tmp/r/REPORT.md" ] && fail "broken bench.json: report wrote REPORT.md"
done

# a name's control bytes escaped in the table
printf '{"benchmarks": [{"run_name": "a\\u001bb", "run_type": "iteration", "real_time": 1, "time_unit": "ns"},
{"run_name": "a\\u001bb", "run_type": "iteration", "real_time": 2, "time_unit": "ns"}]}' >"$tmp/ctrl.json"
out=$("$ratelab" compare "$tmp/ctrl.json" "$tmp/ctrl.json") || fail "control bytes: exit $?"
grep -q '^a\\x1bb  *1.50 ns  *1.50 ns  *+0.00%  *1.0000  ~$' <<<"$out" || fail "control bytes: $out"
grep -q $'\x1b' <<<"$out" && fail "control bytes: an escape byte printed"

# -- bad usage
run_bad no_new "" "" compare "$tmp/old.json" -- "give the OLD and the NEW run"
run_bad three "" "" compare "$tmp/old.json" "$tmp/new.json" "$tmp/new.json" -- "unexpected argument '$tmp/new.json'"
run_bad alpha_word "" "" compare "$tmp/old.json" "$tmp/new.json" --alpha x -- "--alpha 'x' is not a decimal"
run_bad alpha_one "" "" compare "$tmp/old.json" "$tmp/new.json" --alpha 1 -- "--alpha '1' is out of range (0, 1)"
run_bad alpha_zero "" "" compare "$tmp/old.json" "$tmp/new.json" --alpha 0.0 -- "--alpha '0.0' is out of range (0, 1)"
run_bad threshold_word "" "" compare "$tmp/old.json" "$tmp/new.json" --threshold 2x -- "--threshold '2x' is not a percentage"
run_bad threshold_big "" "" compare "$tmp/old.json" "$tmp/new.json" --threshold 1001% -- \
	"--threshold '1001%' is out of range [0%, 1000%]"
run_bad twice "" "" compare "$tmp/old.json" "$tmp/new.json" --alpha 0.1 --alpha 0.2 -- "option --alpha given twice"
# --out's parents are made (out_dir.h's sim_mkdir_p, the one mkdir -p)
"$ratelab" compare "$tmp/old.json" "$tmp/new.json" --out "$tmp/made/a/b" >/dev/null 2>"$tmp/err" ||
	fail "--out with missing parents: exit $? ($(cat "$tmp/err"))"
[ -f "$tmp/made/a/b/compare.csv" ] || fail "--out with missing parents: no compare.csv"
"$ratelab" compare --help | grep -q -- '--fail-on-slower' || fail "--help lacks --fail-on-slower"
"$ratelab" --help | grep -q '^  compare ' || fail "ratelab --help lacks compare"

finish compare
