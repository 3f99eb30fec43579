#!/bin/bash
# ratelab replay --policy P: several rules decided together (policy.h).
# Hand-worked answers per rule with --explain, the list form of the HTTP
# fields with --headers, ':units' rules counting COST, a policy of one rule
# deciding as --limit/--window, and bad policies refused with exit 2.
# $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# gcra 2 per s (T = 0.5 s) and 3 per hour (T = 1200 s): the third request
# at 0 waits for rule 1 (0.5 s), and takes nothing from rule 2; from the
# fourth on, rule 2 binds (TAT 3600 s: 1199 s to wait at 1 s)
run_ok gcra_two_rules $'0 a\n0 a\n0 a\n500000000 a\n1000000000 a\n2000000000 a\n' \
"1 remaining=1 retry_after_ns=0 reset_ns=1200000000000 rule1=1 rule1.remaining=1 rule1.retry_after_ns=0 rule1.reset_ns=500000000 rule2=1 rule2.remaining=2 rule2.retry_after_ns=0 rule2.reset_ns=1200000000000
1 remaining=0 retry_after_ns=0 reset_ns=2400000000000 rule1=1 rule1.remaining=0 rule1.retry_after_ns=0 rule1.reset_ns=1000000000 rule2=1 rule2.remaining=1 rule2.retry_after_ns=0 rule2.reset_ns=2400000000000
0 remaining=0 retry_after_ns=500000000 reset_ns=3600000000000 rule1=0 rule1.remaining=0 rule1.retry_after_ns=500000000 rule1.reset_ns=1000000000 rule2=1 rule2.remaining=0 rule2.retry_after_ns=0 rule2.reset_ns=3600000000000
1 remaining=0 retry_after_ns=0 reset_ns=3599500000000 rule1=1 rule1.remaining=0 rule1.retry_after_ns=0 rule1.reset_ns=1000000000 rule2=1 rule2.remaining=0 rule2.retry_after_ns=0 rule2.reset_ns=3599500000000
0 remaining=0 retry_after_ns=1199000000000 reset_ns=3599000000000 rule1=1 rule1.remaining=0 rule1.retry_after_ns=0 rule1.reset_ns=1000000000 rule2=0 rule2.remaining=0 rule2.retry_after_ns=1199000000000 rule2.reset_ns=3599000000000
0 remaining=0 retry_after_ns=1198000000000 reset_ns=3598000000000 rule1=1 rule1.remaining=1 rule1.retry_after_ns=0 rule1.reset_ns=500000000 rule2=0 rule2.remaining=0 rule2.retry_after_ns=1198000000000 rule2.reset_ns=3598000000000" \
	replay --algo gcra --policy '2/1s+3/1h' --explain

# without --explain: the verdicts alone; keys apart
run_ok verdicts $'0 a\n0 b\n0 a\n0 a\n0 b\n' "1
1
1
0
1" replay --algo fixed_window --policy '2/1s + 10/1h'

# 3 requests and 100 units per 1000 ns (sliding_log): 60 units, 41 more
# refused (rule 2 waits until the 60 leave at 1000), 40 pass, then rule 2
# is out; the HTTP fields list both rules
run_ok units_headers $'0 a 60\n5 a 41\n6 a 40\n7 a 1\n' \
"1
HTTP/1.1 200 OK
RateLimit-Policy: \"rule1\";q=3;w=1, \"rule2\";q=100;w=1
RateLimit: \"rule1\";r=2;t=1, \"rule2\";r=40;t=1

0
HTTP/1.1 429 Too Many Requests
RateLimit-Policy: \"rule1\";q=3;w=1, \"rule2\";q=100;w=1
RateLimit: \"rule1\";r=1;t=1, \"rule2\";r=40;t=1
Retry-After: 1

1
HTTP/1.1 200 OK
RateLimit-Policy: \"rule1\";q=3;w=1, \"rule2\";q=100;w=1
RateLimit: \"rule1\";r=1;t=1, \"rule2\";r=0;t=1

0
HTTP/1.1 429 Too Many Requests
RateLimit-Policy: \"rule1\";q=3;w=1, \"rule2\";q=100;w=1
RateLimit: \"rule1\";r=0;t=1, \"rule2\";r=0;t=1
Retry-After: 1" replay --algo sliding_log --policy '3/1000ns+100/1000ns:units' --headers

# a rule without :units counts a request as 1 whatever its cost
run_ok cost_ignored $'0 a 50\n0 a 50\n0 a 50\n' "1
1
0" replay --algo token_bucket --policy '2/1s'

# a policy of one rule (counting units) decides and answers as --limit/--window
trace=$'0 k 1\n3 k 2\n3 j 1\n7 k 1\n50 k 4\n99 k 1\n100 k 3\n101 k 1\n150 j 5\n151 k 6\n'
for algo in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	want=$(printf '%s' "$trace" | "$ratelab" replay --algo "$algo" --limit 5 --window 100ns --explain)
	got=$(printf '%s' "$trace" | "$ratelab" replay --algo "$algo" --policy 5/100ns:units --explain | sed 's/ rule1=.*//')
	[ "$got" = "$want" ] || fail "one_rule_$algo: --policy 5/100ns:units
--- got:
$got
--- want:
$want"
done

# --shadow: every request prints 1; --explain keeps the enforcing answer and
# adds would_reject=1 where enforcing printed 0; stderr counts them
for algo in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	for rule in "--limit 5 --window 100ns" "--policy 5/100ns:units+7/300ns"; do
		# shellcheck disable=SC2086
		enforce=$(printf '%s' "$trace" | "$ratelab" replay --algo "$algo" $rule --explain)
		want=$(printf '%s\n' "$enforce" | awk '{ w = $1 == "0"; $1 = "1"; sub(/( rule1=| delay_ns=|$)/, " would_reject=" w "&") } 1' |
		       sed -E 's/ would_reject=([01]) delay_ns=([0-9]+)/ delay_ns=\2 would_reject=\1/')
		# shellcheck disable=SC2086
		got=$(printf '%s' "$trace" | "$ratelab" replay --algo "$algo" $rule --explain --shadow 2>"$tmp/err")
		[ "$got" = "$want" ] || fail "shadow_$algo ($rule):
--- got:
$got
--- want:
$want"
		n=$(printf '%s\n' "$enforce" | grep -c '^0')
		[ "$(cat "$tmp/err")" = "ratelab replay: shadow: would_reject=$n of 10 requests" ] ||
			fail "shadow_$algo ($rule): stderr $(cat "$tmp/err"), want $n of 10"
	done
done
# 200 without Retry-After, the fields as they would be
got=$(printf '0 a\n0 a\n' | "$ratelab" replay --algo fixed_window --limit 1 --window 1s --headers --shadow 2>"$tmp/err")
[ "$got" = "1
HTTP/1.1 200 OK
RateLimit-Policy: \"default\";q=1;w=1
RateLimit: \"default\";r=0;t=1

1
HTTP/1.1 200 OK
RateLimit-Policy: \"default\";q=1;w=1
RateLimit: \"default\";r=0;t=1" ] || fail "shadow_headers: got
$got"
grep -qx 'ratelab replay: shadow: would_reject=1 of 2 requests' "$tmp/err" || fail "shadow_headers: stderr $(cat "$tmp/err")"

# bad NAME INPUT WANT ARGS... -- NEEDLE...: see run_bad in lib/harness.sh.
bad() { local n=$1 i=$2 w=$3; shift 3; run_bad "$n" "$i" "$w" replay "$@"; }
bad nine_rules $'0 a\n' "" --algo gcra --policy '1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s' -- \
	"--policy: '1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s' has 9 rules (at most 8)"
bad bad_rule $'0 a\n' "" --algo gcra --policy '10/1s+0/1h' -- \
	"--policy: '10/1s+0/1h': rule 2: '0/1h': the limit '0' is out of range [1, 1000000000000]"
bad empty_rule $'0 a\n' "" --algo gcra --policy '10/1s++1/1h' -- "rule 2 is empty"
bad units_without_cost $'0 a 5\n1 a\n' "1" --algo gcra --policy '10/1s+100/1s:units' -- \
	"line 2" "'1 a'" "no COST" "rule 2" "':units'"
bad burst_no_bucket $'0 a\n' "" --algo fixed_window --policy '10/1s:b20' -- \
	"--policy: rule 1: a burst does not apply to fixed_window"
bad with_limit $'0 a\n' "" --algo gcra --policy 1/1s --limit 2 -- "--policy replaces --limit, --window and --burst"
bad without_algo $'0 a\n' "" --policy 1/1s -- "--policy needs --algo"
bad with_config $'0 a\n' "" --policy 1/1s --config /dev/null -- "--policy and --config exclude each other"
bad redis_batch $'0 a\n' "" --algo gcra --policy 1/1s --redis 127.0.0.1:1 --redis-batch 5 -- \
	"--redis-batch: with --policy each line is one round trip"
bad shadow_config $'0 a\n' "" --shadow --config /dev/null -- "--shadow takes --limit/--window or --policy (not --config)"

finish replay_policy
