#!/bin/bash
# ratelab sim --decider-window: requests pipelined to a decider give the
# lockstep run byte for byte (sim_traffic.h). The decider (decider_chain)
# answers from a hash chain over every request it read, of every key, so a
# request handed out of lockstep order changes every answer after it. On
# scenarios with polite and abusive clients, the adversary's probes, the
# boundary attack's ties, a replayed trace and weighted requests, with
# windows 1 (lockstep), 2 and 4096 and three ways of answering (flush per
# line; one write per block read; answers of 3000 bytes that fill the
# decider's stdout while the simulator writes): every output file equal.
# Then the counts line and bad --decider-window values.
set -u
bin=$1
chain=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "sim_decider_window: FAIL: $*" >&2; fails=$((fails + 1)); }
sc=$(cd "$(dirname "$0")/../../sim/scenarios" && pwd)
scenarios=("$sc/clients.ini" "$sc/adversary.ini" "$sc/boundary.ini" "$sc/constant.ini" "$sc/replay.ini"
	"$sc/weighted/bursty.ini" "$sc/weighted/boundary.ini")

# 3000-byte answers on the smaller scenarios only (a GB through the pipes else)
small=("$sc/adversary.ini" "$sc/replay.ini" "$sc/weighted/boundary.ini")
for mode in line drain pad; do
	set -- "${scenarios[@]}"
	[ $mode = pad ] && set -- "${small[@]}"
	for w in 1 2 4096; do
		"$bin" sim --no-timing --seed 7 --out "$tmp/$mode-$w" --decider "'$chain' $mode" --decider-name chain \
			--decider-window $w "$@" >/dev/null 2>"$tmp/$mode-$w.err" ||
			fail "$mode, window $w: exit $?: $(grep -v 'of virtual time' "$tmp/$mode-$w.err")"
		[ $w = 1 ] && continue
		diff -r "$tmp/$mode-1" "$tmp/$mode-$w" >"$tmp/diff" || fail "$mode, window $w: the run differs from lockstep:
$(head -20 "$tmp/diff")"
	done
	# the answers are the chain's, whatever the way it answers
	[ "$mode" != drain ] || diff -r "$tmp/line-1" "$tmp/$mode-1" >/dev/null || fail "$mode: differs from line"
done
[ "$(awk -F, 'NR > 1' "$tmp/line-1/summary.csv" | wc -l)" -ge 7 ] || fail "too few rows: $(cat "$tmp/line-1/summary.csv")"

# the counts line: lockstep sends none ahead; pipelined, the open-loop constant scenario sends all but one ahead
counts() { grep "^ratelab sim: $1/peer_chain: " "$2"; }
want='^ratelab sim: constant_100/peer_chain: \([0-9]*\) requests to the decider, 0 sent ahead of an answer, [0-9]* waits for one$'
counts constant_100 "$tmp/line-1.err" | grep -q "$want" || fail "window 1 counts: $(counts constant_100 "$tmp/line-1.err")"
line=$(counts constant_100 "$tmp/line-4096.err")
n=$(echo "$line" | sed -n 's/.*: \([0-9]*\) requests to the decider, \([0-9]*\) sent ahead.*/\1 \2/p')
set -- $n
[ $# = 2 ] && [ "$2" -eq $(($1 - 1)) ] || fail "window 4096 counts: $line"
# polite clients hold requests back: fewer sent ahead than requests less one
line=$(counts clients_150 "$tmp/line-4096.err")
n=$(echo "$line" | sed -n 's/.*: \([0-9]*\) requests to the decider, \([0-9]*\) sent ahead.*/\1 \2/p')
set -- $n
[ $# = 2 ] && [ "$2" -gt 0 ] && [ "$2" -lt $(($1 - 1)) ] || fail "clients_150 counts: $line"
"$bin" sim --no-timing --quiet --out "$tmp/q" --decider "'$chain' line" "$sc/constant.ini" >/dev/null 2>"$tmp/q.err" ||
	fail "quiet run exit $?"
[ ! -s "$tmp/q.err" ] || fail "--quiet printed: $(cat "$tmp/q.err")"

# an answer line of 4095 bytes (its newline not counted) is read, one of 4096 refused, pipelined or not
x4088=$(printf 'x%.0s' $(seq 4088))
for w in 1 4096; do
	"$bin" sim --no-timing --quiet --out "$tmp/long$w" --decider-window $w \
		--decider "while read t k; do echo '1 tier=$x4088'; done" "$sc/boundary.ini" >/dev/null 2>"$tmp/long.err" ||
		fail "window $w: a 4095-byte answer refused: $(cat "$tmp/long.err")"
	"$bin" sim --no-timing --quiet --out "$tmp/longer$w" --decider-window $w \
		--decider "while read t k; do echo '1 tier=x$x4088'; done" "$sc/boundary.ini" >/dev/null 2>"$tmp/long.err"
	rc=$?
	[ $rc = 1 ] && grep -q "answered a line longer than 4095 bytes to request '1999999999 0'" "$tmp/long.err" ||
		fail "window $w: a 4096-byte answer: exit $rc, $(cat "$tmp/long.err")"
done

# bad values: exit 2, one line naming the option and the value
for v in 0 65537 -1 abc ''; do
	"$bin" sim --quiet --out "$tmp/opt" --decider true --decider-window "$v" "$sc/constant.ini" >/dev/null 2>"$tmp/opt.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "^ratelab sim: --decider-window" "$tmp/opt.err" && [ "$(wc -l <"$tmp/opt.err")" -eq 1 ] ||
		fail "--decider-window '$v': exit $rc, stderr $(cat "$tmp/opt.err")"
done
[ ! -e "$tmp/opt" ] || fail "a refused option wrote $tmp/opt"
[ $fails -eq 0 ] || { echo "sim_decider_window: $fails check(s) failed"; exit 1; }
echo "sim_decider_window: all checks passed"
