#!/bin/bash
# ratelab study with policies (--rules items joined by '+', ':units') and
# settle traces 'T KEY COST ACTUAL DONE_T', against `ratelab replay
# --policy` on seeded random traces: for every algorithm, each key's
# admitted units in clients.csv equal the units replay admits for it line by
# line, excess_requests the units an exact sliding_log policy refuses, and
# sliding_log has no false_rejects, settled or not (the judge settles as it does).
# Also limits.csv's windows from every rule of a policy, and the refusals:
# ':units' without costs, a decider with a policy, settles with an algorithm
# that does not settle (refused alike by replay). The seed is printed on a
# failure. $1 is the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

algos="token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter"

# gen SEED SETTLE: 4000 requests over 40 keys (a few heavy), ms apart at random, costs 1..9;
# with SETTLE, each line settles at a random real cost 0..19 some ms later
gen() {
	awk -v seed="$1" -v settle="$2" 'BEGIN {
		srand(seed); t = 1000000000
		for (i = 0; i < 4000; i++) {
			t += int(rand() * 3000000)
			k = rand() < 0.5 ? int(rand() * 3) : 3 + int(rand() * 37)
			c = 1 + int(rand() * 9)
			if (settle) printf "%d k%d %d %d %d\n", t, k, c, int(rand() * 20), t + int(rand() * 400000000)
			else printf "%d k%d %d\n", t, k, c
		}
	}'
}

# admitted units per key by replay: KEY UNITS, sorted
replay_units() {
	local trace=$1
	shift
	"$ratelab" replay "$@" "$trace" | paste -d' ' - "$trace" |
		awk '$1 == 1 { u[$3] += $4 } END { for (k in u) print k, u[k] }' | sort
}

# study's admitted units per key for (rule, algo), keys with something admitted: KEY UNITS, sorted
study_units() {
	awk -F, -v r="$2" -v a="$3" '$1 == r && $2 == a && $5 > 0 { print $3, $5 }' "$1/clients.csv" | sort
}

check_seed() {
	local seed=$1 settle=$2 policies=$3 trace=$tmp/t.$1.$2 out=$tmp/o.$1.$2 list=""
	gen "$seed" "$settle" >"$trace"
	local use=""
	for a in $algos; do
		if [ -n "$settle" ] && ! printf '0 k 1 1 1\n' | "$ratelab" replay --algo "$a" --limit 1 --window 1s >/dev/null 2>&1; then
			continue # does not settle: refused below, by study and replay alike
		fi
		use="$use${use:+,}$a"
	done
	IFS=';' read -ra ps <<<"$policies"
	for p in "${ps[@]}"; do list="$list${list:+,}$p"; done
	"$ratelab" study --trace "$trace" --rules "$list" --algos "$use" --jobs 2 --quiet --out "$out" 2>"$tmp/err" ||
		{ fail "seed $seed${settle:+ (settle)}: study exited $?: $(cat "$tmp/err")"; return; }
	for p in "${ps[@]}"; do
		for a in ${use//,/ }; do
			case "$p:$a" in *:b*:fixed_window | *:b*:sliding_*) continue ;; esac # a burst is the buckets' only
			got=$(study_units "$out" "$p" "$a")
			want=$(replay_units "$trace" --algo "$a" --policy "$p")
			[ -n "$want" ] && [ "$got" = "$want" ] ||
				fail "seed $seed${settle:+ (settle)}: $p $a: study's admitted units per key differ from replay --policy's:
$(diff <(echo "$want") <(echo "$got") | head -5)"
		done
		case $p in *:b*) continue ;; esac
		ex=$(awk -F, -v r="$p" '$1 == r && $2 == "sliding_log" { print $8 }' "$out/study.csv")
		want=$("$ratelab" replay --algo sliding_log --policy "$p" "$trace" | paste -d' ' - "$trace" |
			awk '$1 == 0 { u += $4 } END { print u + 0 }')
		[ "$ex" = "$want" ] || fail "seed $seed: $p: excess_requests $ex, the exact sliding_log policy refuses $want"
		# the judge settles its log of what was admitted as the algorithm settles its state
		# (sim_judge_settle): sliding_log, which never counts more than that log (its
		# charges capped at 2N), refuses nothing the judge finds within every rule
		fr=$(awk -F, -v r="$p" '$1 == r && $2 == "sliding_log" { print $12 }' "$out/study.csv")
		[ "$fr" = 0 ] || fail "seed $seed${settle:+ (settle)}: $p: sliding_log's false_rejects $fr, want 0"
	done
}

for seed in 11 12; do
	check_seed "$seed" "" "3/100ms+20/1s;5/100ms:b9+200/1s:units+900/10s:units;60/1s:units"
	check_seed "$seed" settle "3/100ms+60/1s:units;40/1s:units"
done

# limits.csv: a window of every rule of a policy, once
gen 5 "" >"$tmp/w.trace"
"$ratelab" study --trace "$tmp/w.trace" --rules '3/100ms+20/1s,10/1s+100/10s' --algos gcra --quiet --out "$tmp/w" 2>"$tmp/err" ||
	fail "limits: study exited $?: $(cat "$tmp/err")"
got=$(tail -n +2 "$tmp/w/limits.csv" | cut -d, -f1 | uniq | tr '\n' ' ')
[ "$got" = "100ms 1s 10s " ] || fail "limits.csv's windows: '$got', want '100ms 1s 10s '"

# study_bad NAME WANT_NEEDLE ARGS...: exit 2, the last line (after the import's) naming the fault, nothing written
study_bad() {
	local name=$1 needle=$2 rc
	shift 2
	"$ratelab" study --quiet --out "$tmp/bad" "$@" >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc -eq 2 ] || fail "$name: exit $rc, want 2 (stderr: $(cat "$tmp/err"))"
	tail -1 "$tmp/err" | grep -q "^ratelab study: .*$needle" ||
		fail "$name: stderr: $(cat "$tmp/err")"
	[ -e "$tmp/bad" ] && fail "$name: wrote $tmp/bad"
}
printf '0 a\n10 a\n' >"$tmp/nocost.trace"
study_bad units_without_cost "rule 2 counts units (':units'): every line needs 'T KEY COST'" \
	--trace "$tmp/nocost.trace" --rules '5/1s+10/1s:units'
study_bad nine_rules "has 9 rules (at most 8)" --trace "$tmp/nocost.trace" --rules '1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s+1/1s'
study_bad policy_rule_zero "'0/1s'" --trace "$tmp/nocost.trace" --rules '5/1s+0/1s'
study_bad decider_policy "a decider decides one rule and settles nothing: --rules names the policy" --trace "$tmp/nocost.trace" --rules '5/1s+10/1m' --decider cat
printf '0 a 2 1 5\n10 a 1\n' >"$tmp/settle.trace"
for a in $algos; do
	if ! printf '0 k 1 1 1\n' | "$ratelab" replay --algo "$a" --limit 1 --window 1s >/dev/null 2>"$tmp/rerr"; then
		grep -q "does not settle" "$tmp/rerr" || fail "replay $a: $(cat "$tmp/rerr")"
		study_bad "settle_$a" "$a does not settle" --trace "$tmp/settle.trace" --rules 5/1s --algos "$a"
	fi
done

[ $fails -eq 0 ] || exit 1
echo "study_policy: ok"
