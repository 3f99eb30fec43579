#!/bin/bash
# One trace format (README "Trace format"): `ratelab replay` and the
# simulator's replay sources accept the same traces - a time earlier than
# the previous line's (decided in file order, the algorithm clamping it
# per key), a UTF-8 byte-order mark on the first line, CRLF line endings -
# give the same verdicts on them, and word a bad line the same way. A
# replay source's duration defaults to the trace's span (the last line
# kept); a duration that cuts the trace says how many requests were left
# out; a trace in epoch times is an error pointing to `ratelab import`.
# $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

algos=(token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter)
# scenario FILE TRACE [EXTRA]: a replay scenario of N = 3 per 100 ms over TRACE
scenario() {
	printf '[scenario]\nlimit = 3\nwindow = 100ms\nburst = 2\n%s[traffic t]\ntype = replay\nfile = %s\n' \
		"${3:-}" "$2" >"$1"
}
# admitted OUTDIR ALGO: the summary's admitted count of ALGO
admitted() { awk -F, -v a="$2" 'NR > 1 && $2 == a { print $8 }' "$1/summary.csv"; }
requests() { awk -F, -v a="$2" 'NR > 1 && $2 == a { print $7 }' "$1/summary.csv"; }

# A trace that goes back in time (lines 4, 7 and 9), BOM and CRLF.
body='0 a
10 a
20 b
5 a
150000000 a
150000000 b
100000000 a 2
160000000 a
1 b
310000000 b
'
printf '\xef\xbb\xbf%s' "$(printf '%s' "$body" | sed 's/$/\r/')" >"$tmp/crlf.txt"
printf '%s' "$body" >"$tmp/plain.txt"
for a in "${algos[@]}"; do
	burst=()
	case $a in token_bucket | gcra | leaky_bucket) burst=(--burst 2) ;; esac
	"$ratelab" replay --algo $a --limit 3 --window 100ms "${burst[@]}" "$tmp/plain.txt" >"$tmp/$a.want" 2>"$tmp/err" ||
		fail "replay $a on a trace going back: exit $? ($(cat "$tmp/err"))"
	"$ratelab" replay --algo $a --limit 3 --window 100ms "${burst[@]}" "$tmp/crlf.txt" >"$tmp/$a.crlf" 2>"$tmp/err" ||
		fail "replay $a on BOM + CRLF: exit $? ($(cat "$tmp/err"))"
	cmp -s "$tmp/$a.want" "$tmp/$a.crlf" || fail "replay $a: BOM + CRLF changed the verdicts"
	[ "$(wc -l <"$tmp/$a.want")" -eq 10 ] || fail "replay $a: $(wc -l <"$tmp/$a.want") verdicts, want 10"
done

# The simulator, with no duration: the span, every line decided (the last one too).
for t in plain crlf; do
	scenario "$tmp/$t.ini" $t.txt
	"$ratelab" sim --quiet --no-timing --out "$tmp/out_$t" "$tmp/$t.ini" >"$tmp/sim.out" 2>"$tmp/err" ||
		fail "sim on the $t trace: exit $? ($(cat "$tmp/err"))"
	[ -s "$tmp/err" ] && fail "sim on the $t trace: stderr $(cat "$tmp/err")"
	for a in "${algos[@]}"; do
		[ "$(requests "$tmp/out_$t" $a)" = 10 ] || fail "sim $t $a: requests $(requests "$tmp/out_$t" $a), want 10"
		want=$(grep -c '^1' "$tmp/$a.want")
		[ "$(admitted "$tmp/out_$t" $a)" = "$want" ] ||
			fail "sim $t $a: admitted $(admitted "$tmp/out_$t" $a), replay admits $want"
	done
done
[ "$(sed -n 2p "$tmp/out_plain/series/plain__sliding_log.csv")" != "" ] || fail "no series"

# Verdict by verdict: the simulator's requests, handed to `ratelab replay` as
# its decider, are the trace's lines in file order with their own times.
for a in sliding_log gcra; do
	burst=
	[ $a = gcra ] && burst="--burst 2"
	"$ratelab" sim --quiet --no-timing --out "$tmp/dec_$a" --decider \
		"tee '$tmp/$a.req' | '$ratelab' replay --algo $a --limit 3 --window 100ms $burst --explain | tee '$tmp/$a.ans'" \
		"$tmp/plain.ini" >/dev/null 2>"$tmp/err" || fail "sim --decider replay $a: exit $? ($(cat "$tmp/err"))"
	[ "$(cut -d' ' -f1 "$tmp/$a.req" | paste -sd' ')" = "$(grep -v '^#' "$tmp/plain.txt" | cut -d' ' -f1 | paste -sd' ')" ] ||
		fail "decider $a: times handed $(cut -d' ' -f1 "$tmp/$a.req" | paste -sd' ')"
	[ "$(cut -d' ' -f1 "$tmp/$a.ans")" = "$(cat "$tmp/$a.want")" ] || fail "decider $a: verdicts differ from replay's"
done

# One wording per mistake: the same bad line, the same reason in replay and sim.
for bad in '5' '5 a 1 x' 'abc a' '-1 a' '5 a 0' '4000000000000000001 a'; do
	printf '0 a\n%s\n' "$bad" >"$tmp/bad.txt"
	"$ratelab" replay --algo gcra --limit 1 --window 1s "$tmp/bad.txt" >/dev/null 2>"$tmp/rerr"
	rc=$?
	scenario "$tmp/bad.ini" bad.txt $'duration = 1s\n'
	"$ratelab" sim --quiet --out "$tmp/bad_out" "$tmp/bad.ini" >/dev/null 2>"$tmp/serr"
	src=$?
	[ $rc -eq 2 ] && [ $src -eq 2 ] || fail "bad line '$bad': replay exit $rc, sim exit $src"
	why=$(sed "s/^ratelab replay: line 2: '[^']*': //" "$tmp/rerr")
	[ "$(cat "$tmp/serr")" = "ratelab sim: $tmp/bad.txt:2: '$bad': $why" ] ||
		fail "bad line '$bad': sim says '$(cat "$tmp/serr")', replay '$(cat "$tmp/rerr")'"
	[ ! -e "$tmp/bad_out" ] || fail "bad line '$bad': sim wrote output"
done
# a BOM after the first line is no BOM: the same refusal in both
printf '0 a\n\xef\xbb\xbf1 a\n' >"$tmp/bom2.txt"
"$ratelab" replay --algo gcra --limit 1 --window 1s "$tmp/bom2.txt" >/dev/null 2>"$tmp/rerr"
[ $? -eq 2 ] && grep -qF "line 2: '" "$tmp/rerr" && grep -qF "is not an integer number of ns" "$tmp/rerr" ||
	fail "BOM on line 2: $(cat "$tmp/rerr")"

# A duration that cuts the trace: the summary line and stderr count what was left out.
scenario "$tmp/cut.ini" plain.txt $'duration = 150ms\n'
"$ratelab" sim --quiet --no-timing --out "$tmp/cut_out" "$tmp/cut.ini" >"$tmp/cut.out" 2>"$tmp/err" ||
	fail "cut: exit $? ($(cat "$tmp/err"))"
[ "$(grep -c ' left_out=6$' "$tmp/cut.out")" -eq ${#algos[@]} ] || fail "cut: summary lines $(cat "$tmp/cut.out")"
[ "$(cat "$tmp/err")" = "ratelab sim: cut: [traffic t]: left out 6 of the 10 requests of the trace '$tmp/plain.txt': 6 at or past the duration (150000000 ns)" ] ||
	fail "cut: stderr '$(cat "$tmp/err")'"
[ "$(requests "$tmp/cut_out" sliding_log)" = 4 ] || fail "cut: requests $(requests "$tmp/cut_out" sliding_log), want 4"
grep -q left_out "$tmp/out_plain/summary.csv" "$tmp/sim.out" && fail "left_out printed with nothing left out"

# Epoch times under a duration: an error that says so and points to ratelab import.
printf '1764633600000000000 a\n1764633600500000000 b\n' >"$tmp/epoch.txt"
scenario "$tmp/epoch.ini" epoch.txt $'duration = 10m\n'
run_bad epoch_times "" "" sim --quiet --out "$tmp/epoch_out" "$tmp/epoch.ini" -- \
	"epoch.ini:7: [traffic t]: the trace '$tmp/epoch.txt' starts at 1764633600000000000 ns" \
	"none of its 2 requests" "ratelab import --relative --format trace"
[ ! -e "$tmp/epoch_out" ] || fail "epoch times: output written"
# ... and without a duration, the span is too long for the time series: said so, with the same pointer
scenario "$tmp/epoch2.ini" epoch.txt
run_bad epoch_span "" "" sim --quiet --out "$tmp/epoch_out" "$tmp/epoch2.ini" -- \
	"epoch2.ini:2:" "the traces' span (1764633600500000001 ns" "ratelab import --relative --format trace"

# Without a duration the trace is read for its span first: a bad line is named the
# same way, after the scenario's line; a trace that cannot be read twice is refused.
printf '0 a\nx y\n' >"$tmp/bad2.txt"
scenario "$tmp/bad2.ini" bad2.txt
run_bad span_bad_line "" "" sim --quiet --out "$tmp/bad2_out" "$tmp/bad2.ini" -- \
	"bad2.ini:6: [traffic t]: $tmp/bad2.txt:2: 'x y': time 'x' is not an integer number of ns"
scenario "$tmp/dev.ini" /dev/zero
run_bad span_device "" "" sim --quiet --out "$tmp/dev_out" "$tmp/dev.ini" -- \
	"dev.ini:6: [traffic t]: the trace '/dev/zero' is not a regular file: give duration"

# An empty trace (comments only) replays nothing: an error, not a silent zero.
printf '# no request\n\n' >"$tmp/empty.txt"
scenario "$tmp/empty.ini" empty.txt $'duration = 1s\n'
run_bad empty_trace "" "" sim --quiet --out "$tmp/empty_out" "$tmp/empty.ini" -- \
	"empty.ini:7: [traffic t]: the trace '$tmp/empty.txt' holds no request"

finish trace_rules
