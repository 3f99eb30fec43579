#!/bin/bash
# ratelab replay --rule-at against a real redis-server: a seeded trace
# whose rule changes (limits, windows and bursts up and down, by factors up
# to 10^4) reach every key lazily prints, for every algorithm, with
# --explain, the same lines in process, with the module and with the
# scripts (the stored form v3 carries the rule a key's state was written
# under; --redis-batch 1 and 50). The server loads ratelab.so when
# RL_REDIS_MODULE is its path (lib/redis.sh): each run is then made once
# through the module and once through the scripts (RATELAB_REDIS_SCRIPTS=1);
# without it, through the scripts only. $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"
source "$(dirname "$0")/lib/redis.sh"
start_redis
R=127.0.0.1:$REDIS_PORT

if "$ratelab" replay --algo gcra --limit 1 --window 1s --redis "$R" </dev/null 2>&1 | grep -q 'built without'; then
	fail "this ratelab was built without the Redis backend (hiredis)"; finish redis_rule_at
fi

# 4 keys, 1200 lines from t = 10^12 ns: steps of every size, some backwards,
# bursts at one instant; a fifth carry a COST.
awk 'BEGIN { srand(41); t = 1000000000000;
	for (i = 0; i < 1200; i++) {
		r = rand(); k = int(rand() * 4);
		if (r < 0.25) d = 0; else if (r < 0.45) d = int(rand() * 1000); else if (r < 0.75) d = int(rand() * 300000000);
		else if (r < 0.85) d = -int(rand() * 100000000); else d = int(rand() * 5000000000);
		t += d; if (t < 0) t = 0;
		c = rand(); cost = c < 0.8 ? "" : " " (1 + int(rand() * 30));
		printf "%.0f k%d%s\n", t, k, cost } }' >"$tmp/trace"
first=$(head -1 "$tmp/trace" | cut -d' ' -f1)
last=$(sort -n "$tmp/trace" | tail -1 | cut -d' ' -f1)
at() { echo $((first + ($last - $first) * $1 / 10)); } # a tenth of the span

# the module (when the server loaded it) and the scripts, each on keys of its own
modes=("using scripts")
[ "$REDIS_MODE" = "using scripts" ] || modes=("$REDIS_MODE" "using scripts")
n=0
for algo in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	bucket=0
	case $algo in token_bucket | gcra | leaky_bucket) bucket=1 ;; esac
	b() { [ $bucket = 1 ] && printf ':b%s' "$1"; }
	# down by 10^4 and back up, windows shorter and longer, bursts both ways
	for set in 1 2 3; do
		case $set in
		1) base=(--limit 20 --window 1s); [ $bucket = 1 ] && base+=(--burst 40)
		   changes=(--rule-at "$(at 2)=2/1s$(b 4)" --rule-at "$(at 4)=20000/1s$(b 40000)" --rule-at "$(at 6)=20/100ms$(b 1)"
			    --rule-at "$(at 8)=5/10s$(b 400)") ;;
		2) base=(--limit 1000000 --window 1h); [ $bucket = 1 ] && base+=(--burst 10000000)
		   changes=(--rule-at "$(at 3)=1000000/1h$(b 1000000)" --rule-at "$(at 5)=100/1h$(b 1000)"
			    --rule-at "$(at 7)=1000000/1ms$(b 1000000000)") ;;
		3) base=(--limit 3 --window 250ms)
		   changes=(--rule-at "$(at 1)=30/2500ms" --rule-at "$(at 2)=3/250ms" --rule-at "$(at 3)=1/25ms"
			    --rule-at "$(at 5)=7/1s$(b 2)" --rule-at "$(at 9)=3/250ms") ;;
		esac
		"$ratelab" replay --algo $algo "${base[@]}" "${changes[@]}" --explain <"$tmp/trace" >"$tmp/want" 2>"$tmp/err" ||
			fail "$algo set $set: in-process exit $? ($(cat "$tmp/err"))"
		"$ratelab" replay --algo $algo "${base[@]}" --explain <"$tmp/trace" >"$tmp/plain" 2>/dev/null
		cmp -s "$tmp/want" "$tmp/plain" && fail "$algo set $set: the rule changes changed nothing"
		for batch in 1 50; do
			for mode in "${modes[@]}"; do
				n=$((n + 1))
				scripts=0
				[ "$mode" = "using scripts" ] && scripts=1
				RATELAB_REDIS_SCRIPTS=$scripts "$ratelab" replay --algo $algo "${base[@]}" "${changes[@]}" --explain \
					--redis "$R" --redis-prefix "ra$n:" --redis-batch $batch <"$tmp/trace" >"$tmp/got" 2>"$tmp/err" ||
					fail "$algo set $set batch $batch ($mode): exit $? ($(cat "$tmp/err"))"
				cmp -s "$tmp/want" "$tmp/got" || fail "$algo set $set batch $batch ($mode): differs from in-process
$(diff "$tmp/want" "$tmp/got" | head -6)"
				[ "$(cat "$tmp/err")" = "ratelab replay: redis: $mode" ] ||
					fail "$algo set $set batch $batch ($mode): stderr $(cat "$tmp/err")"
			done
		done
	done
done
finish redis_rule_at
