#!/bin/bash
# ratelab study --shard I/K and --merge: the K shard studies of one trace
# merged give the files of the unsharded study, byte for byte, except the
# measurements that vary run to run (study.csv's ns_per_check, bytes_per_key
# and heap_bytes: time, and heap as the allocator holds it) and meta.csv;
# --jobs does not change them either. Each key lies in exactly one shard.
# Then merges that are refused. $1 is the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# 1500 keys (more than clients.csv lists), costs, one heavy key per 100
awk 'BEGIN { x = 7; for (i = 0; i < 20000; i++) { x = (x * 1103515245 + 12345) % 2147483648;
	k = int(x / 65536) % 1500; if (i % 7 == 0) k = k % 15; c = 1 + (int(x / 65536) % 3 == 0);
	printf "%d 10.%d.%d,%d %d\n", i * 3000000, k % 7, k, k % 3, c } }' >"$tmp/t.trace"
rules=10/1s,60/1m:b90
study() { "$ratelab" study --trace "$tmp/t.trace" --rules $rules --quiet "$@" 2>>"$tmp/err" || fail "study $* exited $?: $(cat "$tmp/err")"; }
study --jobs 1 --out "$tmp/one"
study --jobs 2 --out "$tmp/two"
for i in 0 1 2; do study --jobs 2 --shard $i/3 --out "$tmp/s$i"; done
"$ratelab" study --merge "$tmp/s2" "$tmp/s0" "$tmp/s1" --out "$tmp/m" 2>"$tmp/err" || fail "merge exited $?: $(cat "$tmp/err")"

# the rows of the rules given: an unsharded study adds the suggested rules, a shard cannot
given() { awk -F, -v r=",$rules," 'NR == 1 || index(r, "," $1 ",")' "$1"; }
same() { # same DIR_A DIR_B: the deterministic content of two studies
	local f
	for f in traffic.csv; do
		cmp -s "$1/$f" "$2/$f" || fail "$f of $1 and $2 differ: $(diff "$1/$f" "$2/$f" | head -5)"
	done
	for f in clients.csv refused.csv; do
		cmp -s <(given "$1/$f") <(given "$2/$f") || fail "$f of $1 and $2 differ: $(diff <(given "$1/$f") <(given "$2/$f") | head -5)"
	done
	cmp -s <(given "$1/study.csv" | cut -d, -f1-13,16,17) <(given "$2/study.csv" | cut -d, -f1-13,16,17) ||
		fail "study.csv of $1 and $2 differ: $(diff <(given "$1/study.csv" | cut -d, -f1-13,16,17) <(given "$2/study.csv" | cut -d, -f1-13,16,17) | head -5)"
}
same "$tmp/one" "$tmp/two"
same "$tmp/one" "$tmp/m"
cmp -s "$tmp/one/limits.csv" "$tmp/two/limits.csv" || fail "limits.csv depends on --jobs"
# limits.csv merged (peaks above 200: geometric limits): the limits every shard knows, each as the
# unsharded study has it where it lists that limit too
common=$(awk -F, 'NR == FNR { row[$1 "," $2] = $0; next } FNR > 1 && ($1 "," $2) in row {
	if (row[$1 "," $2] != $0) { print "differ: " $0; exit 1 } n++ } END { print n + 0 }' "$tmp/one/limits.csv" "$tmp/m/limits.csv") ||
	fail "limits.csv merged: $common"
[ "$common" -gt 10 ] || fail "limits.csv merged: $common rows in common with the unsharded study"
# the suggested rules are studied unsharded only
[ "$(awk -F, 'NR > 1 { print $1 }' "$tmp/one/study.csv" | sort -u | wc -l)" -gt 2 ] || fail "no suggested rule studied"
[ "$(awk -F, 'NR > 1 { print $1 }' "$tmp/m/study.csv" | sort -u | wc -l)" -eq 2 ] || fail "a shard studied a suggested rule"
[ "$(given "$tmp/one/clients.csv" | grep -c ',(other),')" -eq 12 ] || fail "one (other) row per rule and algorithm"
[ "$(grep -c '^10/1s,gcra,' "$tmp/one/clients.csv")" -eq 1001 ] || fail "1000 keys and (other) per row"
grep -qx 'shard,1/3' "$tmp/s1/meta.csv" || fail "meta.csv of shard 1/3"
# every key in exactly one shard
keys=0
for i in 0 1 2; do keys=$((keys + $(grep -m1 '^keys,' "$tmp/s$i/meta.csv" | cut -d, -f2))); done
[ "$keys" = "$(grep -m1 '^keys,' "$tmp/one/meta.csv" | cut -d, -f2)" ] || fail "shards hold $keys keys"
[ -s "$tmp/m/REPORT.md" ] || fail "the merge wrote no report"

# -- a shard that holds no key of a small trace: its files, no report, and the merge
printf '0 a\n' >"$tmp/one.trace"
for i in 0 1 2; do
	"$ratelab" study --trace "$tmp/one.trace" --rules 10/1s --shard $i/3 --quiet --out "$tmp/o$i" 2>>"$tmp/err" ||
		fail "one-key shard $i/3 exited $?"
done
"$ratelab" study --trace "$tmp/one.trace" --rules 10/1s --quiet --out "$tmp/o" 2>>"$tmp/err" || fail "one-key study"
"$ratelab" study --merge "$tmp/o0" "$tmp/o1" "$tmp/o2" --out "$tmp/om" 2>>"$tmp/err" || fail "one-key merge"
same "$tmp/o" "$tmp/om"

# -- refused merges
bad_merge() { # NAME NEEDLE DIR...
	local name=$1 needle=$2 err
	shift 2
	"$ratelab" study --merge "$@" --out "$tmp/bad" 2>"$tmp/err"
	local rc=$?
	err=$(cat "$tmp/err")
	[ $rc -eq 2 ] || fail "$name: exit $rc, want 2 ($err)"
	case $err in "ratelab study: "*"$needle"*) ;; *) fail "$name: stderr: $err" ;; esac
	[ -e "$tmp/bad" ] && fail "$name: wrote $tmp/bad"
}
bad_merge "missing shard" "shard 1/3 is missing" "$tmp/s0" "$tmp/s2"
bad_merge "shard twice" "shard 0/3 is given twice" "$tmp/s0" "$tmp/s0" "$tmp/s1" "$tmp/s2"
study --jobs 2 --shard 0/2 --out "$tmp/h0"
bad_merge "K differs" "a shard of 3" "$tmp/s1" "$tmp/h0"
rules=10/1s
study --jobs 2 --shard 1/3 --out "$tmp/r1"
bad_merge "other rules" "their rules differ" "$tmp/s0" "$tmp/r1" "$tmp/s2"
bad_merge "merged again" "cannot be merged again" "$tmp/m"
bad_merge "not a study" "cannot open" "$tmp"
printf 'garbage\n' >"$tmp/s2/clients.csv"
bad_merge "malformed" "clients.csv:1:" "$tmp/s0" "$tmp/s1" "$tmp/s2"

finish study_shards
