#!/bin/bash
# ratelab sim --llm POLICY: llm.csv's header and rows (every algorithm in
# the three ways, in that order; an algorithm that does not settle has its
# settle row's measures empty), the same file for the same seed and another
# for another seed, what must hold of every row (admitted <= requests, the
# ideal refuses nothing it admits, sliding_log no token over the rule), and
# the refusals: a bad policy, a policy without ':units', scenarios or a
# decider beside --llm. $1 is the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

p='60/1m+90000/1m:units'
"$ratelab" sim --quiet --llm "$p" --out "$tmp/a" >/dev/null 2>"$tmp/err" || fail "sim --llm: exit $?: $(cat "$tmp/err")"
"$ratelab" sim --quiet --llm "$p" --seed 1 --out "$tmp/b" >/dev/null 2>&1 || fail "sim --llm --seed 1: exit $?"
"$ratelab" sim --quiet --llm "$p" --seed 2 --out "$tmp/c" >/dev/null 2>&1 || fail "sim --llm --seed 2: exit $?"
cmp -s "$tmp/a/llm.csv" "$tmp/b/llm.csv" || fail "the default seed is 1: the files differ"
cmp -s "$tmp/a/llm.csv" "$tmp/c/llm.csv" && fail "seeds 1 and 2 gave the same file"
[ "$(head -1 "$tmp/a/llm.csv")" = "policy,algo,way,requests,admitted,refused_ideal_admits,tokens_real,tokens_admitted,tokens_over" ] ||
	fail "header: $(head -1 "$tmp/a/llm.csv")"
want=""
for a in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	for w in estimate ideal settle; do want="$want$p,$a,$w "; done
done
got=$(tail -n +2 "$tmp/a/llm.csv" | cut -d, -f1-3 | tr '\n' ' ')
[ "$got" = "$want" ] || fail "rows: $got"
for f in "$tmp/a/llm.csv" "$tmp/c/llm.csv"; do
	bad=$(awk -F, 'NR > 1 {
		if ($4 == "") { if ($3 != "settle") print "no measures:", $0; next }
		if ($5 > $4 || $8 > $7 || $9 > $8) print "more admitted than asked:", $0
		if ($3 == "ideal" && $6 != 0) print "the ideal refuses what it admits:", $0
		if ($2 == "sliding_log" && $9 != 0) print "sliding_log over the rule:", $0
	}' "$f")
	[ -z "$bad" ] || fail "$f: $bad"
done
# the settle rows are empty exactly for the algorithms replay refuses a settle line of
for a in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	empty=$(awk -F, -v a="$a" '$2 == a && $3 == "settle" { print ($4 == "") }' "$tmp/a/llm.csv")
	settles=0
	printf '0 k 1 2 5\n' | "$ratelab" replay --algo "$a" --limit 5 --window 1s >/dev/null 2>&1 && settles=1
	[ "$empty" = $((1 - settles)) ] || fail "$a: settle row empty=$empty, replay settles=$settles"
done

run_bad bad_policy "" "" sim --llm '60/1m+0/1m:units' -- "--llm:" "'0/1m'"
run_bad no_units "" "" sim --llm '60/1m+100/1h' -- "has no ':units' rule"
run_bad with_scenario "" "" sim --llm "$p" x.ini -- "--llm runs the LLM API scenario alone: no SCENARIO.ini"
run_bad with_decider "" "" sim --llm "$p" --decider cat -- "no --decider"

[ $fails -eq 0 ] || exit 1
echo "sim_llm: ok"
