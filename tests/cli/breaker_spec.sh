#!/bin/bash
# ratelab breaker: the spec's three examples, exactly (Example 3 as the issue
# corrects it: with requestLimit = 2 the first two calls at t = 100 are
# allowed), plus transitions, durations with units, comments and --help.
# $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# expect NAME INPUT WANT ARGS...: see run_ok in lib/harness.sh.
expect() { local n=$1 i=$2 w=$3; shift 3; run_ok "$n" "$i" "$w" breaker "$@"; }

expect example_1 'handle 1
handle 2
handle 4
handle 5
state 7
state 10
handle 10
state 10
' 'ALLOWED,CLOSED
ALLOWED,CLOSED
ALLOWED,CLOSED
REJECTED,CLOSED
OPEN
HALF_OPEN
ALLOWED,HALF_OPEN
CLOSED' --limit 3 --window 10 --open 5

expect example_2 'handle 1
handle 3
handle 6
handle 7
' 'ALLOWED,CLOSED
ALLOWED,CLOSED
ALLOWED,CLOSED
REJECTED,CLOSED' --limit 2 --window 5 --open 3

expect example_3_corrected 'handle 100
handle 100
handle 100
state 100
' 'ALLOWED,CLOSED
ALLOWED,CLOSED
REJECTED,CLOSED
OPEN' --limit 2 --window 10 --open 4

# every state and transition; rejections while OPEN do not restart the
# timer; the probe's new window holds only the probe
expect transitions 'state 0
handle 0
handle 1
handle 2
handle 3
handle 11
state 11
state 12
state 500
handle 500
state 500
handle 500
handle 500
handle 509
handle 510
' 'CLOSED
ALLOWED,CLOSED
ALLOWED,CLOSED
REJECTED,CLOSED
REJECTED,OPEN
REJECTED,OPEN
OPEN
HALF_OPEN
HALF_OPEN
ALLOWED,HALF_OPEN
CLOSED
ALLOWED,CLOSED
REJECTED,CLOSED
REJECTED,OPEN
ALLOWED,HALF_OPEN' --limit 2 --window 100 --open 10

# comments, blank lines, tabs and CRLF are fine; the window is (t - W, t]
expect window_edge $'# limit 1 per 10 s\n\nhandle 0\n\thandle\t10\r\n  # x\nhandle 19\n' \
	'ALLOWED,CLOSED
ALLOWED,CLOSED
REJECTED,CLOSED' --limit 1 --window 10 --open 100

# durations: bare integers are seconds; units s, m, h (whole seconds)
for pair in 60:60 60s:60 1m:60 2m:120 1h:3600; do
	w=${pair%%:*} x=${pair#*:}
	expect "window_$w" "handle 0
handle $((x - 1))
state $((2 * x - 2))
state $((2 * x - 1))
" 'ALLOWED,CLOSED
REJECTED,CLOSED
OPEN
HALF_OPEN' --limit 1 --window "$w" --open "$w"
	expect "window_${w}_edge" "handle 0
handle $x
" 'ALLOWED,CLOSED
ALLOWED,CLOSED' --limit 1 --window "$w" --open 1
done
expect open_1000ms 'handle 0
handle 0
state 1
' 'ALLOWED,CLOSED
REJECTED,CLOSED
HALF_OPEN' --limit 1 --window 1 --open 1000ms

# the largest parameters and timestamps
expect largest 'handle 0
handle 0
state 999999999
state 1000000000
handle 1000000000
' 'ALLOWED,CLOSED
REJECTED,CLOSED
OPEN
HALF_OPEN
ALLOWED,HALF_OPEN' --limit 1 --window 1000000000 --open 1000000000
# the limit of a million reached at one timestamp
awk 'BEGIN { for (i = 0; i < 1000001; i++) print "handle 7"; print "state 7" }' >"$tmp/m"
out=$("$ratelab" breaker --limit 1000000 --window 1000000000 --open 1000000000 <"$tmp/m" | sort | uniq -c | awk '{ print $1, $2 }')
[ "$out" = "1000000 ALLOWED,CLOSED
1 OPEN
1 REJECTED,CLOSED" ] || fail "a million at one timestamp: $out"

expect empty '' '' --limit 1 --window 1 --open 1

# -h is --help
cmp -s <("$ratelab" breaker -h) <("$ratelab" breaker --help) || fail "breaker -h differs from --help"
cmp -s <("$ratelab" replay -h) <("$ratelab" replay --help) || fail "replay -h differs from --help"
# --help
out=$("$ratelab" breaker --help 2>&1); rc=$?
[ $rc -eq 0 ] || fail "breaker --help: exit $rc"
for word in --limit --window --open handle state; do
	grep -q -- "$word" <<<"$out" || fail "breaker --help does not mention $word"
done
out=$("$ratelab" --help 2>&1); rc=$?
[ $rc -eq 0 ] || fail "ratelab --help: exit $rc"
for word in breaker replay; do
	grep -q -- "$word" <<<"$out" || fail "ratelab --help does not mention $word"
done
"$ratelab" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "ratelab with no command: exit $rc, want 2"
err=$("$ratelab" nope 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "ratelab nope: exit $rc, want 2"
grep -q "'nope'" <<<"$err" || fail "ratelab nope: message does not name it: $err"

finish breaker_spec
