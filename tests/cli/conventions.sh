#!/bin/bash
# The command-line conventions: --version; a file argument or
# '-' for replay, breaker and check; --name=value and --name value, flags
# with =yes/no; a duration without a unit refused with the units named
# (the breaker's seconds excepted), on the command line and in tier and
# scenario files; an option that does not apply is refused; out of range
# numbers say so; an option given twice is refused; quoted text has its
# control bytes escaped and is cut to a readable length.
source "$(dirname "$0")/lib/harness.sh" "$1"

# --version
out=$("$ratelab" --version 2>&1); rc=$?
[ $rc -eq 0 ] || fail "--version: exit $rc"
[[ $out =~ ^ratelab\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version printed '$out'"
"$ratelab" --help | grep -q -- '--version' || fail "ratelab --help does not mention --version"

# A trace from a file argument, from '-', and from standard input agree.
trace=$'0 a\n1 a\n2 a\n1000000000 a\n'
printf '%s' "$trace" >"$tmp/trace.txt"
want=$'1\n1\n0\n1'
run_ok replay_file "" "$want" replay --algo gcra --limit 2 --window 1s "$tmp/trace.txt"
run_ok replay_dash "$trace" "$want" replay --algo gcra --limit 2 --window 1s -
run_ok replay_stdin "$trace" "$want" replay --algo gcra --limit 2 --window 1s
run_ok replay_file_first "" "$want" replay "$tmp/trace.txt" --algo gcra --limit 2 --window 1s
run_ok replay_after_dashdash "" "$want" replay --algo gcra --limit 2 --window 1s -- "$tmp/trace.txt"
run_bad replay_missing_file "" "" replay --algo gcra --limit 2 --window 1s "$tmp/nope.txt" -- \
	"cannot open '$tmp/nope.txt'" "No such file"
run_bad replay_two_files "" "" replay --algo gcra --limit 2 --window 1s "$tmp/trace.txt" "$tmp/trace.txt" -- \
	"unexpected argument '$tmp/trace.txt'"
printf '0 x\n0 x\n' >"$tmp/two.txt"
run_ok replay_config_with_file "" $'1\n1' replay --config ../../examples/tiers.ini "$tmp/two.txt"

printf 'handle 0\nhandle 1\nstate 6\n' >"$tmp/breaker.txt"
bwant=$'ALLOWED,CLOSED\nREJECTED,CLOSED\nHALF_OPEN'
run_ok breaker_file "" "$bwant" breaker --limit 1 --window 60 --open 5 "$tmp/breaker.txt"
run_ok breaker_dash "$(cat "$tmp/breaker.txt")" "$bwant" breaker --limit 1 --window 60 --open 5 -
run_ok breaker_units "" "$bwant" breaker --limit 1 --window 1m --open 5000ms "$tmp/breaker.txt"
run_bad breaker_fraction "" "" breaker --limit 1 --window 1500ms --open 5 -- "--window '1500ms'" \
	"whole number of seconds"

cout=$("$ratelab" check --config ../../examples/tiers.ini) || fail "check --config: exit $?"
run_ok check_file "" "$cout" check ../../examples/tiers.ini
run_ok check_dash "$(cat ../../examples/tiers.ini)" "$cout" check -
run_bad check_both "" "" check --config ../../examples/tiers.ini ../../examples/tiers.ini -- "give the tiers file once"
run_bad check_dash_bad "$(printf '[tier a]\nalgorithm = gcra\nlimit = 1\nwindow = 60\n')" "" check - -- \
	"-:4:" "window '60'" "unit ns, us, ms, s, m or h"

# --name=value, --name value, flags with =yes|no
ewant="1 remaining=1 retry_after_ns=0 reset_ns=500000000"
run_ok equals_forms "0 a" "$ewant" replay --algo=gcra --limit=2 --window=1s --explain
run_ok space_forms "0 a" "$ewant" replay --algo gcra --limit 2 --window 1s --explain
run_ok flag_yes "0 a" "$ewant" replay --algo gcra --limit 2 --window 1s --explain=yes
run_ok flag_true "0 a" "$ewant" replay --algo gcra --limit 2 --window 1s --explain=true
run_ok flag_no "0 a" "1" replay --algo gcra --limit 2 --window 1s --explain=no
run_bad flag_bad_word "0 a" "" replay --algo gcra --limit 2 --window 1s --explain=maybe -- \
	"--explain is a flag" "'maybe'"
"$ratelab" sim --quiet=yes --no-timing=true --out "$tmp/simout" sim/mix.ini >/dev/null 2>"$tmp/err" ||
	fail "sim --quiet=yes --no-timing=true: exit $? ($(cat "$tmp/err"))"
[ -s "$tmp/err" ] && fail "sim --quiet=yes printed progress: $(cat "$tmp/err")"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "decisions_per_sec") c = i; next }
	$c != 0 { bad = 1 } END { exit !(c && !bad) }' "$tmp/simout/summary.csv" ||
	fail "sim --no-timing=true still timed"

# A duration needs a unit: the issue's trap, a window of 60 meaning 60 ns.
run_bad window_bare "$(printf '0 a\n1000 a\n2000 a\n')" "" replay --algo fixed_window --limit 1 --window 60 -- \
	"--window '60' has no unit" "ns, us, ms, s, m, h"
run_bad window_bare_equals "0 a" "" replay --algo gcra --limit 1 --window=60 -- "has no unit" "ns, us, ms, s, m, h"
run_ok window_60s "$(printf '0 a\n1000 a\n60000000000 a\n')" $'1\n0\n1' replay --algo fixed_window --limit 1 --window 60s
printf '[tier a]\nalgorithm = gcra\nlimit = 1\nwindow = 60\n[defaults]\ntier = a\n' >"$tmp/bare.ini"
run_bad config_window_bare "" "" check "$tmp/bare.ini" -- "bare.ini:4:" "window '60'" "ns, us, ms, s, m or h"
printf '[scenario]\nlimit = 10\nwindow = 60\nduration = 5s\n[traffic a]\ntype = constant\n' >"$tmp/bare_sc.ini"
out=$("$ratelab" sim --quiet --out "$tmp/o2" "$tmp/bare_sc.ini" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "scenario bare window: exit $rc"
case $out in *"window = '60'"*"ns, us, ms, s, m or h"*) ;; *) fail "scenario bare window: $out" ;; esac

# An option that does not apply to the algorithm
for a in fixed_window sliding_log sliding_counter; do
	run_bad "burst_$a" "0 a" "" replay --algo $a --limit 2 --window 1s --burst 5 -- \
		"--burst does not apply to $a"
done
run_ok burst_bucket "0 a" "1" replay --algo leaky_bucket --limit 2 --window 1s --burst 5
printf '[tier a]\nalgorithm = fixed_window\nlimit = 1\nwindow = 1s\nburst = 5\n[defaults]\ntier = a\n' >"$tmp/burst.ini"
run_bad config_burst_window "" "" check "$tmp/burst.ini" -- "burst does not apply to fixed_window"

# Out of range numbers
run_bad limit_overflow "0 a" "" replay --algo gcra --limit 99999999999999999999 --window 1s -- \
	"--limit '99999999999999999999' is out of range [1, 1000000000000]"
run_bad limit_negative "0 a" "" replay --algo gcra --limit -3 --window 1s -- "out of range [1, 1000000000000]"
run_bad burst_overflow "0 a" "" replay --algo gcra --limit 1 --window 1s --burst 1000000000001 -- \
	"out of range [1, 1000000000000]"
run_bad window_overflow "0 a" "" replay --algo gcra --limit 1 --window 99999999999999999999h -- \
	"out of range [1ns, 1000000000000000000ns]"
run_bad breaker_limit_range "" "" breaker --limit 0 --window 1 --open 1 -- "--limit '0' is out of range [1, 1000000]"
run_bad breaker_window_range "" "" breaker --limit 1 --window 1000000001 --open 1 -- \
	"--window '1000000001' is out of range [1, 1000000000] seconds"
run_bad sim_seed_range "" "" sim --seed 99999999999999999999 -- "--seed '99999999999999999999' is out of range"
# Leading zeros are a number, as everywhere (parse.h).
run_ok window_leading_zeros "0 a" "1" replay --algo gcra --limit 1 --window "$(printf '%040d' 1)s"

# An option given twice
run_bad limit_twice "0 a" "" replay --algo gcra --limit 1 --window 1s --limit 2 -- "option --limit given twice"
run_bad flag_twice "0 a" "" replay --algo gcra --limit 1 --window 1s --explain --explain -- "option --explain given twice"
run_bad breaker_twice "" "" breaker --limit 1 --window 1 --open 1 --open=2 -- "option --open given twice"
run_bad check_twice "" "" check --config a --config b -- "option --config given twice"
run_bad sim_twice "" "" sim --seed 1 --seed 2 -- "option --seed given twice"

# Unknown options and missing values
run_bad unknown_short "0 a" "" replay -x -- "unknown option '-x'"
run_bad unknown_long "0 a" "" replay --frob=1 -- "'--frob=1'"
run_bad missing_value "0 a" "" replay --algo gcra --limit 1 --window -- "option '--window' needs a value"

# Quoting: control bytes escaped, long text cut
run_bad ctrl_algo "0 a" "" replay --algo $'to\x1b[31mken\n' --limit 1 --window 1s -- \
	"unknown algorithm 'to\\x1b[31mken\\n'"
grep -q $'\x1b' "$tmp/err" && fail "an escape byte reached stderr"
long=$(head -c 1000000 /dev/zero | tr '\0' 'x')
printf '0 a\n%s\x07 b\n' "$long" >"$tmp/long.txt"
run_bad long_line "" "1" replay --algo gcra --limit 1 --window 1s "$tmp/long.txt" -- "line 2:" "...(1000003 bytes)"
[ "$(wc -c <"$tmp/err")" -lt 300 ] || fail "the 1 MB line's message is $(wc -c <"$tmp/err") bytes"
printf '0 a\n\x01\tz\x7f\n' >"$tmp/ctrl.txt"
run_bad ctrl_line "" "1" replay --algo gcra --limit 1 --window 1s "$tmp/ctrl.txt" -- "'\\x01\\tz\\x7f'"
printf 'handle\x02 1\n' >"$tmp/b.txt"
run_bad ctrl_breaker_line "" "" breaker --limit 1 --window 1 --open 1 "$tmp/b.txt" -- "'handle\\x02 1'"

# ... in messages about tier and scenario files too
printf '[tier a]\nalgorithm = tok\x1b[2Jen\n' >"$tmp/ctrl.ini"
run_bad ctrl_config "" "" check "$tmp/ctrl.ini" -- "ctrl.ini:2: unknown algorithm 'tok\\x1b[2Jen'"
grep -q $'\x1b' "$tmp/err" && fail "an escape byte of a tier file reached stderr"
printf '[scenario]\nlimit = 1\x07\nwindow = 1s\n' >"$tmp/ctrl_sc.ini"
run_bad ctrl_scenario "" "" sim --quiet --out "$tmp/o3" "$tmp/ctrl_sc.ini" -- "ctrl_sc.ini:2:" "'1\\x07'"

finish conventions
