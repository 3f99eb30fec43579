#!/bin/bash
# The test-only seventh algorithm (tests/algo7/naive_log.c) through the
# ratelab program built with it ($1): replay names it in its messages and
# answers exactly as sliding_log, with and without --explain and --headers,
# and sim measures it with zero error.
source "$(dirname "$0")/lib/harness.sh" "$1"

awk 'BEGIN { x = 7; t = 0
	for (i = 0; i < 20000; i++) {
		x = (x * 75 + 74) % 65537
		t += (x % 400) * 100000
		printf "%.0f k%d\n", t - (x % 3) * 1000000, x % 17
	} }' >"$tmp/trace"
for flags in "" "--explain" "--headers"; do
	"$ratelab" replay --algo naive_log --limit 2 --window 1s $flags <"$tmp/trace" >"$tmp/seven" 2>"$tmp/err" ||
		fail "naive_log $flags: exit $? ($(cat "$tmp/err"))"
	"$ratelab" replay --algo sliding_log --limit 2 --window 1s $flags <"$tmp/trace" >"$tmp/log" ||
		fail "sliding_log $flags: exit $?"
	[ "$(wc -l <"$tmp/seven")" -ge 20000 ] || fail "naive_log $flags: $(wc -l <"$tmp/seven") lines"
	grep -q '^0' "$tmp/seven" || [ -n "$flags" ] || fail "naive_log: the trace never rejects"
	cmp -s "$tmp/seven" "$tmp/log" || fail "naive_log $flags differs from sliding_log: $(diff "$tmp/seven" "$tmp/log" | head -3)"
done
run_bad unknown_names_seventh "" "" replay --algo nope --limit 1 --window 1s -- "unknown algorithm 'nope'" "sliding_counter, naive_log"
"$ratelab" replay --help | grep -q "naive_log" || fail "replay --help does not list naive_log"
# Redis: naive_log has no script, so replay --redis refuses it before any
# connection (port 1: nothing listens), naming it; an algorithm with a
# script goes on to connect and fails there instead.
if [ "${RL_REDIS_BUILT:-0}" = 1 ]; then
	run_bad redis_no_script "" "" replay --algo naive_log --limit 2 --window 1s --redis 127.0.0.1:1 -- \
		"no Redis script for naive_log"
	"$ratelab" replay --algo sliding_log --limit 2 --window 1s --redis 127.0.0.1:1 --redis-timeout 50 \
		<<<"1 k" >/dev/null 2>"$tmp/err"
	grep -q "no Redis script" "$tmp/err" && fail "sliding_log refused as if it had no script: $(cat "$tmp/err")"
fi

cat >"$tmp/seventh.ini" <<'INI'
[scenario]
limit = 10
window = 1s
duration = 10s
algos = naive_log, fixed_window
[traffic p]
type = poisson
keys = 5
load = 200
INI
"$ratelab" sim --no-timing --quiet --seed 7 --out "$tmp/out" "$tmp/seventh.ini" >/dev/null 2>"$tmp/err" ||
	fail "sim: exit $? ($(cat "$tmp/err"))"
awk -F, '$2 == "naive_log" && $7 > 0 && $9 == 0 && $11 == 0 { ok = 1 } END { exit !ok }' "$tmp/out/summary.csv" ||
	fail "sim: no naive_log row with zero error: $(grep naive_log "$tmp/out/summary.csv")"
[ -f "$tmp/out/series/seventh__naive_log.csv" ] || fail "sim: no naive_log series"
finish algo7_replay
