#!/bin/bash
# ratelab replay: every bad input or option exits 2 with exactly one
# message on stderr that names the line number and the offending text,
# after the output for the earlier lines. $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# bad NAME INPUT WANT ARGS... -- NEEDLE...: see run_bad in lib/harness.sh.
bad() { local n=$1 i=$2 w=$3; shift 3; run_bad "$n" "$i" "$w" replay "$@"; }

ok3=$'0 a\n0 a\n0 a\n'
three=$'1\n1\n0'
args=(--algo sliding_log --limit 2 --window 10ns)

# Malformed lines, after three good ones; line numbers count every line
bad missing_key "${ok3}5"$'\n' "$three" "${args[@]}" -- "line 4" "'5'"
bad three_tokens "${ok3}5 a b"$'\n' "$three" "${args[@]}" -- "line 4" "'5 a b'"
bad not_a_number "${ok3}abc a"$'\n' "$three" "${args[@]}" -- "line 4" "'abc a'"
bad decimal_time "${ok3}1.5 a"$'\n' "$three" "${args[@]}" -- "line 4" "'1.5 a'"
bad plus_sign "${ok3}+1 a"$'\n' "$three" "${args[@]}" -- "line 4" "'+1 a'"
bad exponent "${ok3}1e3 a"$'\n' "$three" "${args[@]}" -- "line 4" "'1e3 a'"
bad unit_on_time "${ok3}5ms a"$'\n' "$three" "${args[@]}" -- "line 4" "'5ms a'"
bad negative_time "${ok3}-1 a"$'\n' "$three" "${args[@]}" -- "line 4" "'-1 a'"
bad time_past_max "${ok3}4000000000000000001 a"$'\n' "$three" "${args[@]}" -- \
	"line 4" "'4000000000000000001 a'"
bad time_overflow "${ok3}99999999999999999999 a"$'\n' "$three" "${args[@]}" -- \
	"line 4" "'99999999999999999999 a'"
bad comments_count_as_lines $'# header\n\n0 a\n  # indented\nnope\n' "1" "${args[@]}" -- \
	"line 5" "'nope'"
bad first_line "x y"$'\n'"0 a"$'\n' "" "${args[@]}" -- "line 1" "'x y'"
bad after_explain "${ok3}oops"$'\n' "1 remaining=1 retry_after_ns=0 reset_ns=10
1 remaining=0 retry_after_ns=0 reset_ns=10
0 remaining=0 retry_after_ns=10 reset_ns=10" "${args[@]}" --explain -- "line 4" "'oops'"
# nothing after the bad line is processed
bad stops_at_error "${ok3}bad"$'\n'"0 b"$'\n' "$three" "${args[@]}" -- "line 4" "'bad'"

# A NUL byte is refused, not read as a shorter line; the whole of a long
# line is named
out=$(printf '0 a\n5 a\0junk\n6 a\n' | "$ratelab" replay "${args[@]}" 2>"$tmp/err"); rc=$?
[ $rc -eq 2 ] && [ "$out" = 1 ] && grep -q "line 2: holds a NUL byte" "$tmp/err" ||
	fail "NUL byte: exit $rc, stdout '$out', stderr $(cat "$tmp/err")"
long="5 $(printf '%0300d' 0) tail_token"
bad long_line "${ok3}${long}"$'\n' "$three" "${args[@]}" -- "line 4" "'5 000" "...(313 bytes)"

# The machine failing: a read error or a write error is exit 1 with a message
"$ratelab" replay "${args[@]}" </ >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "ratelab replay: reading input" "$tmp/err" ||
	fail "read error: exit $rc, stderr $(cat "$tmp/err")"
printf '0 a\n' | "$ratelab" replay "${args[@]}" >/dev/full 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "ratelab replay: write error: <stdout>: No space left on device" "$tmp/err" ||
	fail "write error: exit $rc, stderr $(cat "$tmp/err")"

# The largest valid time is fine, one past it is not
out=$(printf '4000000000000000000 a\n' | "$ratelab" replay "${args[@]}" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$out" = 1 ] || fail "t = 4*10^18: exit $rc, output $out"

# Options
bad unknown_algo "$ok3" "" --algo foo --limit 1 --window 1s -- "'foo'"
bad unknown_option "$ok3" "" "${args[@]}" --bogus x -- "'--bogus'"
bad unknown_flag_before_flag "$ok3" "" "${args[@]}" --frob --explain -- "'--frob'"
bad stray_argument "$ok3" "" "${args[@]}" stray -- "'stray'"
bad missing_window "$ok3" "" --algo gcra --limit 1 -- "--window"
bad missing_limit "$ok3" "" --algo gcra --window 1s -- "--limit"
bad missing_algo "$ok3" "" --limit 1 --window 1s -- "--algo"
bad value_missing "$ok3" "" --algo gcra --limit 1 --window -- "--window"
bad value_is_an_option "$ok3" "" --algo gcra --limit --window 1s -- "--limit" "needs a value"
bad limit_zero "$ok3" "" --algo gcra --limit 0 --window 1s -- "limit" "0"
bad limit_too_big "$ok3" "" --algo gcra --limit 1000000000001 --window 1s -- "limit" "1000000000001"
bad limit_not_int "$ok3" "" --algo gcra --limit 2x --window 1s -- "--limit" "'2x'"
bad burst_zero "$ok3" "" --algo token_bucket --limit 1 --window 1s --burst 0 -- "burst" "0"
bad burst_too_big "$ok3" "" --algo leaky_bucket --limit 1 --window 1s --burst 1000000000001 -- \
	"burst" "1000000000001"
bad burst_not_int "$ok3" "" --algo gcra --limit 1 --window 1s --burst many -- "--burst" "'many'"
bad window_zero "$ok3" "" --algo gcra --limit 1 --window 0s -- "--window" "out of range [1ns, 1000000000000000000ns]"
bad window_too_big "$ok3" "" --algo gcra --limit 1 --window 1000000000000000001ns -- \
	"window" "1000000000000000001"
for d in 10x 1.5s -5 1S 's' 'ms5' '10 s' '' 99999999999999999999 9999999999h; do
	bad "bad_duration_'$d'" "$ok3" "" --algo gcra --limit 1 --window "$d" -- "--window" "'$d'"
done

finish replay_errors
