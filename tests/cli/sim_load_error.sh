#!/bin/bash
# ratelab sim: sliding_counter's error on Poisson traffic at 50..150% of the
# limit, printed next to Cloudflare's published 0.003% (2017: 400 million
# requests, 270,000 sources). The exact reference must score 0 at every load.
# (The full-size sweep is sim/scenarios/load.ini.)
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "sim_load_error: $*" >&2; exit 1; }

cat >"$tmp/load.ini" <<'INI'
[scenario]
name = load
limit = 100
window = 1s
duration = 20s
algos = sliding_counter,sliding_log
sweep = 50,60,70,80,90,100,110,120,130,140,150
[traffic clients]
type = poisson
keys = 20
INI
"$bin" sim --no-timing --quiet --seed 2017 --out "$tmp/out" "$tmp/load.ini" >/dev/null || fail "sim exited $?"
s="$tmp/out/summary.csv"
echo "sliding_counter vs the exact log, Poisson, N=100/s, 20 keys, 20 s, seed 2017"
echo "load  requests  wrong(allow+reject)  error%     Cloudflare"
for l in 050 060 070 080 090 100 110 120 130 140 150; do
	row=$(grep "^load_$l,sliding_counter," "$s") || fail "no row load_$l,sliding_counter"
	echo "$row" | awk -F, -v l=$l '{ printf "%s%%  %8d  %19d  %8.4f%%  0.003%%\n", l, $7, $9 + $11, $10 + $12 }'
	grep -q "^load_$l,sliding_log,.*,0,0.000000,0,0.000000,0.000000," "$s" || fail "sliding_log not exact at load $l"
done
exit 0
