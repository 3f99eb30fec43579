#!/bin/bash
# ratelab replay with settle lines 'T KEY COST ACTUAL DONE_T': the request
# decided at T with COST and, when admitted, settled by ACTUAL - COST at
# DONE_T (settle.h), before any line at or after DONE_T. Hand-worked
# answers for every algorithm, a policy, the handover from
# plain lines, settles equal to COST changing nothing, and bad settle
# lines refused with exit 2. $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# sliding_log 10 per 100 ns: the request at 10 costs 9, not 4: the window
# owes 3 at 20 (remaining 0) until the 4 at 0 leave at 100
run_ok sliding_log_charge $'0 a 4\n10 a 4 9 20\n20 a 1\n100 a 1\n' \
"1 remaining=6 retry_after_ns=0 reset_ns=100
1 remaining=2 retry_after_ns=0 reset_ns=100
0 remaining=0 retry_after_ns=80 reset_ns=90
1 remaining=0 retry_after_ns=0 reset_ns=100" \
	replay --algo sliding_log --limit 10 --window 100ns --explain

# a refund at its DONE_T: the request at 0 took 8, used 2; a line at the
# settle's own time sees it
run_ok fixed_window_refund $'0 a 8 2 50\n49 a 3\n50 a 3\n99 a 6\n100 a 10\n' \
"1 remaining=2 retry_after_ns=0 reset_ns=100
0 remaining=2 retry_after_ns=51 reset_ns=51
1 remaining=5 retry_after_ns=0 reset_ns=50
0 remaining=5 retry_after_ns=1 reset_ns=1
1 remaining=0 retry_after_ns=0 reset_ns=100" \
	replay --algo fixed_window --limit 10 --window 100ns --explain

# sliding_counter: settled while the admission's window is the previous one
# (prev 4 at half weight: 4 * 50 + 7 * 100 < 10 * 100 admits 8; with prev 10
# it would not)
run_ok sliding_counter_prev $'50 a 10 4 150\n150 a 8\n' \
"1 remaining=0 retry_after_ns=0 reset_ns=141
1 remaining=0 retry_after_ns=0 reset_ns=138" \
	replay --algo sliding_counter --limit 10 --window 100ns --explain

# a rejected request settles nothing; settles past the last line change nothing
run_ok rejected_no_settle $'0 a 10\n1 a 5 0 2\n3 a 1 1 900\n' \
"1
0
0" replay --algo sliding_log --limit 10 --window 100ns

# a policy: only the :units rule settles (the request counts 1 on rule 1)
run_ok policy_units $'0 a 40 10 5\n6 a 60\n7 a 1\n' \
"1 remaining=2 retry_after_ns=0 reset_ns=100 rule1=1 rule1.remaining=2 rule1.retry_after_ns=0 rule1.reset_ns=100 rule2=1 rule2.remaining=60 rule2.retry_after_ns=0 rule2.reset_ns=100
1 remaining=1 retry_after_ns=0 reset_ns=100 rule1=1 rule1.remaining=1 rule1.retry_after_ns=0 rule1.reset_ns=100 rule2=1 rule2.remaining=30 rule2.retry_after_ns=0 rule2.reset_ns=100
1 remaining=0 retry_after_ns=0 reset_ns=100 rule1=1 rule1.remaining=0 rule1.retry_after_ns=0 rule1.reset_ns=100 rule2=1 rule2.remaining=29 rule2.retry_after_ns=0 rule2.reset_ns=100" \
	replay --algo sliding_log --policy '3/100ns+100/100ns:units' --explain

# token_bucket 10 per 100 ns, burst 4 (a token per 10 ns): the request at
# 0 took 3, used 1: 2 back at 5 (3.5 tokens); the one at 10 took 1, used 5:
# 4 more, -4 tokens (B owed at most), 1 token again at 60, all 4 at 90
run_ok token_bucket_settle $'0 a 3 1 5\n5 a 3\n10 a 1 5 10\n10 a 1\n59 a 1\n60 a 1\n' \
"1 remaining=1 retry_after_ns=0 reset_ns=30
1 remaining=0 retry_after_ns=0 reset_ns=35
1 remaining=0 retry_after_ns=0 reset_ns=40
0 remaining=0 retry_after_ns=50 reset_ns=80
0 remaining=0 retry_after_ns=1 reset_ns=31
1 remaining=0 retry_after_ns=0 reset_ns=40" \
	replay --algo token_bucket --limit 10 --window 100ns --burst 4 --explain

# gcra decides as that token bucket (N divides W), settles too
run_ok gcra_settle $'0 a 3 1 5\n5 a 3\n10 a 1 5 10\n10 a 1\n59 a 1\n60 a 1\n' \
"1 remaining=1 retry_after_ns=0 reset_ns=30
1 remaining=0 retry_after_ns=0 reset_ns=35
1 remaining=0 retry_after_ns=0 reset_ns=40
0 remaining=0 retry_after_ns=50 reset_ns=80
0 remaining=0 retry_after_ns=1 reset_ns=31
1 remaining=0 retry_after_ns=0 reset_ns=40" \
	replay --algo gcra --limit 10 --window 100ns --burst 4 --explain

# leaky_bucket 10 per 100 ns, 2 waiting: the request at 0 queued 2 units,
# used 1: 1 back at 0; the next waits behind 1 unit, not 2
run_ok leaky_bucket_settle $'0 a 2 1 0\n0 a 1\n' \
"1 remaining=1 retry_after_ns=0 reset_ns=20 delay_ns=0
1 remaining=1 retry_after_ns=0 reset_ns=20 delay_ns=10" \
	replay --algo leaky_bucket --limit 10 --window 100ns --burst 2 --explain

# ACTUAL = COST settles nothing: the same answers as without the settle fields
trace=$'0 k 1\n3 k 2\n3 j 1\n7 k 1\n50 k 4\n99 k 1\n100 k 3\n101 k 1\n150 j 5\n151 k 6\n'
settled=$(printf '%s' "$trace" | awk '{ print $0, $3, $1 + 7 }')
for algo in fixed_window sliding_log sliding_counter token_bucket gcra leaky_bucket; do
	want=$(printf '%s' "$trace" | "$ratelab" replay --algo "$algo" --limit 5 --window 100ns --explain)
	got=$(printf '%s\n' "$settled" | "$ratelab" replay --algo "$algo" --limit 5 --window 100ns --explain)
	[ "$got" = "$want" ] || fail "unchanged_$algo:
--- got:
$got
--- want:
$want"
done

bad() { local n=$1 i=$2 w=$3; shift 3; run_bad "$n" "$i" "$w" replay "$@"; }
args=(--algo sliding_log --limit 2 --window 10ns)
bad four_tokens $'0 a 1 1 5\n0 a 1 1\n' "1" "${args[@]}" -- "line 2" "'0 a 1 1'" "'T KEY COST ACTUAL DONE_T'"
bad done_before_t $'5 a 1 1 4\n' "" "${args[@]}" -- "line 1" "done time '4' is not an integer number of ns in [T,"
bad bad_actual $'5 a 1 x 9\n' "" "${args[@]}" -- "line 1" "actual cost 'x' is not an integer in [0, 1000000000000]"

finish replay_settle
