#!/bin/bash
# ratelab breaker: every bad line or option exits 2 with exactly one
# message on stderr naming the line number and the offending text, after
# the output for the earlier lines. $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# bad NAME INPUT WANT ARGS... -- NEEDLE...: see run_bad in lib/harness.sh.
bad() { local n=$1 i=$2 w=$3; shift 3; run_bad "$n" "$i" "$w" breaker "$@"; }

args=(--limit 2 --window 10 --open 5)
ok=$'handle 1\nhandle 2\nstate 3\n'
out3=$'ALLOWED,CLOSED\nALLOWED,CLOSED\nCLOSED'

# time going backwards, for handle and for state
bad backwards_handle "${ok}handle 2"$'\n' "$out3" "${args[@]}" -- "line 4" "'handle 2'"
bad backwards_state "${ok}state 0"$'\n' "$out3" "${args[@]}" -- "line 4" "'state 0'"
bad backwards_after_comments $'# c\nhandle 5\n\n#\nhandle 4\nhandle 9\n' "ALLOWED,CLOSED" \
	"${args[@]}" -- "line 5" "'handle 4'"
# malformed lines
bad no_time "${ok}handle"$'\n' "$out3" "${args[@]}" -- "line 4" "'handle'"
bad unknown_call "${ok}reset 4"$'\n' "$out3" "${args[@]}" -- "line 4" "'reset 4'"
bad capitalised "${ok}Handle 4"$'\n' "$out3" "${args[@]}" -- "line 4" "'Handle 4'"
bad extra_token "${ok}handle 4 5"$'\n' "$out3" "${args[@]}" -- "line 4" "'handle 4 5'"
bad bare_time "${ok}4"$'\n' "$out3" "${args[@]}" -- "line 4" "'4'"
bad not_a_number "${ok}handle four"$'\n' "$out3" "${args[@]}" -- "line 4" "'handle four'"
bad decimal "${ok}handle 4.5"$'\n' "$out3" "${args[@]}" -- "line 4" "'handle 4.5'"
bad unit "${ok}handle 4s"$'\n' "$out3" "${args[@]}" -- "line 4" "'handle 4s'"
# out-of-range times (the spec: 0 <= t <= 10^9)
bad negative "${ok}handle -1"$'\n' "$out3" "${args[@]}" -- "line 4" "'handle -1'"
bad too_late "${ok}state 1000000001"$'\n' "$out3" "${args[@]}" -- "line 4" "'state 1000000001'"
bad overflow "${ok}handle 99999999999999999999"$'\n' "$out3" "${args[@]}" -- \
	"line 4" "'handle 99999999999999999999'"
bad first_line $'bogus\nhandle 1\n' "" "${args[@]}" -- "line 1" "'bogus'"

# options
bad missing_open "$ok" "" --limit 2 --window 10 -- "--open"
bad missing_window "$ok" "" --limit 2 --open 10 -- "--window"
bad missing_limit "$ok" "" --window 2 --open 10 -- "--limit"
bad value_missing "$ok" "" --limit 2 --window 10 --open -- "--open"
bad unknown_option "$ok" "" "${args[@]}" --bogus 3 -- "'--bogus'"
bad stray_argument "$ok" "" "${args[@]}" stray -- "'stray'"
bad limit_zero "$ok" "" --limit 0 --window 10 --open 5 -- "--limit" "'0'"
bad limit_too_big "$ok" "" --limit 1000001 --window 10 --open 5 -- "--limit" "'1000001'"
bad limit_not_int "$ok" "" --limit two --window 10 --open 5 -- "--limit" "'two'"
bad window_zero "$ok" "" --limit 1 --window 0 --open 5 -- "--window" "'0'"
bad window_too_big "$ok" "" --limit 1 --window 1000000001 --open 5 -- "--window" "'1000000001'"
bad open_zero "$ok" "" --limit 1 --window 1 --open 0 -- "--open" "'0'"
bad open_too_big "$ok" "" --limit 1 --window 1 --open 1000000001 -- "--open" "'1000000001'"
for d in 10x 1.5 1500ms -5 '' 1S 1d; do
	bad "bad_duration_'$d'" "$ok" "" --limit 1 --window "$d" --open 5 -- "--window" "'$d'"
	bad "bad_open_'$d'" "$ok" "" --limit 1 --window 5 --open "$d" -- "--open" "'$d'"
done

finish breaker_errors
