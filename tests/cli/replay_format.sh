#!/bin/bash
# ratelab replay: the exact output of every algorithm on one hand-worked
# trace (N = 2 per 10 ns, B = 2), with and without --explain; duration
# suffixes; comments and blank lines; --help. $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# expect NAME WANT INPUT ARGS...: see run_ok in lib/harness.sh.
expect() { local n=$1 w=$2 i=$3; shift 3; run_ok "$n" "$i" "$w" "$@"; }

# The trace: key a unless noted; line 6 goes back in time (clamped to 5);
# a comment, a blank line and an indented comment are skipped.
trace='0 a
0 a
0 a
3 b
# a comment
5 a

   # indented comment
2 a
10 a
25 a
'
verdicts() { cut -d' ' -f1 <<<"$1"; }

# token_bucket: 2 tokens, one back every 5 ns
tb='1 remaining=1 retry_after_ns=0 reset_ns=5
1 remaining=0 retry_after_ns=0 reset_ns=10
0 remaining=0 retry_after_ns=5 reset_ns=10
1 remaining=1 retry_after_ns=0 reset_ns=5
1 remaining=0 retry_after_ns=0 reset_ns=10
0 remaining=0 retry_after_ns=5 reset_ns=10
1 remaining=0 retry_after_ns=0 reset_ns=10
1 remaining=1 retry_after_ns=0 reset_ns=5'
expect token_bucket_explain "$tb" "$trace" replay --algo token_bucket --limit 2 --window 10ns --explain
expect token_bucket "$(verdicts "$tb")" "$trace" replay --algo token_bucket --limit 2 --window 10ns
# gcra: N divides W, so exactly token_bucket's answers
expect gcra_explain "$tb" "$trace" replay --algo gcra --limit 2 --window 10ns --burst 2 --explain
expect gcra "$(verdicts "$tb")" "$trace" replay --algo gcra --limit 2 --window 10ns

# leaky_bucket: served one per 5 ns, at most B = 2 waiting (delay <= 10)
lb='1 remaining=2 retry_after_ns=0 reset_ns=5 delay_ns=0
1 remaining=1 retry_after_ns=0 reset_ns=10 delay_ns=5
1 remaining=0 retry_after_ns=0 reset_ns=15 delay_ns=10
1 remaining=2 retry_after_ns=0 reset_ns=5 delay_ns=0
1 remaining=0 retry_after_ns=0 reset_ns=15 delay_ns=10
0 remaining=0 retry_after_ns=5 reset_ns=15 delay_ns=0
1 remaining=0 retry_after_ns=0 reset_ns=15 delay_ns=10
1 remaining=2 retry_after_ns=0 reset_ns=5 delay_ns=0'
expect leaky_bucket_explain "$lb" "$trace" replay --algo leaky_bucket --limit 2 --window 10ns --explain
expect leaky_bucket "$(verdicts "$lb")" "$trace" replay --algo leaky_bucket --limit 2 --window 10ns

# fixed_window: windows [0,10), [10,20), [20,30)
fw='1 remaining=1 retry_after_ns=0 reset_ns=10
1 remaining=0 retry_after_ns=0 reset_ns=10
0 remaining=0 retry_after_ns=10 reset_ns=10
1 remaining=1 retry_after_ns=0 reset_ns=7
0 remaining=0 retry_after_ns=5 reset_ns=5
0 remaining=0 retry_after_ns=5 reset_ns=5
1 remaining=1 retry_after_ns=0 reset_ns=10
1 remaining=1 retry_after_ns=0 reset_ns=5'
expect fixed_window_explain "$fw" "$trace" replay --algo fixed_window --limit 2 --window 10ns --explain
expect fixed_window "$(verdicts "$fw")" "$trace" replay --algo fixed_window --limit 2 --window 10ns

# sliding_log: (t - 10, t]
sl='1 remaining=1 retry_after_ns=0 reset_ns=10
1 remaining=0 retry_after_ns=0 reset_ns=10
0 remaining=0 retry_after_ns=10 reset_ns=10
1 remaining=1 retry_after_ns=0 reset_ns=10
0 remaining=0 retry_after_ns=5 reset_ns=5
0 remaining=0 retry_after_ns=5 reset_ns=5
1 remaining=1 retry_after_ns=0 reset_ns=10
1 remaining=1 retry_after_ns=0 reset_ns=10'
expect sliding_log_explain "$sl" "$trace" replay --algo sliding_log --limit 2 --window 10ns --explain
expect sliding_log "$(verdicts "$sl")" "$trace" replay --algo sliding_log --limit 2 --window 10ns

# sliding_counter: prev * (10 - e) + curr * 10 < 20
sc='1 remaining=1 retry_after_ns=0 reset_ns=11
1 remaining=0 retry_after_ns=0 reset_ns=16
0 remaining=0 retry_after_ns=11 reset_ns=16
1 remaining=1 retry_after_ns=0 reset_ns=8
0 remaining=0 retry_after_ns=6 reset_ns=11
0 remaining=0 retry_after_ns=6 reset_ns=11
0 remaining=0 retry_after_ns=1 reset_ns=6
1 remaining=1 retry_after_ns=0 reset_ns=6'
expect sliding_counter_explain "$sc" "$trace" replay --algo sliding_counter --limit 2 --window 10ns --explain
expect sliding_counter "$(verdicts "$sc")" "$trace" replay --algo sliding_counter --limit 2 --window 10ns

# --option=value works as well as --option value, in any order
expect equals_form "$(verdicts "$fw")" "$trace" replay --window=10ns --limit=2 --algo=fixed_window

# Duration suffixes: with fixed_window N = 1 and W = X ns, requests at 0,
# X - 1 and X give 1 0 1, and the first one's reset_ns is X.
for pair in 1ns:1 7ns:7 1us:1000 3us:3000 1ms:1000000 1s:1000000000 \
	2s:2000000000 1m:60000000000 1h:3600000000000 5h:18000000000000 \
	1000000000000000000ns:1000000000000000000; do
	w=${pair%%:*} x=${pair#*:}
	want="1 remaining=0 retry_after_ns=0 reset_ns=$x
0 remaining=0 retry_after_ns=1 reset_ns=1
1 remaining=0 retry_after_ns=0 reset_ns=$x"
	expect "window_$w" "$want" "0 k
$((x - 1)) k
$x k
" replay --algo fixed_window --limit 1 --window "$w" --explain
done

# Keys are any non-blank token, kept apart; tabs and CRLF are fine
expect keys "1
1
1
0
1" $'5 alice\n5 Alice\n5 \xc3\xa9\xc3\xa9\n5\talice\r\n6 /x?y=1\n' replay --algo sliding_log --limit 1 --window 10ns

# An input with no request is bad input (exit 2), in `ratelab import`'s words (issue 40)
run_bad empty "" "" replay --algo gcra --limit 1 --window 1s -- "ratelab replay: standard input holds no request"
run_bad only_comments $'# nothing\n\n   \n#\n' "" replay --algo gcra --limit 1 --window 1s -- \
	"ratelab replay: standard input holds no request"

# --help
out=$("$ratelab" replay --help 2>&1); rc=$?
[ $rc -eq 0 ] || fail "replay --help: exit $rc"
for word in --algo --limit --window --burst --explain token_bucket sliding_counter; do
	grep -q -- "$word" <<<"$out" || fail "replay --help does not mention $word"
done

finish replay_format
