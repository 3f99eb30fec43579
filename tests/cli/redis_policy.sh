#!/bin/bash
# ratelab replay --policy and --shadow against a real redis-server: a
# seeded trace decided in process and through Redis prints the same lines
# (--explain, each rule's answer and would_reject), for every algorithm,
# policies of 1, 2, 3 and 8 rules with and without :units, with --shadow
# and without, through the module (RATELAB.CHECKP) and the scripts
# (RATELAB_REDIS_SCRIPTS=1); the closing shadow line is the in-process one.
# Bad input is refused with the in-process words (9 rules, a bad rule, no
# COST for a :units rule); --redis-batch other than 1 and settle lines are
# refused. replay --config with policy and shadow tiers prints what in
# process prints, --explain and --headers, batched or not. Needs the module (RL_REDIS_MODULE, lib/redis.sh). $1 is the
# ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"
source "$(dirname "$0")/lib/redis.sh"
start_redis
R=127.0.0.1:$REDIS_PORT

[ "$REDIS_MODE" = "using scripts" ] && { fail "the server did not load ratelab.so (RL_REDIS_MODULE)"; finish redis_policy; }

# 3 keys, 400 lines: steps of every size, some backwards; every line has a COST 1..9.
awk 'BEGIN { srand(44); t = 1000000000000;
	for (i = 0; i < 400; i++) {
		r = rand(); k = int(rand() * 3);
		if (r < 0.2) d = 0; else if (r < 0.7) d = int(rand() * 200000000);
		else if (r < 0.8) d = -int(rand() * 100000000); else d = int(rand() * 3000000000);
		t += d; if (t < 0) t = 0;
		printf "%.0f k%d %d\n", t, k, 1 + int(rand() * 9) } }' >"$tmp/trace"

n=0
# $1 label, then replay's arguments: in process, then through Redis (module; with $SCRIPTS_TOO the scripts too)
same() {
	local label=$1; shift
	"$ratelab" replay "$@" --explain <"$tmp/trace" >"$tmp/want" 2>"$tmp/want_err" ||
		{ fail "$label: in-process exit $? ($(cat "$tmp/want_err"))"; return; }
	local modes=("$REDIS_MODE")
	[ -n "$SCRIPTS_TOO" ] && modes+=("using scripts")
	for mode in "${modes[@]}"; do
		n=$((n + 1))
		local scripts=0
		[ "$mode" = "using scripts" ] && scripts=1
		RATELAB_REDIS_SCRIPTS=$scripts "$ratelab" replay "$@" --explain --redis "$R" --redis-prefix "rp$n:" \
			<"$tmp/trace" >"$tmp/got" 2>"$tmp/err" || { fail "$label ($mode): exit $? ($(cat "$tmp/err"))"; continue; }
		cmp -s "$tmp/want" "$tmp/got" || fail "$label ($mode): differs from in-process
$(diff "$tmp/want" "$tmp/got" | head -6)"
		# stderr: which decided, then the in-process closing line (--shadow)
		{ echo "ratelab replay: redis: $mode"; cat "$tmp/want_err"; } >"$tmp/want_err2"
		cmp -s "$tmp/want_err2" "$tmp/err" || fail "$label ($mode): stderr $(cat "$tmp/err")"
	done
}

for algo in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	bucket=0
	case $algo in token_bucket | gcra | leaky_bucket) bucket=1 ;; esac
	b() { [ $bucket = 1 ] && printf ':b%s' "$1"; }
	p1="5/1s$(b 8)"
	p2="4/500ms+30/10s:units"
	p3="3/200ms$(b 5)+20/2s:units+100/1m$(b 150):units"
	p8="2/100ms+4/300ms:units+6/1s+9/2s:units+12/5s+20/10s:units+40/30s+90/1m:units"
	for p in "$p1" "$p2" "$p3" "$p8"; do
		SCRIPTS_TOO=1 same "$algo --policy $p" --algo $algo --policy "$p"
		SCRIPTS_TOO=1 same "$algo --policy $p --shadow" --algo $algo --policy "$p" --shadow
	done
	SCRIPTS_TOO=1 same "$algo --shadow" --algo $algo --limit 6 --window 1s --shadow
	# the shadow runs refused something
	"$ratelab" replay --algo $algo --policy "$p3" --shadow <"$tmp/trace" 2>&1 >/dev/null |
		grep -q 'would_reject=[1-9]' || fail "$algo: shadow refused nothing"
done

# --config with policy and shadow tiers (a policy, a one-rule shadow tier, a
# shadow policy) beside a plain and an unlimited tier: each policy tier's line
# one RATELAB.CHECKP between the others' batches, printed as in process.
for algo in token_bucket gcra fixed_window sliding_log; do
	bucket=0
	case $algo in token_bucket | gcra) bucket=1 ;; esac
	b() { [ $bucket = 1 ] && printf ':b%s' "$1"; }
	cat >"$tmp/tiers.ini" <<INI
[tier pol]
algorithm = $algo
policy = 3/200ms$(b 5) + 20/2s:units
[tier shadow1]
algorithm = $algo
limit = 4
window = 1s
mode = shadow
[tier shadowp]
algorithm = $algo
policy = 2/100ms + 15/1s:units
mode = shadow
[tier plain]
algorithm = $algo
limit = 5
window = 500ms
[tier free]
unlimited = true
[clients]
pol = k0
shadow1 = k1
shadowp = k2
free = k3
[defaults]
tier = plain
INI
	# the trace's keys k0..k2 and, every seventh line, k3 and k4 (unlimited, plain)
	awk '{ if (NR % 7 == 0) $2 = "k" (3 + NR % 2); print }' "$tmp/trace" >"$tmp/trace4"
	cp "$tmp/trace" "$tmp/trace.keep"
	cp "$tmp/trace4" "$tmp/trace"
	SCRIPTS_TOO=1 same "$algo --config (policy and shadow tiers)" --config "$tmp/tiers.ini"
	# HTTP fields too, and lines batched around the policy tiers' commands
	"$ratelab" replay --config "$tmp/tiers.ini" --headers <"$tmp/trace" >"$tmp/want" 2>"$tmp/want_err" ||
		fail "$algo --config --headers in process: $(cat "$tmp/want_err")"
	n=$((n + 1))
	"$ratelab" replay --config "$tmp/tiers.ini" --headers --redis "$R" --redis-prefix "rp$n:" --redis-batch 5 \
		<"$tmp/trace" >"$tmp/got" 2>"$tmp/err" || fail "$algo --config --headers --redis-batch 5: $(cat "$tmp/err")"
	cmp -s "$tmp/want" "$tmp/got" || fail "$algo --config --headers --redis-batch 5: differs from in-process
$(diff "$tmp/want" "$tmp/got" | head -6)"
	cp "$tmp/trace.keep" "$tmp/trace"
	# the shadow tiers refused something (admitted, as enforcing would not have)
	"$ratelab" replay --config "$tmp/tiers.ini" --explain <"$tmp/trace4" | grep -q '^1 .*retry_after_ns=[1-9].*tier=shadow' ||
		fail "$algo --config: no shadow tier would have refused anything"
done

# bad input: the in-process words, exit 2
expect_usage() {
	local want=$1; shift
	"$ratelab" replay "$@" --redis "$R" <"$tmp/trace" >/dev/null 2>"$tmp/err"
	local rc=$?
	[ $rc = 2 ] || fail "$*: exit $rc, want 2"
	grep -qF -- "$want" "$tmp/err" || fail "$*: stderr $(cat "$tmp/err"), want $want"
}
expect_usage "has 9 rules (at most 8)" --algo gcra --policy "1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s"
expect_usage "rule 2: '0/1s'" --algo gcra --policy "1/1s+0/1s"
expect_usage "--redis-batch: with --policy each line is one round trip" --algo gcra --policy "1/1s" --redis-batch 5
printf '1 k 3 5 10\n' | "$ratelab" replay --algo fixed_window --policy "5/1s:units" --redis "$R" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'a settle line (T KEY COST ACTUAL DONE_T) is decided in process only' "$tmp/err" ||
	fail "a settle line through --redis: $(cat "$tmp/err")"
printf '1 k\n' | "$ratelab" replay --algo gcra --policy "5/1s+9/1s:units" --redis "$R" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "no COST, and rule 2 of --policy counts units" "$tmp/err" || fail "no COST: $(cat "$tmp/err")"

finish redis_policy
