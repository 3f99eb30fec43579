#!/bin/bash
# ratelab sim with policies, shadow mode and settle traces (issue 44): the
# example scenarios of sim/scenarios/policy run; summary.csv's last column
# is would_reject, filled in shadow mode only (all admitted there), the
# earlier columns in their order; a bad policy, mode or settle source exits
# 2 naming file:line and writes nothing; --decider refuses a policy and a
# settle trace. $1 is the ratelab binary.
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "sim_policy: $*" >&2; fails=$((fails + 1)); }

"$bin" sim --quiet --no-timing --out "$tmp/o" "$src"/sim/scenarios/policy/*.ini >"$tmp/out" 2>"$tmp/err" ||
	fail "the policy scenarios exited $?: $(cat "$tmp/err")"
head -1 "$tmp/o/summary.csv" | grep -q ',estimate_diff_pct,would_reject$' || fail "header: $(head -1 "$tmp/o/summary.csv")"
col=$(head -1 "$tmp/o/summary.csv" | tr , '\n' | grep -n '^would_reject$' | cut -d: -f1)
[ "$col" = 33 ] || fail "would_reject is column $col, not 33 (the last, after the 32 before it)"
# shadow: every request admitted, would_reject > 0; enforcing: the column empty
awk -F, -v c="$col" 'NR > 1 && $1 == "policy_api_shadow" && ($7 != $8 || $c + 0 <= 0) { bad = 1 }
	NR > 1 && $1 != "policy_api_shadow" && $c != "" { bad = 1 } END { exit bad }' "$tmp/o/summary.csv" ||
	fail "would_reject or admitted wrong: $(cut -d, -f1,2,7,8,"$col" "$tmp/o/summary.csv")"
# the exact policy's own algorithm: no false allow or reject, with or without settles
awk -F, 'NR > 1 && $2 == "sliding_log" && $1 != "policy_api_shadow" && ($9 != 0 || $11 != 0) { exit 1 }' \
	"$tmp/o/summary.csv" || fail "sliding_log is not exact: $(grep sliding_log "$tmp/o/summary.csv")"
rows=$(($(wc -l <"$tmp/o/summary.csv") - 1))
[ "$rows" -eq 18 ] || fail "expected 18 rows (3 scenarios x 6 algorithms), got $rows"

check() { # name, ini text, expected "line: text" fragment
	printf '%b' "$2" >"$tmp/$1.ini"
	"$bin" sim --quiet --out "$tmp/out_$1" "$tmp/$1.ini" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$1: exit $rc, expected 2"
	grep -qF "$tmp/$1.ini:$3" "$tmp/err" || fail "$1: message '$(cat "$tmp/err")' lacks '$1.ini:$3'"
	[ ! -e "$tmp/out_$1" ] || fail "$1: output written"
}
src_='[traffic x]\ntype = poisson\n'
check with_limit "[scenario]\nlimit = 10\npolicy = 10/1s+100/1m\nduration = 5s\n$src_" \
	"3: 'policy' with 'limit' in [scenario]: policy = RULES replaces limit, window and burst"
check nine "[scenario]\nduration = 5s\npolicy = 1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s\n$src_" \
	"3: policy: '1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s' has 9 rules (at most 8)"
check units_no_cost "[scenario]\nduration = 5s\npolicy = 10/1s+100/1s:units\n$src_" \
	"5: [traffic x]: no cost, and rule 2 of policy counts units (':units')"
check mode "[scenario]\nlimit = 10\nwindow = 1s\nmode = loud\nduration = 5s\n$src_" \
	"4: mode 'loud' is not enforce or shadow"
printf '0 a 5 3 10\n' >"$tmp/s.txt"
check polite_settle "[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\n[traffic x]\ntype = replay\nfile = s.txt\nclient = polite\n" \
	"6: [traffic x]: the trace"
printf '5 a 5 3 1\n' >"$tmp/b.txt" # DONE_T before T: replay's words
printf '[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\n[traffic x]\ntype = replay\nfile = b.txt\n' >"$tmp/bs.ini"
"$bin" sim --quiet --out "$tmp/out_bs" "$tmp/bs.ini" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "bad_settle: exit $rc, expected 2"
[ ! -e "$tmp/out_bs" ] || fail "bad_settle: output written"
# the words of replay for the same line, after the trace's FILE:LINE
"$bin" replay --algo gcra --limit 10 --window 1s <"$tmp/b.txt" >/dev/null 2>"$tmp/rerr"
why=$(sed 's/^ratelab replay: line 1: //' "$tmp/rerr")
grep -qF "$tmp/b.txt:1: $why" "$tmp/err" || fail "bad_settle: '$(cat "$tmp/err")' lacks replay's '$why'"

# a decider carries one rule and no settle
for f in policy/api.ini policy/llm_settle.ini; do
	"$bin" sim --quiet --out "$tmp/d" --decider cat "$src/sim/scenarios/$f" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "--decider with $f: exit $rc, expected 2"
	grep -q -- "--decider: a decider" "$tmp/err" || fail "--decider with $f: $(cat "$tmp/err")"
	[ ! -e "$tmp/d" ] || fail "--decider with $f: output written"
done
[ $fails -eq 0 ] || exit 1
echo "sim_policy: ok"
