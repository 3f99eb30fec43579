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
for f in study.csv clients.csv traffic.csv refused.csv meta.csv REPORT.md report.html; do
	[ -s "$tmp/o/$f" ] || fail "no $f"
done
head=$(head -1 "$tmp/o/study.csv")
case $head in
"rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,excess_admitted,over_n_admissions,max_in_w_over_n,false_rejects,diverged,ns_per_check,bytes_per_key"*) ;;
*) fail "study.csv header: $head" ;;
esac
# the headline and the error families, columns 1-13 (14, 15: timing and memory)
got=$(cut -d, -f1-13 "$tmp/o/study.csv" | tail -n +2)
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
for row in "requests,10" "keys,4" "span_ns,12000000000" "traffic_bin_ns,1000000000" "rules,2/10s" "jobs,2" "shard,all" "cost,no"; do
	grep -qx "$row" "$tmp/o/meta.csv" || fail "meta.csv lacks $row"
done
grep -q '^peak_rss_bytes,[1-9][0-9]*$' "$tmp/o/meta.csv" || fail "meta.csv: no peak_rss_bytes"

# -- a key with ',' and '"' is quoted; costs count units; two rules in the order given
printf '0 a,b 3\n0 q"x\n1000 z 2\n' >"$tmp/quote.trace"
"$ratelab" study --trace "$tmp/quote.trace" --rules 5/1s,1/1s:b4 --algos sliding_log,gcra --quiet \
	--out "$tmp/q" 2>"$tmp/err" || fail "quote study exited $?: $(cat "$tmp/err")"
got=$(cut -d, -f1-9 "$tmp/q/study.csv" | tail -n +2)
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

# -- a JSON lines log read with import's field options, at its own times: u1's 3 + 2 units at
# 1.9 s and 2.1 s exceed 4/1s (the log refuses the 2), though fixed_window's windows [1, 2)
# and [2, 3) admit them
printf '{"ts": 1900, "user": "u1", "tokens": 3}\n{"ts": 2000, "user": "u2", "tokens": 1}\n{"ts": 2100, "user": "u1", "tokens": 2}\n' \
	>"$tmp/j.jsonl"
"$ratelab" study --trace "$tmp/j.jsonl" --format jsonl --time-field ts --key-field user --cost-field tokens \
	--time-unit ms --rules 4/1s --algos sliding_log,fixed_window --quiet --out "$tmp/j" 2>"$tmp/err" ||
	fail "jsonl study exited $?: $(cat "$tmp/err")"
[ "$(cut -d, -f1-9 "$tmp/j/study.csv" | tail -n +2)" = "4/1s,fixed_window,6,6,1,0,0,2,2
4/1s,sliding_log,6,4,1,0,0,2,0" ] || fail "jsonl study: $(cut -d, -f1-9 "$tmp/j/study.csv")"
grep -qx 'format,jsonl' "$tmp/j/meta.csv" || fail "meta.csv: format,jsonl"

# -- a decider beside the built-ins: `ratelab replay --algo gcra --explain` gives gcra's figures
dec="'$ratelab' replay --algo gcra --limit \$RATELAB_LIMIT --window \${RATELAB_WINDOW_NS}ns --burst \$RATELAB_BURST --explain"
"$ratelab" study --trace "$tmp/known.trace" --rules 2/10s,3/10s:b5 --algos gcra --decider "$dec" \
	--decider-name self_gcra --quiet --out "$tmp/d" 2>"$tmp/err" || fail "decider study exited $?: $(cat "$tmp/err")"
[ "$(cut -d, -f2 "$tmp/d/study.csv" | tr '\n' ' ')" = "algo gcra peer_self_gcra gcra peer_self_gcra " ] ||
	fail "decider rows: $(cut -d, -f1,2 "$tmp/d/study.csv" | tr '\n' ' ')"
for r in 2/10s 3/10s:b5; do
	b=$(grep "^$r,gcra," "$tmp/d/study.csv" | cut -d, -f3-13)
	p=$(grep "^$r,peer_self_gcra," "$tmp/d/study.csv" | cut -d, -f3-13)
	[ -n "$b" ] && [ "$b" = "$p" ] || fail "$r: decider '$p' vs gcra '$b'"
	[ "$(grep "^$r,peer_self_gcra," "$tmp/d/study.csv" | cut -d, -f15)" = "" ] || fail "a decider's bytes_per_key is not measured"
done
[ "$(grep -c ',peer_self_gcra,' "$tmp/d/clients.csv")" -eq 10 ] || fail "decider rows in clients.csv"

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
got=$(awk -F, 'NR > 1 { print $2 "," $3 "," $4 "," $10 "," $12 "," $16 "," $13 "," $9 }' "$tmp/vs/study.csv" | sort)
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
[ "$(tail -n +2 "$tmp/o/study.csv" | cut -d, -f1,2)" = "5/1s,gcra" ] || fail "the second study's rows"
ls -a "$tmp" "$tmp/o" | grep -q 'study-\|old-\|ratelab-new-' && fail "a temporary directory was left: $(ls -a "$tmp/o")"
# a failed study leaves the earlier one as it was
before=$(cat "$tmp/o/study.csv")
"$ratelab" study --trace "$tmp/quote.trace" --rules 5/1s --decider 'exit 3' --quiet --out "$tmp/o" 2>"$tmp/err" &&
	fail "a failing decider: exit 0"
[ "$(cat "$tmp/o/study.csv")" = "$before" ] || fail "a failed study changed the earlier one"
ls -a "$tmp" "$tmp/o" | grep -q 'study-\|old-\|ratelab-new-' && fail "a failed study left a temporary directory: $(ls -a "$tmp/o")"

finish study_known
