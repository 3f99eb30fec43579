#!/bin/bash
# ratelab theory: each algorithm's closed-form rejection probability for
# Poisson traffic, checked against values computed here independently
# (Erlang B by its recursion, M/D/1/1 as rho / (1 + rho), leaky_bucket's B
# as token_bucket's B + 1); a load of 0 or over 10000% and malformed rules
# refused with the words the other commands use. $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# value ALGO OUTPUT: the number printed for ALGO
value() { printf '%s\n' "$2" | awk -v a="$1" '$1 == a { print $2 }'; }

out=$("$ratelab" theory --rule 10/1s --load 80% 2>"$tmp/err") || fail "10/1s 80%: exit $? ($(cat "$tmp/err"))"
[ -s "$tmp/err" ] && fail "stderr not empty: $(cat "$tmp/err")"
head -1 <<<"$out" | grep -qx '# Poisson arrivals on one key at 80% of 10/1s (8 per second), burst 10' ||
	fail "header: $(head -1 <<<"$out")"
algos=$(tail -n +2 <<<"$out" | awk '{ print $1 }' | tr '\n' ' ')
[ "$algos" = "token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter " ] ||
	fail "algorithms: $algos"
grep -qx 'sliding_counter no closed form' <<<"$out" || fail "sliding_counter: $out"
# Erlang B(10, 8) by B(n) = A B(n-1) / (n + A B(n-1))
erlang=$(awk 'BEGIN { b = 1; for (n = 1; n <= 10; n++) b = 8 * b / (n + 8 * b); printf "%.6g", b }')
[ "$(value sliding_log "$out")" = "$erlang" ] || fail "sliding_log $(value sliding_log "$out"), Erlang B $erlang"
[ "$(value gcra "$out")" = "$(value token_bucket "$out")" ] || fail "gcra differs from token_bucket at 10/1s"

# M/D/1/1: rho / (1 + rho); leaky_bucket with B is token_bucket with B + 1
out1=$("$ratelab" theory --rule 60/1m:b1 --load 150%) || fail "60/1m:b1: exit $?"
[ "$(value token_bucket "$out1")" = 0.6 ] || fail "M/D/1/1 at 150%: $(value token_bucket "$out1")"
out2=$("$ratelab" theory --rule 60/1m:b2 --load=99.5) || fail "60/1m:b2: exit $?"
out3=$("$ratelab" theory --rule 60/1m:b3 --load=99.5) || fail "60/1m:b3: exit $?"
[ "$(value leaky_bucket "$out2")" = "$(value token_bucket "$out3")" ] ||
	fail "leaky_bucket B=2 $(value leaky_bucket "$out2") vs token_bucket B=3 $(value token_bucket "$out3")"
# more load, more rejected
lo=$(value fixed_window "$("$ratelab" theory --rule 100/1s --load 90%)")
hi=$(value fixed_window "$("$ratelab" theory --rule 100/1s --load 110%)")
awk -v a="$lo" -v b="$hi" 'BEGIN { exit !(a < b) }' || fail "fixed_window 90% $lo not below 110% $hi"
# the edges of the load range
"$ratelab" theory --rule 1000000/1s --load 10000% >/dev/null || fail "10000%: exit $?"
"$ratelab" theory --rule 1/1h --load 0.01% >/dev/null || fail "0.01%: exit $?"
"$ratelab" theory --help | grep -q -- '--rule N/W\[:bB\]' || fail "--help lacks --rule"

bad() { local n=$1; shift; run_bad "$n" "" "" theory "$@"; }
r=(--rule 10/1s)
bad load_zero "${r[@]}" --load 0% -- "--load '0%' is out of range"
bad load_zero_bare "${r[@]}" --load 0 -- "--load '0' is out of range"
bad load_over "${r[@]}" --load 10001% -- "--load '10001%' is out of range [0.01%, 10000%]"
bad load_word "${r[@]}" --load lots -- "--load 'lots' is not a load"
bad load_negative "${r[@]}" --load -5% -- "--load '-5%' is not a load"
bad load_exponent "${r[@]}" --load 1e2% -- "--load '1e2%' is not a load"
bad no_load "${r[@]}" -- "--rule and --load are required"
bad no_rule --load 80% -- "--rule and --load are required"
bad no_slash --rule 10 --load 80% -- "--rule '10' is not a rule" "10/1s"
# the limit, window and burst get replay's words for --limit, --window, --burst
bad limit_word --rule x/1s --load 80% -- "the limit 'x' is not an integer"
bad limit_zero --rule 0/1s --load 80% -- "the limit '0' is out of range [1, 1000000000000]"
bad limit_big --rule 1000000000001/1s --load 80% -- "the limit '1000000000001' is out of range [1, 1000000000000]"
bad window_no_unit --rule 10/60 --load 80% -- "the window '60' has no unit" "ns, us, ms, s, m, h"
bad window_word --rule 10/soon --load 80% -- "the window 'soon' is not a duration"
bad window_zero --rule 10/0s --load 80% -- "the window '0s' is out of range"
bad burst_zero --rule 10/1s:b0 --load 80% -- "the burst '0' is out of range [1, 1000000000000]"
bad burst_no_b --rule 10/1s:5 --load 80% -- "the burst '5' is not bB"
bad burst_word --rule 10/1s:bx --load 80% -- "the burst 'x' is not an integer"
bad extra_argument "${r[@]}" --load 80% extra -- "unexpected argument 'extra'"
bad unknown_option "${r[@]}" --load 80% --algo gcra -- "unknown option"
# replay words a bad limit the same way
run_bad replay_same_words "" "" replay --algo gcra --limit x --window 1s -- "--limit 'x' is not an integer"

finish theory
