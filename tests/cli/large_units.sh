#!/bin/bash
# Rules of units up to 10^12 (bytes, tokens; rule.h): replay with a limit of
# 10^12 decides exactly, study counts a log's bytes against 5 * 10^9 per
# hour, and one past 10^12 is refused with the usual words, exit 2.
# $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# token_bucket 10^12 per s: 10^12 units at 0 empty it; 1000 are back 1 ns
# later, 10^9 - 2 more 10^6 ns later
run_ok replay_tera $'0 a 1000000000000\n1 a 1\n1000000 a 1\n1000000 b 1000000000000\n' \
"1 remaining=0 retry_after_ns=0 reset_ns=1000000000
1 remaining=999 retry_after_ns=0 reset_ns=1000000000
1 remaining=999999998 retry_after_ns=0 reset_ns=999000001
1 remaining=0 retry_after_ns=0 reset_ns=1000000000" \
	replay --algo token_bucket --limit 1000000000000 --window 1s --explain

# sliding_log, the same rule: a run of 10^12 - 1 units and one of 1; at 1 s
# the first has left, the unit at 5 ns keeps 10^12 out for 5 ns more
run_ok replay_tera_log $'0 a 999999999999\n5 a 2\n5 a 1\n1000000000 a 1000000000000\n' \
"1 remaining=1 retry_after_ns=0 reset_ns=1000000000
0 remaining=1 retry_after_ns=999999995 reset_ns=999999995
1 remaining=0 retry_after_ns=0 reset_ns=1000000000
0 remaining=999999999999 retry_after_ns=5 reset_ns=5" \
	replay --algo sliding_log --limit 1000000000000 --window 1s --explain

run_bad replay_limit_past "0 a" "" replay --algo gcra --limit 1000000000001 --window 1s -- \
	"--limit '1000000000001' is out of range [1, 1000000000000]"
run_bad replay_burst_past "0 a" "" replay --algo gcra --limit 1 --window 1s --burst 1000000000001 -- \
	"--burst '1000000000001' is out of range [1, 1000000000000]"
run_bad replay_cost_past $'0 a 1000000000001\n' "" replay --algo gcra --limit 1 --window 1s -- \
	"cost '1000000000001' is not an integer in [1, 1000000000000]"

# study: a log of bytes (combined format), 6 * 10^9 bytes from one client in
# an hour, against 5 * 10^9 per hour: its second request is refused
cat >"$tmp/log" <<'LOG'
10.0.0.1 - - [05/Dec/2026:10:00:00 +0000] "GET /a HTTP/1.1" 200 3000000000 "-" "x"
10.0.0.1 - - [05/Dec/2026:10:00:01 +0000] "GET /a HTTP/1.1" 200 3000000000 "-" "x"
10.0.0.2 - - [05/Dec/2026:10:00:02 +0000] "GET /b HTTP/1.1" 200 1000 "-" "x"
LOG
"$ratelab" study --trace "$tmp/log" --cost-field bytes --rules 5000000000/1h --out "$tmp/o" --quiet \
	2>"$tmp/err" || fail "study: exit $? ($(cat "$tmp/err"))"
for algo in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	grep -q "^5000000000/1h,$algo,10.0.0.1,6000000000,3000000000," "$tmp/o/clients.csv" ||
		fail "study: no row of $algo refusing 3 * 10^9 of 10.0.0.1's 6 * 10^9 bytes: $(grep "^5000000000/1h,$algo," "$tmp/o/clients.csv")"
done
run_bad study_limit_past "" "" study --trace "$tmp/log" --cost-field bytes --rules 1000000000001/1h --out "$tmp/o2" -- \
	"--rules: '1000000000001/1h': the limit '1000000000001' is out of range [1, 1000000000000]"
[ -e "$tmp/o2" ] && fail "study_limit_past: wrote $tmp/o2"

finish large_units
