#!/bin/bash
# One loaded trace (issue 42, issue 40 "the README's two routes disagree"):
# a trace's "# ratelab trace: ... origin_ns=O" line is applied by every
# reader, its times being O + T. So the log route (`ratelab import`'s
# epoch times) and the trace route (`ratelab import --relative`, times
# from the first request) give the same fixed windows, aligned on the
# epoch as production limiters align them: through `ratelab replay`,
# the simulator's replay source and `ratelab study`. The windows are
# hours and the log starts at 10:20, so a window counted from the first
# request would cut them elsewhere. $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# Two keys: a 2 a minute from 10:20 to 11:39 (80 in 10:20-11:00, above
# 60 an hour), b once a minute over the same time.
for m in $(seq 0 79); do
	h=$((10 + (20 + m) / 60)) mm=$(((20 + m) % 60))
	printf '203.0.113.7 - - [13/Sep/2026:%02d:%02d:00 +0000] "GET / HTTP/1.1" 200 5 "-" "-"\n' $h $mm
	printf '203.0.113.7 - - [13/Sep/2026:%02d:%02d:30 +0000] "GET / HTTP/1.1" 200 5 "-" "-"\n' $h $mm
	printf '198.51.100.2 - - [13/Sep/2026:%02d:%02d:10 +0000] "GET / HTTP/1.1" 200 5 "-" "-"\n' $h $mm
done >"$tmp/access.log"

"$ratelab" import "$tmp/access.log" >"$tmp/abs.trace" 2>/dev/null || fail "import: exit $?"
"$ratelab" import --relative "$tmp/access.log" >"$tmp/rel.trace" 2>/dev/null || fail "import --relative: exit $?"
head -1 "$tmp/rel.trace" | grep -q '^# ratelab trace: resolution_ns=1000000000 spread=no origin_ns=1789294800000000000$' ||
	fail "import --relative: header $(head -1 "$tmp/rel.trace")"
[ "$(sed -n 2p "$tmp/rel.trace")" = "0 203.0.113.7" ] || fail "import --relative: first line $(sed -n 2p "$tmp/rel.trace")"

# replay: the same verdicts on both traces, and the windows of the epoch's hours
rule=(--algo fixed_window --limit 60 --window 1h)
"$ratelab" replay "${rule[@]}" "$tmp/abs.trace" >"$tmp/abs.v" 2>"$tmp/err" || fail "replay abs: $(cat "$tmp/err")"
"$ratelab" replay "${rule[@]}" "$tmp/rel.trace" >"$tmp/rel.v" 2>"$tmp/err" || fail "replay rel: $(cat "$tmp/err")"
cmp -s "$tmp/abs.v" "$tmp/rel.v" || fail "replay: the trace route and the log route disagree"
admitted=$(grep -c '^1' "$tmp/abs.v")
# 10:20-11:00: a 80 -> 60, b 40; 11:00-11:40: a 80 -> 60, b 40
[ "$admitted" = 200 ] || fail "replay: $admitted admitted, want 200 (hours of the epoch)"
# a settle-free policy run reads the same header
"$ratelab" replay --algo fixed_window --policy 60/1h+1000/24h "$tmp/rel.trace" >"$tmp/pol.v" 2>"$tmp/err" ||
	fail "replay --policy rel: $(cat "$tmp/err")"
[ "$(grep -c '^1' "$tmp/pol.v")" = 200 ] || fail "replay --policy rel: $(grep -c '^1' "$tmp/pol.v") admitted, want 200"

# sim: the relative trace's source, its duration the span; fixed_window admits what replay does
printf '[scenario]\nname = origin\nlimit = 60\nwindow = 1h\n[traffic t]\ntype = replay\nfile = %s\n' \
	"$tmp/rel.trace" >"$tmp/rel.ini"
"$ratelab" sim --quiet --no-timing --out "$tmp/sim" "$tmp/rel.ini" >/dev/null 2>"$tmp/err" ||
	fail "sim rel: exit $? ($(cat "$tmp/err"))"
sim_adm=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 && $c["algo"] == "fixed_window" { print $c["admitted"] }' \
	"$tmp/sim/summary.csv")
[ "$sim_adm" = "$admitted" ] || fail "sim rel: fixed_window admitted $sim_adm, replay admits $admitted"

# the simulator hands an external decider the trace's own times too
"$ratelab" sim --quiet --no-timing --out "$tmp/simd" --decider "$ratelab replay ${rule[*]} --explain" "$tmp/rel.ini" \
	>/dev/null 2>"$tmp/err" || fail "sim --decider rel: exit $? ($(cat "$tmp/err"))"
dec_adm=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 { print $c["admitted"] }' "$tmp/simd/summary.csv")
[ "$dec_adm" = "$admitted" ] || fail "sim --decider rel: admitted $dec_adm, replay admits $admitted"

# study: the log and the trace give the same study.csv
"$ratelab" study --quiet --trace "$tmp/access.log" --rules 60/1h --out "$tmp/st_log" >/dev/null 2>"$tmp/err" ||
	fail "study log: $(cat "$tmp/err")"
"$ratelab" study --quiet --trace "$tmp/rel.trace" --rules 60/1h --out "$tmp/st_rel" >/dev/null 2>"$tmp/err" ||
	fail "study rel: $(cat "$tmp/err")"
cut -d, -f1-13 "$tmp/st_log/study.csv" >"$tmp/a.csv"
cut -d, -f1-13 "$tmp/st_rel/study.csv" >"$tmp/b.csv"
cmp -s "$tmp/a.csv" "$tmp/b.csv" || fail "study: the trace route and the log route disagree: $(diff "$tmp/a.csv" "$tmp/b.csv")"
st_adm=$(awk -F, '$1 == "60/1h" && $2 == "fixed_window" { print $4 }' "$tmp/st_log/study.csv")
[ "$st_adm" = "$admitted" ] || fail "study: fixed_window admitted $st_adm, replay admits $admitted"

# a header whose origin puts a time past 4*10^18 ns: the line named, exit 2
printf '# ratelab trace: origin_ns=3999999999999999999\n2 a\n' >"$tmp/past.trace"
run_bad replay_past "" "" replay "${rule[@]}" "$tmp/past.trace" -- "line 2: '2 a': its time past the trace's origin_ns"
printf '[scenario]\nlimit = 1\nwindow = 1s\n[traffic t]\ntype = replay\nfile = %s\n' "$tmp/past.trace" >"$tmp/past.ini"
"$ratelab" sim --quiet --no-timing --out "$tmp/simp" "$tmp/past.ini" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "past.trace:2: '2 a': its time past the trace's origin_ns" "$tmp/err" ||
	fail "sim past origin: exit $rc, $(cat "$tmp/err")"

finish trace_origin
