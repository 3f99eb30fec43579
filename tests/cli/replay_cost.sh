#!/bin/bash
# ratelab replay with weighted requests: lines 'T KEY [COST]', COST in
# units (default 1). Hand-worked answers for every algorithm with costs
# above 1, COST 1 equal to no COST, costs through --config, and bad costs
# refused with exit 2 naming the line. $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

never=9223372036854775807

# token_bucket 2 per s: 2 units at 0 empty it; at 0.6 s 1.2 tokens are back,
# 2 more after 0.4 s; 3 never fit a bucket of 2
run_ok token_bucket $'0 a 2\n0 a\n0 a 1\n600000000 a 2\n600000000 b 3\n' \
"1 remaining=0 retry_after_ns=0 reset_ns=1000000000
0 remaining=0 retry_after_ns=500000000 reset_ns=1000000000
0 remaining=0 retry_after_ns=500000000 reset_ns=1000000000
0 remaining=1 retry_after_ns=400000000 reset_ns=400000000
0 remaining=2 retry_after_ns=$never reset_ns=0" \
	replay --algo token_bucket --limit 2 --window 1s --explain

# gcra 3 per 999 ns (T = 333), B = 3: 2 units, then 2 more once 333 ns pass
run_ok gcra $'0 a 2\n0 a 2\n333 a 2\n333 a 4\n' \
"1 remaining=1 retry_after_ns=0 reset_ns=666
0 remaining=1 retry_after_ns=333 reset_ns=666
1 remaining=0 retry_after_ns=0 reset_ns=999
0 remaining=0 retry_after_ns=$never reset_ns=999" \
	replay --algo gcra --limit 3 --window 999ns --explain

# leaky_bucket 3 per 999 ns, B = 3: 3 units from an idle queue (the last
# waits 666 ns); 2 more do not fit until one unit is served (333 ns), 1 does
# (it waits behind the 3: 999 ns); a cost above B never passes
run_ok leaky_bucket $'0 a 3\n0 a 2\n0 a 1\n0 a 4\n' \
"1 remaining=1 retry_after_ns=0 reset_ns=999 delay_ns=0
0 remaining=1 retry_after_ns=333 reset_ns=999 delay_ns=0
1 remaining=0 retry_after_ns=0 reset_ns=1332 delay_ns=999
0 remaining=0 retry_after_ns=$never reset_ns=1332 delay_ns=0" \
	replay --algo leaky_bucket --limit 3 --window 999ns --burst 3 --explain

# fixed_window 5 per 100 ns: 3, then 3 too many, then the window's last 2
run_ok fixed_window $'10 a 3\n50 a 3\n50 a 2\n100 a 5\n100 a 6\n' \
"1 remaining=2 retry_after_ns=0 reset_ns=90
0 remaining=2 retry_after_ns=50 reset_ns=50
1 remaining=0 retry_after_ns=0 reset_ns=50
1 remaining=0 retry_after_ns=0 reset_ns=100
0 remaining=0 retry_after_ns=$never reset_ns=100" \
	replay --algo fixed_window --limit 5 --window 100ns --explain

# sliding_log 5 per 100 ns: 2 + 2 units; 2 more fit once the run at 10
# leaves the window (t = 110)
run_ok sliding_log $'10 a 2\n20 a 2\n30 a 2\n110 a 2\n110 a 6\n' \
"1 remaining=3 retry_after_ns=0 reset_ns=100
1 remaining=1 retry_after_ns=0 reset_ns=100
0 remaining=1 retry_after_ns=80 reset_ns=90
1 remaining=1 retry_after_ns=0 reset_ns=100
0 remaining=1 retry_after_ns=$never reset_ns=100" \
	replay --algo sliding_log --limit 5 --window 100ns --explain

# sliding_counter 4 per 100 ns: 4 at 90; at 110 the previous window weighs
# 4 * 90, and 2 units fit once 4 * (100 - e) + 100 < 400, e = 26 (t = 126)
run_ok sliding_counter $'90 a 4\n110 a 2\n126 a 2\n' \
"1 remaining=0 retry_after_ns=0 reset_ns=86
0 remaining=1 retry_after_ns=16 reset_ns=66
1 remaining=0 retry_after_ns=0 reset_ns=125" \
	replay --algo sliding_counter --limit 4 --window 100ns --explain

# COST 1 is the same as no COST, for every algorithm, answers and headers
trace=../../sim/scenarios/traces/sample.trace
[ -s "$trace" ] || fail "no sample trace at $trace"
with_one=$(grep -v '^#' "$trace" | awk 'NF { print $1, $2, 1 }')
for algo in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	a=$("$ratelab" replay --algo "$algo" --limit 3 --window 1s --explain --headers <"$trace")
	b=$(printf '%s\n' "$with_one" | "$ratelab" replay --algo "$algo" --limit 3 --window 1s --explain --headers)
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "$algo: COST 1 differs from no COST"
done

# --config: an LLM API's 1000 tokens per minute, each request its tokens;
# an unlimited tier takes any valid cost
cat >"$tmp/tokens.ini" <<'EOF'
[tier tokens]
algorithm = sliding_log
limit     = 1000
window    = 1m
[tier internal]
unlimited = true
[clients]
internal = ops
[defaults]
tier = tokens
EOF
run_ok config $'0 alice 600\n1000 alice 401\n1000 alice 400\n1000 bob 1001\n2000 ops 1000000000\n' \
"1 remaining=400 retry_after_ns=0 reset_ns=60000000000 tier=tokens
0 remaining=400 retry_after_ns=59999999000 reset_ns=59999999000 tier=tokens
1 remaining=0 retry_after_ns=0 reset_ns=60000000000 tier=tokens
0 remaining=1000 retry_after_ns=$never reset_ns=0 tier=tokens
1 tier=internal" \
	replay --config "$tmp/tokens.ini" --explain

# Bad costs: exit 2 after the earlier lines' output, naming line and text
bad() { local n=$1 i=$2 w=$3; shift 3; run_bad "$n" "$i" "$w" replay "$@"; }
args=(--algo sliding_log --limit 2 --window 10ns)
ok2=$'0 a\n0 a 1\n'
for c in 0 -1 1000000000001 99999999999999999999 1.5 2ns +2 abc 0x10; do
	bad "cost_$c" "${ok2}5 a $c"$'\n'"6 a"$'\n' $'1\n1' "${args[@]}" -- \
		"line 3" "'5 a $c'" "cost '$c'"
done
bad four_tokens "${ok2}5 a 1 x"$'\n' $'1\n1' "${args[@]}" -- "line 3" "'5 a 1 x'" "expected 'T KEY [COST]' or 'T KEY COST ACTUAL DONE_T'"
bad cost_in_config "0 ops 0"$'\n' "" --config "$tmp/tokens.ini" -- "line 1" "cost '0'"

finish replay_cost
