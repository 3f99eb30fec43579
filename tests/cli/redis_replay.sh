#!/bin/bash
# ratelab replay --redis: against a real redis-server, every algorithm's
# output (with --explain, --headers, --config tiers, COST columns) equals the in-process
# replay's, line for line, for --redis-batch 1 and K; several replay
# processes started together on one key admit exactly N in all; bad
# options are usage errors; a wrong-type key is a clear error (exit 1);
# with no server every line is the tier's policy and stderr counts the
# fallbacks; stderr says whether the module or the scripts decided (the
# server loads ratelab.so when RL_REDIS_MODULE is its path, lib/redis.sh).
# $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"
source "$(dirname "$0")/lib/redis.sh"
start_redis
R=127.0.0.1:$REDIS_PORT

if "$ratelab" replay --algo gcra --limit 1 --window 1s --redis "$R" </dev/null 2>&1 | grep -q 'built without'; then
	fail "this ratelab was built without the Redis backend (hiredis)"; finish redis_replay
fi

# A seeded trace: 3 keys, times up to 4*10^18 ns, steps of every size, some
# backwards; a fifth of the lines carry a COST (up to 10^9).
awk 'BEGIN { srand(13); t = 1000000000000000000;
	for (i = 0; i < 1500; i++) {
		r = rand(); k = int(rand() * 3);
		if (r < 0.2) d = 0; else if (r < 0.4) d = int(rand() * 1000); else if (r < 0.7) d = int(rand() * 2000000000);
		else if (r < 0.8) d = -int(rand() * 1000000000); else d = int(rand() * 1000000000000000);
		t += d; if (t < 0) t = 0; if (t > 4000000000000000000) t = 4000000000000000000;
		c = rand(); cost = c < 0.8 ? "" : c < 0.95 ? " " (1 + int(rand() * 12)) : " " (1 + int(rand() * 1000000000));
		printf "%.0f k%d%s\n", t, k, cost } }' >"$tmp/trace"
n=0
for algo in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	for rule in "--limit 7 --window 3s --burst 9" "--limit 1 --window 1000000000000000000ns --burst 1000000000" \
		"--limit 1000000 --window 1ns --burst 1"; do
		case $algo in fixed_window | sliding_*) rule=${rule% --burst *} ;; esac # no bucket, no burst
		"$ratelab" replay --algo $algo $rule --explain <"$tmp/trace" >"$tmp/want" || fail "$algo $rule: in-process"
		for batch in 1 64; do
			n=$((n + 1))
			"$ratelab" replay --algo $algo $rule --explain --redis "$R" --redis-prefix "t$n:" \
				--redis-batch $batch <"$tmp/trace" >"$tmp/got" 2>"$tmp/err" || fail "$algo $rule batch $batch: exit $?"
			cmp -s "$tmp/want" "$tmp/got" || fail "$algo $rule batch $batch: output differs from in-process
$(diff "$tmp/want" "$tmp/got" | head -5)"
			[ "$(cat "$tmp/err")" = "ratelab replay: redis: $REDIS_MODE" ] ||
				fail "$algo $rule batch $batch: stderr is not the one line 'ratelab replay: redis: $REDIS_MODE': $(cat "$tmp/err")"
		done
	done
done

# Tiers, headers, legacy headers, an unlimited tier; --redis=HOST:PORT form.
sed 's/ k0$/ alice/; s/ k1$/ 10.0.0.1/; s/ k2$/ sms-gateway/' "$tmp/trace" >"$tmp/tiers"
cfg=../../examples/tiers.ini
"$ratelab" replay --config $cfg --explain --legacy-headers <"$tmp/tiers" >"$tmp/want"
"$ratelab" replay --config $cfg --explain --legacy-headers --redis="$R" --redis-prefix tiers: --redis-batch 10 \
	<"$tmp/tiers" >"$tmp/got" 2>/dev/null || fail "tiers: exit $?"
cmp -s "$tmp/want" "$tmp/got" || fail "tiers: output differs from in-process"

# Several processes, started together, on one key: exactly N admitted in all.
pids=()
for i in 1 2 3 4 5 6; do
	(while [ ! -e "$tmp/go" ]; do sleep 0.005; done
	 yes '1000 hot' | head -400 | "$ratelab" replay --algo sliding_log --limit 500 --window 1s \
		--redis "$R" --redis-prefix burst: --redis-batch $i >"$tmp/burst$i" 2>/dev/null) &
	pids+=($!)
done
sleep 0.3; touch "$tmp/go"; wait "${pids[@]}"
ones=$(cat "$tmp"/burst? | grep -c '^1$')
[ "$ones" -eq 500 ] || fail "6 processes on one key admitted $ones, want exactly 500"
[ "$(cat "$tmp"/burst? | wc -l)" -eq 2400 ] || fail "burst: not every line answered"

# Usage errors.
run_bad "bad target" "" "" replay --algo gcra --limit 1 --window 1s --redis localhost -- "--redis 'localhost' is not HOST:PORT"
run_bad "bad port" "" "" replay --algo gcra --limit 1 --window 1s --redis h:70000 -- "is not HOST:PORT"
run_bad "batch 0" "" "" replay --algo gcra --limit 1 --window 1s --redis "$R" --redis-batch 0 -- "--redis-batch '0' is not an integer in [1, 10000]"
run_bad "batch alone" "" "" replay --algo gcra --limit 1 --window 1s --redis-batch 5 -- "--redis-batch, --redis-prefix and --redis-timeout need --redis"
run_bad "bad prefix" "" "" replay --algo gcra --limit 1 --window 1s --redis "$R" --redis-prefix 'a{' -- "redis key prefix 'a{'"

# A key of the wrong type: exit 1, the line and Redis's message; lines before it answered.
redis-cli -p "$REDIS_PORT" set 'wt:{s}' hello >/dev/null
out=$(printf '1 a\n2 s\n3 a\n' | "$ratelab" replay --algo gcra --limit 5 --window 1s --redis "$R" --redis-prefix wt: 2>"$tmp/err"); rc=$?
[ $rc -eq 1 ] || fail "wrong type: exit $rc, want 1"
[ "$out" = "1" ] || fail "wrong type: stdout '$out', want the first line's 1"
grep -q "ratelab replay: line 2: redis: WRONGTYPE" "$tmp/err" || fail "wrong type: stderr $(cat "$tmp/err")"
grep -q "decided=1 fallbacks=0 reconnects=0 errors=1" "$tmp/err" || fail "wrong type: counters $(cat "$tmp/err")"

# No server: the tier's policy, counted.
kill -9 $REDIS_PID; wait $REDIS_PID 2>/dev/null
printf '1 alice\n2 sms-gateway\n3 10.0.0.1\n' >"$tmp/down"
out=$("$ratelab" replay --config $cfg --redis "$R" --redis-timeout 50 <"$tmp/down" 2>"$tmp/err"); rc=$?
[ $rc -eq 0 ] || fail "down: exit $rc"
[ "$out" = "$(printf '1\n0\n1')" ] || fail "down: want fail_open 1, fail_closed 0, unlimited 1; got $out"
grep -q "decided=0 fallbacks=2 reconnects=0 errors=0" "$tmp/err" || fail "down: stderr $(cat "$tmp/err")"
finish redis_replay
