#!/bin/bash
# ratelab replay --rule-at T=N/W[:bB] in process: the issue's tier
# downgrade (a client who used 6,000,000 of a 10,000,000 burst is refused
# under the new 1,000,000 exactly as one who used 4,000,000); a change to
# the same rule changes nothing; a change reaches a key at its first line
# from T on, and a line earlier than T keeps the old rule; usage errors
# name the value. $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# token_bucket 10^6 per hour, burst 10^7 lowered to 10^6 at 1 s
run_ok downgrade $'0 a 6000000\n0 b 4000000\n1000000000 a 100000\n1000000000 b 100000\n' \
	"1 remaining=4000000 retry_after_ns=0 reset_ns=21600000000000
1 remaining=6000000 retry_after_ns=0 reset_ns=14400000000000
0 remaining=0 retry_after_ns=360000000000 reset_ns=3600000000000
0 remaining=0 retry_after_ns=360000000000 reset_ns=3600000000000" \
	replay --algo token_bucket --limit 1000000 --window 1h --burst 10000000 --rule-at 1000000000=1000000/1h:b1000000 --explain

# the same rule again: no change at all
printf '0 k\n1 k\n2 k\n5 k\n9 k\n' >"$tmp/t"
"$ratelab" replay --algo sliding_counter --limit 2 --window 10ns --explain "$tmp/t" >"$tmp/a"
"$ratelab" replay --algo sliding_counter --limit 2 --window 10ns --rule-at 3=2/10ns --explain "$tmp/t" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "a change to the same rule changed the answers"

# fixed_window 3 per 10 ns, from 5 on 1 per 10 ns: at 5 the count 2
# carries, clamped to 1 (refused); the line at 4 is under the old rule
# again (its time is before 5: decided at 5, the count 1 of 3: admitted);
# at 10 a new window
run_ok fixed_window $'0 k\n1 k\n5 k\n4 k\n10 k\n' "1
1
0
1
1" replay --algo fixed_window --limit 3 --window 10ns --rule-at 5=1/10ns

# a line before T keeps the old rule (the rule is the time's)
run_ok before_t $'0 k\n0 k\n100 k\n' "1
1
1" replay --algo sliding_log --limit 2 --window 1s --rule-at 100=5/1s

run_bad no_value "" "" replay --algo gcra --limit 1 --window 1s --rule-at -- "--rule-at needs a value T=N/W[:bB]"
run_bad shape "" "" replay --algo gcra --limit 1 --window 1s --rule-at 5 -- "--rule-at '5' is not T=N/W[:bB]"
run_bad time "" "" replay --algo gcra --limit 1 --window 1s --rule-at x=1/1s -- "--rule-at 'x=1/1s': time 'x' is not an integer in [0, 4000000000000000000]"
run_bad limit "" "" replay --algo gcra --limit 1 --window 1s --rule-at 5=0/1s -- "--rule-at '5=0/1s': limit '0' is out of range"
run_bad window "" "" replay --algo gcra --limit 1 --window 1s --rule-at 5=1/10 -- "--rule-at '5=1/10': window '10' has no unit"
run_bad burst "" "" replay --algo gcra --limit 1 --window 1s --rule-at 5=1/1s:b0 -- "--rule-at '5=1/1s:b0': burst '0' is out of range"
run_bad no_burst "" "" replay --algo fixed_window --limit 1 --window 1s --rule-at 5=1/1s:b2 -- \
	"a burst does not apply to fixed_window: it has no bucket"
run_bad order "" "" replay --algo gcra --limit 1 --window 1s --rule-at 5=1/1s --rule-at 5=2/1s -- "times must increase"
run_bad control "" "" replay --algo gcra --limit 1 --window 1s --rule-at $'5\x01' -- "--rule-at '5\\x01' is not T=N/W[:bB]"
run_bad config "" "" replay --config ../../examples/tiers.ini --rule-at 5=1/1s -- "--rule-at changes the one rule"
"$ratelab" replay --help | grep -q -- "--rule-at T=N/W\[:bB\]" || fail "replay --help does not list --rule-at"
finish replay_rule_at
