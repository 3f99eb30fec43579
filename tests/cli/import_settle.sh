#!/bin/bash
# ratelab import --cost-field F --actual-field G --duration-field D
# [--duration-unit U]: logs carrying the estimate, the real cost and the
# response time give settle lines 'T KEY COST ACTUAL DONE_T', DONE_T = T +
# the response time (seconds with a fraction by default, as nginx's
# $request_time), sorted by T with their settles; a trace's settle lines
# read back as they are; bad values (negative, missing, not a number) are
# bad lines with FILE:LINE and their reason; the options' misuse exits 2
# with one message. Fixtures: import/llm.jsonl, import/llm.csv. $1 is the
# binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# import_ok NAME WANT ARGS...: exit 0, stdout without its "# ratelab trace:" line == WANT
import_ok() {
	local name=$1 want=$2 out rc
	shift 2
	out=$("$ratelab" import "$@" 2>"$tmp/err"); rc=$?
	[ $rc -eq 0 ] || fail "$name: exit $rc: $(cat "$tmp/err")"
	out=$(printf '%s\n' "$out" | grep -v '^# ratelab trace:')
	[ "$out" = "$want" ] || fail "$name: ratelab import $*
--- got:
$out
--- want:
$want"
}

s=1772359200000000000 # 2026-03-01T10:00:00Z in ns
import_ok jsonl_seconds "$s team-a 4096 812 $((s + 1250000000))
$((s + 250000000)) team-a 2000 0 $((s + 250000001))
$((s + 500000000)) team-b 1024 1024 $((s + 1000000000))
$((s + 1000000000)) team-c 512 77 $((s + 13000000000))" \
	import/llm.jsonl --cost-field max_tokens --actual-field usage.total_tokens --duration-field request_time

import_ok csv_ms "$s team-a 4096 812 $((s + 1250000000))
$((s + 250000000)) team-a 2000 0 $((s + 250000000))
$((s + 500000000)) team-b 1024 1024 $((s + 1000500000))" \
	import/llm.csv --time-field ts --time-unit ms --cost-field max_tokens --actual-field tokens \
	--duration-field ms --duration-unit ms

# relative: DONE_T moves with T
import_ok relative "0 team-a 4096 812 1250000000
250000000 team-a 2000 0 250000000
500000000 team-b 1024 1024 1000500000" \
	import/llm.csv --time-field ts --time-unit ms --cost-field max_tokens --actual-field tokens \
	--duration-field ms --duration-unit ms --relative

# a trace's settle lines read back as they are, a plain line among them settling nothing
printf '# a trace\n5 k 3 9 20\n1 j 2\n7 k 1 0 7\n' >"$tmp/s.trace"
import_ok trace_back "1 j 2 2 1
5 k 3 9 20
7 k 1 0 7" "$tmp/s.trace"

# bad values: skipped with their place and reason; --strict stops at the first
{
	echo '{"time":"2026-03-01T10:00:00Z","key":"a","c":5,"a":-2,"d":1}'
	echo '{"time":"2026-03-01T10:00:00Z","key":"a","c":5,"a":2,"d":-0.5}'
	echo '{"time":"2026-03-01T10:00:00Z","key":"a","c":5,"d":1}'
	echo '{"time":"2026-03-01T10:00:00Z","key":"a","c":5,"a":2}'
	echo '{"time":"2026-03-01T10:00:00Z","key":"a","c":5,"a":2,"d":"1e3"}'
	echo '{"time":"2026-03-01T10:00:00Z","key":"a","c":5,"a":2,"d":"0.5"}'
} >"$tmp/bad.jsonl"
"$ratelab" import --cost-field c --actual-field a --duration-field d "$tmp/bad.jsonl" >"$tmp/out" 2>"$tmp/err" ||
	fail "bad values: exit $?"
for want in "bad.jsonl:1: .*actual cost '-2' is negative" "bad.jsonl:2: .*response time '-0.5' is negative" \
	"bad.jsonl:3: .*no actual cost field 'a' (--actual-field)" "bad.jsonl:4: .*no response time field 'd' (--duration-field)" \
	"bad.jsonl:5: .*response time '1e3' is not a number of s" "skipped 5 of 6 lines"; do
	grep -q "$want" "$tmp/err" || fail "bad values: no '$want' in: $(cat "$tmp/err")"
done
[ "$(grep -vc '^#' "$tmp/out")" = 1 ] || fail "bad values: $(cat "$tmp/out")"
"$ratelab" import --strict --cost-field c --actual-field a --duration-field d "$tmp/bad.jsonl" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "bad.jsonl:1: .*actual cost '-2' is negative" "$tmp/err" ||
	fail "strict: exit $rc: $(cat "$tmp/err")"

# the options' misuse
bad_opts() {
	local name=$1 needle=$2 rc
	shift 2
	"$ratelab" import "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^ratelab import: .*$needle" "$tmp/err" ||
		fail "$name: exit $rc: $(cat "$tmp/err")"
}
bad_opts actual_without_cost "--actual-field needs --cost-field F" import/llm.jsonl --actual-field a --duration-field d
bad_opts actual_without_duration "--actual-field needs --duration-field D" import/llm.jsonl --cost-field c --actual-field a
bad_opts duration_without_actual "--duration-field needs --actual-field G" import/llm.jsonl --cost-field c --duration-field d
bad_opts bad_unit "--duration-unit 'min' is not s, ms, us or ns" import/llm.jsonl --cost-field c --actual-field a \
	--duration-field d --duration-unit min
bad_opts empty_field "--actual-field is empty" import/llm.jsonl --cost-field c --actual-field '' --duration-field d
bad_opts combined "apply to jsonl, caddy and csv" --format combined --cost-field bytes --actual-field a \
	--duration-field d /dev/null
bad_opts trace "settle lines 'T KEY COST ACTUAL DONE_T' are read as they are" --format trace --cost-field c \
	--actual-field a --duration-field d /dev/null

# study reads the log's settles as import writes them: the same study from the log and from its trace
"$ratelab" import import/llm.jsonl --cost-field max_tokens --actual-field usage.total_tokens \
	--duration-field request_time >"$tmp/llm.trace" 2>/dev/null || fail "import for study: exit $?"
for src in log trace; do
	if [ $src = log ]; then
		args=(--trace import/llm.jsonl --cost-field max_tokens --actual-field usage.total_tokens --duration-field request_time)
	else
		args=(--trace "$tmp/llm.trace")
	fi
	"$ratelab" study "${args[@]}" --rules '2/1s+3000/1s:units' --algos sliding_log,fixed_window --quiet \
		--out "$tmp/st_$src" 2>"$tmp/err" || fail "study from the $src: exit $?: $(cat "$tmp/err")"
done
a=$(cut -d, -f1-13 "$tmp/st_log/study.csv"); b=$(cut -d, -f1-13 "$tmp/st_trace/study.csv")
[ -n "$a" ] && [ "$a" = "$b" ] || fail "study from the log and from its trace differ:
$a
---
$b"

[ $fails -eq 0 ] || exit 1
echo "import_settle: ok"
