#!/bin/bash
# ratelab replay --redis with settle lines 'T KEY COST ACTUAL DONE_T': for
# every algorithm and a narrow and a wide rule, a seeded trace of checks
# and settles (charges, refunds, times going back) answers line for line
# as the in-process replay does, through the module (RL_REDIS_MODULE set,
# lib/redis.sh) or the scripts, batched or not. (A settle of a key with no
# state, an error naming it, is test_redis_settle's.)
# $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"
source "$(dirname "$0")/lib/redis.sh"
start_redis
R=127.0.0.1:$REDIS_PORT

# 4 keys, small steps and some back; a third of the lines settle their
# request between 0 and 3 times its cost, up to 5000 ns later
awk 'BEGIN { srand(44); t = 1000000;
	for (i = 0; i < 1200; i++) {
		r = rand(); k = int(rand() * 4);
		if (r < 0.15) d = -int(rand() * 50); else d = int(rand() * 400);
		t += d; if (t < 0) t = 0;
		c = 1 + int(rand() * 3);
		if (rand() < 0.35) printf "%d k%d %d %d %d\n", t, k, c, int(rand() * 3 * c + 0.5), t + int(rand() * 5000);
		else printf "%d k%d %d\n", t, k, c } }' >"$tmp/trace"
n=0
for algo in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	for rule in "--limit 7 --window 3us --burst 9" "--limit 3 --window 1000000000000000000ns --burst 1000000000"; do
		case $algo in fixed_window | sliding_*) rule=${rule% --burst *} ;; esac
		"$ratelab" replay --algo $algo $rule --explain <"$tmp/trace" >"$tmp/want" || fail "$algo $rule: in-process"
		for batch in 1 32; do
			n=$((n + 1))
			"$ratelab" replay --algo $algo $rule --explain --redis "$R" --redis-prefix "s$n:" \
				--redis-batch $batch <"$tmp/trace" >"$tmp/got" 2>"$tmp/err" || fail "$algo $rule batch $batch: exit $?: $(cat "$tmp/err")"
			cmp -s "$tmp/want" "$tmp/got" || fail "$algo $rule batch $batch: output differs from in-process
$(diff "$tmp/want" "$tmp/got" | head -5)"
		done
	done
done

finish redis_settle
