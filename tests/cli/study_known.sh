#!/bin/bash
# ratelab study on a trace of four known clients under 2/10s, every headline
# figure worked out by hand (the cmocka test_study checks the same figures
# against the slow models on random traces): polite (one request), pair (two
# in 5 s), edge (two at 0 s, one at 10 s: within the rule, since (0, 10]
# leaves out 0, but the sliding counter's estimate refuses it) and abuser
# (1, 11, 11, 12 s: the exact log refuses the one at 12 s). Also: the files
# and their headers, the row order, RFC 4180 quoting of a key, the (other)
# row, a decider beside the built-ins giving gcra's figures, the error
# families equal to `ratelab sim`'s on the same trace as a replay scenario,
# and a second study replacing exactly the first's files. $1 is the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

s=1000000000
{
	for l in "0 polite" "0 pair" "0 edge" "0 edge" "1 abuser" "5 pair" "10 edge" "11 abuser" "11 abuser" "12 abuser"; do
		set -- $l
		echo "$(($1 * s)) $2"
	done
} >"$tmp/known.trace"

"$ratelab" study --trace "$tmp/known.trace" --rules 2/10s --jobs 2 --quiet --out "$tmp/o" 2>"$tmp/err" ||
	fail "study exited $?: $(cat "$tmp/err")"
for f in study.csv clients.csv traffic.csv refused.csv limits.csv meta.csv REPORT.md report.html; do
	[ -s "$tmp/o/$f" ] || fail "no $f"
done
head=$(head -1 "$tmp/o/study.csv")
case $head in
"rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,excess_admitted,over_n_admissions,max_in_w_over_n,false_rejects,diverged,ns_per_check,bytes_per_key"*) ;;
*) fail "study.csv header: $head" ;;
esac
# the headline and the error families, columns 1-13 (14, 15: timing and memory); the suggested
# rule's rows follow the given rule's
got=$(cut -d, -f1-13 "$tmp/o/study.csv" | grep '^2/10s,')
want="2/10s,token_bucket,10,9,3,0,0,1,0,0,1.0000,0,0
2/10s,gcra,10,9,3,0,0,1,0,0,1.0000,0,0
2/10s,leaky_bucket,10,10,3,0,0,1,1,1,1.5000,0,1
2/10s,fixed_window,10,9,3,0,0,1,0,0,1.0000,0,0
2/10s,sliding_log,10,9,3,0,0,1,0,0,1.0000,0,0
2/10s,sliding_counter,10,8,3,1,1,1,0,0,1.0000,1,1"
[ "$got" = "$want" ] || fail "study.csv
--- got:
$got
--- want:
$want"
got=$(grep '^2/10s,sliding_counter,' "$tmp/o/clients.csv")
want="2/10s,sliding_counter,abuser,4,3,0
2/10s,sliding_counter,edge,3,2,1
2/10s,sliding_counter,pair,2,2,1
2/10s,sliding_counter,polite,1,1,1
2/10s,sliding_counter,(other),0,0,0"
[ "$got" = "$want" ] || fail "clients.csv
--- got:
$got
--- want:
$want"
[ "$(head -1 "$tmp/o/clients.csv")" = "rule,algo,key,requests,admitted,within_rule" ] || fail "clients.csv header"
got=$(grep '^2/10s,sliding_counter,' "$tmp/o/refused.csv")
want="2/10s,sliding_counter,0,0,2
2/10s,sliding_counter,0,0.01,0
2/10s,sliding_counter,0.01,0.1,0
2/10s,sliding_counter,0.1,0.5,2
2/10s,sliding_counter,0.5,1,0"
[ "$got" = "$want" ] || fail "refused.csv: $got"
[ "$(head -1 "$tmp/o/refused.csv")" = "rule,algo,share_lo,share_hi,keys" ] || fail "refused.csv header"
[ "$(head -2 "$tmp/o/traffic.csv")" = "t_ns,requests,abuser,edge,pair,polite
0,4,0,2,1,1" ] || fail "traffic.csv: $(head -2 "$tmp/o/traffic.csv")"
[ "$(wc -l <"$tmp/o/traffic.csv")" -eq 14 ] || fail "traffic.csv: 1-s bins 0 to 12 expected"
# limits.csv: the peaks in 10 s are polite 1, pair 2, edge 2, abuser 3 (11, 11, 12). At 1: pair's 5,
# edge's second 0, abuser's second 11 and 12 refused; at 2: abuser's 12; at 3 nothing. 99% of 4
# keys is all 4: the suggested limit is the largest peak, 3/10s, studied beside 2/10s
want="window,limit,keys,keys_refused,requests,requests_refused
10s,1,4,3,10,4
10s,2,4,1,10,1
10s,3,4,0,10,0"
[ "$(cat "$tmp/o/limits.csv")" = "$want" ] || fail "limits.csv
--- got:
$(cat "$tmp/o/limits.csv")
--- want:
$want"
[ "$(cut -d, -f1,2 "$tmp/o/study.csv" | grep -c '^3/10s,')" -eq 6 ] || fail "the suggested rule 3/10s is not studied"
for row in "requests,10" "keys,4" "span_ns,12000000000" "traffic_bin_ns,1000000000" 'rules,"2/10s,3/10s"' "jobs,2" "shard,all" "cost,no" \
	"target_keys,99%" "lines_read,10" "lines_skipped,0" "requests_without_cost,10"; do
	grep -qx "$row" "$tmp/o/meta.csv" || fail "meta.csv lacks $row"
done
grep -q '^peak_rss_bytes,[1-9][0-9]*$' "$tmp/o/meta.csv" || fail "meta.csv: no peak_rss_bytes"

# -- a key with ',' and '"' is quoted; costs count units; two rules in the order given
printf '0 a,b 3\n0 q"x\n1000 z 2\n' >"$tmp/quote.trace"
"$ratelab" study --trace "$tmp/quote.trace" --rules 5/1s,1/1s:b4 --algos sliding_log,gcra --quiet \
	--out "$tmp/q" 2>"$tmp/err" || fail "quote study exited $?: $(cat "$tmp/err")"
got=$(cut -d, -f1-9 "$tmp/q/study.csv" | tail -n +2 | grep -v '^3/1s,')
want="5/1s,gcra,6,6,3,0,0,0,0
5/1s,sliding_log,6,6,3,0,0,0,0
1/1s:b4,gcra,6,6,1,0,0,5,5
1/1s:b4,sliding_log,6,1,1,0,0,5,0"
[ "$got" = "$want" ] || fail "units, rule order, algo order
--- got:
$got
--- want:
$want"
grep -qx '5/1s,gcra,"a,b",3,3,1' "$tmp/q/clients.csv" || fail "key a,b not quoted: $(cat "$tmp/q/clients.csv")"
grep -qx '5/1s,gcra,"q""x",1,1,1' "$tmp/q/clients.csv" || fail "key q\"x not quoted"
grep -qx 'cost,yes' "$tmp/q/meta.csv" || fail "meta.csv: cost,yes"
# one window for 5/1s and 1/1s:b4; the peaks in units 3, 1, 2: the suggested 3/1s
[ "$(cut -d, -f1,2 "$tmp/q/limits.csv" | tr '\n' ' ')" = "window,limit 1s,1 1s,2 1s,3 " ] ||
	fail "limits.csv with costs: $(cat "$tmp/q/limits.csv")"
grep -qx '1s,1,3,2,6,5' "$tmp/q/limits.csv" || fail "limits.csv at 1: units refused: $(cat "$tmp/q/limits.csv")"

# -- a JSON lines log read with import's field options, at its own times: u1's 3 + 2 units at
# 1.9 s and 2.1 s exceed 4/1s (the log refuses the 2), though fixed_window's windows [1, 2)
# and [2, 3) admit them
printf '{"ts": 1900, "user": "u1", "tokens": 3}\n{"ts": 2000, "user": "u2", "tokens": 1}\n{"ts": 2100, "user": "u1", "tokens": 2}\n' \
	>"$tmp/j.jsonl"
"$ratelab" study --trace "$tmp/j.jsonl" --format jsonl --time-field ts --key-field user --cost-field tokens \
	--time-unit ms --rules 4/1s --algos sliding_log,fixed_window --quiet --out "$tmp/j" 2>"$tmp/err" ||
	fail "jsonl study exited $?: $(cat "$tmp/err")"
[ "$(cut -d, -f1-9 "$tmp/j/study.csv" | grep '^4/1s,')" = "4/1s,fixed_window,6,6,1,0,0,2,2
4/1s,sliding_log,6,4,1,0,0,2,0" ] || fail "jsonl study: $(cut -d, -f1-9 "$tmp/j/study.csv")"
grep -qx 'format,jsonl' "$tmp/j/meta.csv" || fail "meta.csv: format,jsonl"

# -- a log at 1 s resolution under 3/1s (W/N = 333 ms, finer than the tick): the rule is decided
# both ways, placement.csv holding what a study with --spread has in study.csv, and said so; so is
# the suggested 5/1s (a's 5 requests in second 3); not 30/1m (W/N = 2 s)
for sec in 1 1 1 1 2 2 3 3 3 3 3 4; do printf '{"time": "2024-05-01T00:00:0%dZ", "key": "a"}\n' "$sec"; done >"$tmp/tick.jsonl"
printf '{"time": "2024-05-01T00:00:01Z", "key": "b"}\n' >>"$tmp/tick.jsonl"
"$ratelab" study --trace "$tmp/tick.jsonl" --rules 3/1s,30/1m --quiet --out "$tmp/tick" 2>"$tmp/err" ||
	fail "tick study exited $?: $(cat "$tmp/err")"
"$ratelab" study --trace "$tmp/tick.jsonl" --rules 3/1s,30/1m --spread --quiet --out "$tmp/ticks" 2>>"$tmp/err" ||
	fail "tick study --spread exited $?: $(cat "$tmp/err")"
grep -q "rule 3/1s: the log's time resolution, 1000000000 ns, is coarser than W/N: decided both without and with --spread" \
	"$tmp/err" || fail "the rule decided both ways is not said: $(cat "$tmp/err")"
grep -q "rule 30/1m" "$tmp/err" && fail "30/1m (W/N 2 s) is not finer than the tick"
[ "$(cut -d, -f1 "$tmp/tick/placement.csv" | sort -u | tr '\n' ' ')" = "3/1s 5/1s rule " ] ||
	fail "placement.csv's rules: $(cut -d, -f1 "$tmp/tick/placement.csv" | sort -u)"
[ "$(grep '^3/1s,' "$tmp/tick/placement.csv" | cut -d, -f1-13)" = "$(grep '^3/1s,' "$tmp/ticks/study.csv" | cut -d, -f1-13)" ] ||
	fail "placement.csv is not the --spread study: $(diff <(grep '^3/1s,' "$tmp/tick/placement.csv") <(grep '^3/1s,' "$tmp/ticks/study.csv"))"
[ "$(grep '^3/1s,' "$tmp/ticks/placement.csv" | cut -d, -f1-13)" = "$(grep '^3/1s,' "$tmp/tick/study.csv" | cut -d, -f1-13)" ] ||
	fail "the --spread study's placement.csv is not the study without it"
grep -q '^- Decided both ways: ' "$tmp/tick/REPORT.md" && grep -q '^- Robust: ' "$tmp/tick/REPORT.md" ||
	fail "the report does not say the rule was decided both ways"
# shards merged: placement.csv summed
for i in 0 1; do
	"$ratelab" study --trace "$tmp/tick.jsonl" --rules 3/1s --shard $i/2 --quiet --out "$tmp/tk$i" 2>>"$tmp/err" ||
		fail "tick shard $i exited $?"
done
"$ratelab" study --merge "$tmp/tk0" "$tmp/tk1" --out "$tmp/tkm" 2>>"$tmp/err" || fail "tick merge exited $?: $(cat "$tmp/err")"
[ "$(cut -d, -f1-13 "$tmp/tkm/placement.csv")" = "$(grep '^rule,\|^3/1s,' "$tmp/tick/placement.csv" | cut -d, -f1-13)" ] ||
	fail "placement.csv merged: $(diff <(cut -d, -f1-13 "$tmp/tkm/placement.csv") <(grep '^rule,\|^3/1s,' "$tmp/tick/placement.csv" | cut -d, -f1-13))"

# -- --windows alone: the suggested rules are the study's rules; --target-keys 50% of the four keys
# of known.trace (peaks in 10 s: 1, 2, 2, 3) is 2; 1m adds a window (peaks 1, 2, 3, 4: 2 again)
"$ratelab" study --trace "$tmp/known.trace" --windows 10s,1m --target-keys 50% --algos sliding_log --quiet \
	--out "$tmp/w" 2>"$tmp/err" || fail "--windows study exited $?: $(cat "$tmp/err")"
[ "$(tail -n +2 "$tmp/w/study.csv" | cut -d, -f1,2 | tr '\n' ' ')" = "2/10s,sliding_log 2/1m,sliding_log " ] ||
	fail "--windows alone: $(cut -d, -f1,2 "$tmp/w/study.csv")"
grep -qx 'target_keys,50%' "$tmp/w/meta.csv" || fail "meta.csv: target_keys,50%"
grep -qx 'windows,"10s,1m"' "$tmp/w/meta.csv" || fail "meta.csv: windows"
[ "$(grep -c '^1m,' "$tmp/w/limits.csv")" -eq 4 ] || fail "limits.csv's 1m rows: $(cat "$tmp/w/limits.csv")"
grep -q "window 10s: the keys' peaks p50 2, p90 3, p99 3, max 3; suggested limit 2/10s (refuses no request of 50% of the keys)" \
	"$tmp/err" || fail "--windows alone: stderr $(cat "$tmp/err")"
grep -q '^- Suggested limit: 2/10s, the smallest that refuses no request of 50% of the keys' "$tmp/w/REPORT.md" ||
	fail "the report's suggested limit"

# -- a decider beside the built-ins: `ratelab replay --algo gcra --explain` gives gcra's figures
dec="'$ratelab' replay --algo gcra --limit \$RATELAB_LIMIT --window \${RATELAB_WINDOW_NS}ns --burst \$RATELAB_BURST --explain"
"$ratelab" study --trace "$tmp/known.trace" --rules 2/10s,3/10s:b5 --algos gcra --decider "$dec" \
	--decider-name self_gcra --quiet --out "$tmp/d" 2>"$tmp/err" || fail "decider study exited $?: $(cat "$tmp/err")"
[ "$(cut -d, -f2 "$tmp/d/study.csv" | tr '\n' ' ')" = "algo gcra peer_self_gcra gcra peer_self_gcra gcra peer_self_gcra " ] ||
	fail "decider rows: $(cut -d, -f1,2 "$tmp/d/study.csv" | tr '\n' ' ')"
for r in 2/10s 3/10s:b5; do
	b=$(grep "^$r,gcra," "$tmp/d/study.csv" | cut -d, -f3-13)
	p=$(grep "^$r,peer_self_gcra," "$tmp/d/study.csv" | cut -d, -f3-13)
	[ -n "$b" ] && [ "$b" = "$p" ] || fail "$r: decider '$p' vs gcra '$b'"
	[ "$(grep "^$r,peer_self_gcra," "$tmp/d/study.csv" | cut -d, -f15)" = "" ] || fail "a decider's bytes_per_key is not measured"
done
[ "$(grep -c ',peer_self_gcra,' "$tmp/d/clients.csv")" -eq 15 ] || fail "decider rows in clients.csv"

# -- the error families are sim's (sim_run.h) on the same requests: a replay scenario of the sample trace
sample=$(cd "$(dirname "$0")/../../sim/scenarios/traces" && pwd)/sample.trace
printf '[scenario]\nname = r\nlimit = 7\nwindow = 1s\nburst = 9\n\n[traffic trace]\ntype = replay\nfile = %s\n' \
	"$sample" >"$tmp/r.ini"
"$ratelab" sim --no-timing --quiet --out "$tmp/sim" "$tmp/r.ini" >/dev/null 2>"$tmp/err" || fail "sim exited $?: $(cat "$tmp/err")"
"$ratelab" study --trace "$sample" --rules 7/1s:b9 --quiet --out "$tmp/vs" 2>"$tmp/err" || fail "study of the sample exited $?"
# requests, admitted, over-N admissions (sim's false allows), false rejects, max in W, diverged, and
# the excess admitted (sim's diverged allows: admitted where the independent sliding log refuses)
want=$(join -t, <(awk -F, 'NR > 1 { print $2 "," $7 "," $8 "," $9 "," $11 "," $14 }' "$tmp/sim/summary.csv" | sort) \
	<(awk -F, 'NR > 1 { print $2 "," $5 + $7 "," $5 }' "$tmp/sim/diverged.csv" | sort))
got=$(awk -F, '$1 == "7/1s:b9" { print $2 "," $3 "," $4 "," $10 "," $12 "," $16 "," $13 "," $9 }' "$tmp/vs/study.csv" | sort)
[ "$(echo "$got" | wc -l)" -eq 6 ] && [ "$got" = "$want" ] || fail "study vs sim
--- study:
$got
--- sim:
$want"

# -- a second study into the same directory replaces exactly what the first wrote (its manifest):
# a file the first wrote and the second does not is removed
touch "$tmp/o/plots/stale.png"
echo 'file plots/stale.png' >>"$tmp/o/.ratelab-manifest"
"$ratelab" study --trace "$tmp/quote.trace" --rules 5/1s --algos gcra --quiet --out "$tmp/o" 2>"$tmp/err" ||
	fail "second study exited $?: $(cat "$tmp/err")"
[ -e "$tmp/o/plots/stale.png" ] && fail "a file of the first study survived the second"
[ "$(tail -n +2 "$tmp/o/study.csv" | cut -d, -f1,2 | tr '\n' ' ')" = "5/1s,gcra 3/1s,gcra " ] || fail "the second study's rows"
ls -a "$tmp" "$tmp/o" | grep -q 'study-\|old-\|ratelab-new-' && fail "a temporary directory was left: $(ls -a "$tmp/o")"
# a failed study leaves the earlier one as it was
before=$(cat "$tmp/o/study.csv")
"$ratelab" study --trace "$tmp/quote.trace" --rules 5/1s --decider 'exit 3' --quiet --out "$tmp/o" 2>"$tmp/err" &&
	fail "a failing decider: exit 0"
[ "$(cat "$tmp/o/study.csv")" = "$before" ] || fail "a failed study changed the earlier one"
ls -a "$tmp" "$tmp/o" | grep -q 'study-\|old-\|ratelab-new-' && fail "a failed study left a temporary directory: $(ls -a "$tmp/o")"

finish study_known
