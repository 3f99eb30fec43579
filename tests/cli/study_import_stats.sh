#!/bin/bash
# What the import met, in the study (issue 40 section 5, issue 42): meta.csv
# keeps the lines skipped by reason (skipped_REASON, every reason, and
# skipped_REASON_at_I, the first FILE:LINE of each), requests of cost 0,
# without a user, without a UTC offset and the offset assumed (tz), and
# whether the format was detected; the report's "What was read and
# assumed" says them; a merge of shard studies keeps them. $1 is the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# A JSON-lines log: 1 shape, 1 key, 2 time, 1 cost; one time without an
# offset, one request of cost 0; costs given.
cat >"$tmp/l.jsonl" <<'LOG'
garbage
{"time":"2026-09-13T09:00:00","key":"a","cost":2}
{"time":"2026-09-13T09:00:01Z","key":""}
{"time":"bad","key":"c","cost":1}
{"time":"worse","key":"c","cost":1}
{"time":"2026-09-13T09:00:02Z","key":"b","cost":-1}
{"time":"2026-09-13T09:00:03Z","key":"a","cost":0}
{"time":"2026-09-13T09:00:04Z","key":"b","cost":3}
{"time":"2026-09-13T09:00:05Z","key":"a","cost":1}
LOG
"$ratelab" study --quiet --trace "$tmp/l.jsonl" --cost-field cost --rules 4/1s --out "$tmp/st" >/dev/null 2>"$tmp/err" ||
	fail "study: exit $? ($(cat "$tmp/err"))"
meta() { awk -F, -v n="$2" '$1 == n { print $2 }' "$1/meta.csv"; }
check() { # DIR NAME WANT
	[ "$(meta "$1" "$2")" = "$3" ] || fail "$1 meta.csv $2: '$(meta "$1" "$2")', want '$3'"
}
for d in "$tmp/st"; do
	check $d lines_read 9
	check $d lines_skipped 5
	check $d skipped_shape 1
	check $d skipped_shape_at_1 "$tmp/l.jsonl:1"
	check $d skipped_key 1
	check $d skipped_key_at_1 "$tmp/l.jsonl:3"
	check $d skipped_time 2
	check $d skipped_time_at_1 "$tmp/l.jsonl:4"
	check $d skipped_time_at_2 "$tmp/l.jsonl:5"
	check $d skipped_cost 1
	check $d skipped_cost_at_1 "$tmp/l.jsonl:6"
	check $d skipped_too_long 0
	check $d skipped_nul 0
	check $d requests_cost_zero 1
	check $d requests_anonymous 0
	check $d requests_no_offset 1
	check $d tz +00:00
	check $d format_detected yes
done
[ -z "$(meta "$tmp/st" skipped_time_at_3)" ] || fail "meta.csv: a third place of 2 time skips"

md=$(sed -n '/^## What was read and assumed/,/^## What was studied/p' "$tmp/st/REPORT.md")
for want in "- Lines read: 9; skipped: 5 (each skipped line counted once, for the first reason it fails)." \
	"- Skipped for their time (time): 2 lines, at $tmp/l.jsonl:4, $tmp/l.jsonl:5." \
	"- Skipped for not a line of the format (shape): 1 line, at $tmp/l.jsonl:1." \
	"- Requests of cost 0: 1, admitted with no state change and left out of the trace." \
	"- Format: jsonl, detected from the first lines." \
	"- Time zone: each time's own UTC offset applied; 1 of 3 requests had a time without one, read at +00:00 (UTC, the default; --tz +HH:MM says otherwise). Every time is UTC."; do
	grep -qxF -- "$want" <<<"$md" || fail "REPORT.md lacks: $want
--- got:
$md"
done
# the section comes before the facts, after the answer
awk '/^## The answer/ { a = NR } /^## What was read and assumed/ { r = NR } /^## What was studied/ { s = NR }
	END { exit !(a && a < r && r < s) }' "$tmp/st/REPORT.md" || fail "REPORT.md: sections out of order"

# --tz, given: the offset assumed is the one given; more than 3 of a reason: the first 3 places
{
	for i in 1 2 3 4; do echo "junk $i"; done
	echo '{"time":"2026-09-13T09:00:00","key":"a"}'
	echo '{"time":"2026-09-13T09:00:01","key":"b"}'
} >"$tmp/tz.jsonl"
"$ratelab" study --quiet --trace "$tmp/tz.jsonl" --tz +05:30 --rules 4/1s --out "$tmp/tz" >/dev/null 2>"$tmp/err" ||
	fail "study --tz: exit $? ($(cat "$tmp/err"))"
check "$tmp/tz" tz +05:30
check "$tmp/tz" requests_no_offset 2
check "$tmp/tz" skipped_shape 4
check "$tmp/tz" skipped_shape_at_3 "$tmp/tz.jsonl:3"
[ -z "$(meta "$tmp/tz" skipped_shape_at_4)" ] || fail "meta.csv: a 4th place kept"
grep -qF -- "- Skipped for not a line of the format (shape): 4 lines, the first at $tmp/tz.jsonl:1, $tmp/tz.jsonl:2, $tmp/tz.jsonl:3, ..." \
	"$tmp/tz/REPORT.md" || fail "REPORT.md --tz: $(grep -F 'Skipped for not' "$tmp/tz/REPORT.md")"
grep -qF -- "read at +05:30 (--tz)" "$tmp/tz/REPORT.md" || fail "REPORT.md --tz: $(grep -F 'Time zone' "$tmp/tz/REPORT.md")"

# a merge of shard studies keeps the import's rows as the shards wrote them
for i in 0 1; do
	"$ratelab" study --quiet --trace "$tmp/l.jsonl" --cost-field cost --rules 4/1s --shard $i/2 --out "$tmp/s$i" \
		>/dev/null 2>"$tmp/err" || fail "study shard $i: exit $? ($(cat "$tmp/err"))"
done
"$ratelab" study --merge "$tmp/s0" "$tmp/s1" --out "$tmp/m" >/dev/null 2>"$tmp/err" || fail "merge: $(cat "$tmp/err")"
for n in skipped_shape skipped_time skipped_time_at_2 skipped_cost_at_1 requests_cost_zero requests_no_offset tz \
	format_detected; do
	[ "$(meta "$tmp/m" $n)" = "$(meta "$tmp/st" $n)" ] || fail "merge: $n '$(meta "$tmp/m" $n)', want '$(meta "$tmp/st" $n)'"
done

finish study_import_stats
