#!/bin/bash
# ratelab fleet: the CSV header, the grid's rows, one run with any mode
# option, the same output for the same seed, --out, and bad input exiting 2
# with a message naming the option and value (nothing written).
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "fleet: $*" >&2; exit 1; }

header='routing,nodes,sync_ns,skew_ns,outage_from_ns,outage_to_ns,keys,limit,window_ns,load_pct,duration_ns,seed,requests,admitted,central_admitted,over_admitted,false_rejects,over_pct,false_reject_pct,round_trips,sync_failures,round_trips_per_1k,round_trips_saved_pct'

"$bin" fleet --duration 3s >"$tmp/grid.csv" || fail "grid: exit $?"
[ "$(head -1 "$tmp/grid.csv")" = "$header" ] || fail "header: $(head -1 "$tmp/grid.csv")"
[ "$(wc -l <"$tmp/grid.csv")" -eq 67 ] || fail "grid: $(wc -l <"$tmp/grid.csv") lines, want 1 + 66"
for k in 2 4 16; do
	for r in random sticky; do
		n=$(grep -c "^$r,$k,[0-9]*,0,0,0," "$tmp/grid.csv")
		[ "$n" -eq 10 ] || fail "grid: $n rows for $r k=$k, want 10 sync intervals"
	done
done
grep -q '^random,4,10000000,50000000,0,0,' "$tmp/grid.csv" || fail "grid: no skew 50ms row"
grep -q '^sticky,4,10000000,0,1000000000,1500000000,' "$tmp/grid.csv" || fail "grid: no outage row"

"$bin" fleet --duration 3s --nodes 2 --sync 5ms --routing sticky --skew 1ms --outage 1s+500ms \
	--keys 3 --limit 50 --window 500ms --load 150 --seed 7 >"$tmp/one.csv" || fail "one run: exit $?"
[ "$(wc -l <"$tmp/one.csv")" -eq 2 ] || fail "one run: $(wc -l <"$tmp/one.csv") lines"
tail -1 "$tmp/one.csv" | grep -q '^sticky,2,5000000,1000000,1000000000,1500000000,3,50,500000000,150,3000000000,7,' ||
	fail "one run row: $(tail -1 "$tmp/one.csv")"
"$bin" fleet --duration=3s --nodes=2 --sync=5ms --routing=sticky --skew=1ms --outage=1s+500ms \
	--keys=3 --limit=50 --window=500ms --load=150 --seed=7 --out "$tmp/again.csv" || fail "--out: exit $?"
cmp -s "$tmp/one.csv" "$tmp/again.csv" || fail "same seed, different output"

bad() { # expected message fragment, args...
	want=$1
	shift
	"$bin" fleet --out "$tmp/bad.csv" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$*: exit $rc, expected 2"
	grep -qF -- "$want" "$tmp/err" || fail "$*: message '$(cat "$tmp/err")' lacks '$want'"
	[ ! -e "$tmp/bad.csv" ] || fail "$*: output written"
}
bad "unknown option or argument '--bogus'" --bogus 1
bad "--routing 'zigzag'" --routing zigzag
bad "--nodes '0'" --nodes 0
bad "--sync '10'" --sync 10
bad "--outage '20s'" --outage 20s
bad "--outage '20s+x'" --outage 20s+x
bad "--load '-5'" --load -5
bad "nodes (1 .. min(1024, limit)) 16" --nodes 16 --limit 10
bad "skew_ns (0 .. W - 1)" --skew 2s
bad "needs a value" --seed
bad "unexpected argument 'extra'" extra
"$bin" fleet --help | grep -q '^usage: ratelab fleet' || fail "--help"
exit 0
