#!/bin/bash
# ratelab study: every option's bad input refused before anything is read
# or written, with one message in cli.c's words and exit 2; a --out that is
# holding a file no earlier study wrote is refused, never emptied. $1 is the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

printf '0 a\n1000 b\n' >"$tmp/t.trace"
t=$tmp/t.trace
o=$tmp/out
run_bad "no trace" "" "" study --rules 10/1s --out "$o" -- "--trace FILE is required"
run_bad "no rules" "" "" study --trace "$t" --out "$o" -- "--rules R[,R...] or --windows W[,W...] is required"
run_bad "window no unit" "" "" study --trace "$t" --windows 1m,60 --out "$o" -- "--windows: the window '60' has no unit"
run_bad "empty window" "" "" study --trace "$t" --windows 1m,,1h --out "$o" -- "--windows '1m,,1h' is not a comma-separated list of durations"
run_bad "window twice" "" "" study --trace "$t" --windows 1m,60s --out "$o" -- "--windows: the window '60s' is given twice"
run_bad "window 0" "" "" study --trace "$t" --windows 0s --out "$o" -- "--windows: the window '0s' is out of range"
run_bad "target fraction" "" "" study --trace "$t" --windows 1m --target-keys 0.99 --out "$o" -- "--target-keys '0.99' is not a share of keys P% with 0 < P <= 100"
run_bad "target 0" "" "" study --trace "$t" --windows 1m --target-keys 0% --out "$o" -- "--target-keys '0%' is not a share of keys"
run_bad "target 3 decimals" "" "" study --trace "$t" --windows 1m --target-keys 99.125% --out "$o" -- "at most two decimals"
run_bad "shard without rules" "" "" study --trace "$t" --windows 1m --shard 0/2 --out "$o" -- "--shard needs --rules"
run_bad "no out" "" "" study --trace "$t" --rules 10/1s -- "--out DIR is required"
run_bad "window 0" "" "" study --trace "$t" --rules 10/0s --out "$o" -- "--rules: '10/0s': the window '0s' is out of range [1ns, 1000000000000000000ns]"
run_bad "limit 0" "" "" study --trace "$t" --rules 0/1s --out "$o" -- "--rules: '0/1s': the limit '0' is out of range [1, 1000000000000]"
run_bad "no unit" "" "" study --trace "$t" --rules 10/1 --out "$o" -- "--rules: '10/1': the window '1' has no unit"
run_bad "no slash" "" "" study --trace "$t" --rules 10 --out "$o" -- "--rules: '10' is not a rule (N/W or N/W:bB"
run_bad "bad burst" "" "" study --trace "$t" --rules 10/1s:120 --out "$o" -- "--rules: '10/1s:120': the burst '120' is not bB"
run_bad "burst 0" "" "" study --trace "$t" --rules 10/1s:b0 --out "$o" -- "--rules: '10/1s:b0': the burst '0' is out of range [1, 1000000000000]"
run_bad "bad window" "" "" study --trace "$t" --rules 10/1x --out "$o" -- "--rules: '10/1x': the window '1x' is not a duration"
run_bad "empty rule" "" "" study --trace "$t" --rules 10/1s,,60/1m --out "$o" -- "--rules '10/1s,,60/1m' is not a comma-separated list"
run_bad "rule twice" "" "" study --trace "$t" --rules 10/1s,10/1s --out "$o" -- "rule '10/1s' is given twice"
run_bad "unknown algo" "" "" study --trace "$t" --rules 10/1s --algos gcra,nope --out "$o" -- \
	"unknown algorithm 'nope'" "token_bucket, gcra, leaky_bucket, fixed_window, sliding_log, sliding_counter"
run_bad "algo twice" "" "" study --trace "$t" --rules 10/1s --algos gcra,gcra --out "$o" -- "'gcra' is given twice"
run_bad "jobs 0" "" "" study --trace "$t" --rules 10/1s --jobs 0 --out "$o" -- "--jobs '0' is out of range [1, 64]"
run_bad "jobs x" "" "" study --trace "$t" --rules 10/1s --jobs x --out "$o" -- "--jobs 'x' is not an integer"
run_bad "shard 3/2" "" "" study --trace "$t" --rules 10/1s --shard 3/2 --out "$o" -- "--shard '3/2' is out of range"
run_bad "shard 0/0" "" "" study --trace "$t" --rules 10/1s --shard 0/0 --out "$o" -- "--shard '0/0' is out of range"
run_bad "shard x" "" "" study --trace "$t" --rules 10/1s --shard 1 --out "$o" -- "--shard '1' is not I/K"
run_bad "shard -1" "" "" study --trace "$t" --rules 10/1s --shard -1/2 --out "$o" -- "--shard '-1/2' is not I/K"
run_bad "empty decider" "" "" study --trace "$t" --rules 10/1s --decider ' ' --out "$o" -- "--decider needs a command"
run_bad "decider no value" "" "" study --trace "$t" --rules 10/1s --out "$o" --decider -- "option '--decider' needs a value"
run_bad "name without decider" "" "" study --trace "$t" --rules 10/1s --decider-name x --out "$o" -- "--decider-name is given without --decider"
run_bad "bad decider name" "" "" study --trace "$t" --rules 10/1s --decider cat --decider-name X --out "$o" -- "--decider-name 'X'"
run_bad "names count" "" "" study --trace "$t" --rules 10/1s --decider cat --decider-name a,b --out "$o" -- "names 2 deciders, but 1"
run_bad "decider timeout" "" "" study --trace "$t" --rules 10/1s --decider cat --decider-timeout 5 --out "$o" -- "--decider-timeout '5' has no unit"
run_bad "unknown option" "" "" study --trace "$t" --rules 10/1s --seed 1 --out "$o" -- "unknown option or argument '--seed'"
run_bad "option twice" "" "" study --trace "$t" --trace "$t" --rules 10/1s --out "$o" -- "option --trace given twice"
run_bad "positional" "" "" study --trace "$t" --rules 10/1s --out "$o" extra -- "unexpected argument 'extra'"
run_bad "merge with trace" "" "" study --merge "$tmp" --trace "$t" --out "$o" -- "--merge takes the shard directories and --out only, not --trace"
run_bad "merge no dirs" "" "" study --merge --out "$o" -- "--merge needs the shard directories"
run_bad "bad key" "" "" study --trace "$t" --key nope --rules 10/1s --out "$o" -- "--key 'nope' is not ip, user, path or ip+path"
: >"$tmp/empty.trace"
"$ratelab" study --trace "$tmp/empty.trace" --rules 10/1s --out "$o" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "empty trace: exit $rc, want 2"
[ "$(tail -1 "$tmp/err")" = "ratelab study: '$tmp/empty.trace' holds no request" ] ||
	fail "empty trace: $(cat "$tmp/err")"
run_bad "missing trace" "" "" study --trace "$tmp/none" --rules 10/1s --out "$o" -- "$tmp/none"
[ -e "$o" ] && fail "a refused study wrote $o"

# -- --out: a file, a directory holding something else
touch "$tmp/file"
run_bad "out a file" "" "" study --trace "$t" --rules 10/1s --out "$tmp/file" -- "--out '$tmp/file' is not a directory"
mkdir "$tmp/mine"
echo precious >"$tmp/mine/notes.txt"
run_bad "out not a study" "" "" study --trace "$t" --rules 10/1s --out "$tmp/mine" -- \
	"--out '$tmp/mine' holds '$tmp/mine/notes.txt', which no earlier \`ratelab study\` wrote there"
[ "$(cat "$tmp/mine/notes.txt")" = precious ] || fail "a refused --out was changed"
# an empty directory, and a new one whose parents are made, are fine
mkdir "$tmp/empty"
"$ratelab" study --trace "$t" --rules 10/1s --quiet --out "$tmp/empty" 2>/dev/null || fail "an empty --out refused"
"$ratelab" study --trace "$t" --rules 10/1s --quiet --out "$tmp/a/b/c" 2>/dev/null || fail "a new nested --out refused"
[ -s "$tmp/a/b/c/study.csv" ] || fail "no study in the nested --out"

# -- help
"$ratelab" study --help >"$tmp/help" || fail "--help exit $?"
grep -q -- "--shard I/K" "$tmp/help" || fail "--help lacks --shard"

finish study_errors
