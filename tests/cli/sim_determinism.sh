#!/bin/bash
# ratelab sim: two runs with one seed write byte-identical files (timing off);
# another seed changes them; the summary has exactly the documented columns
# and every scenario x algorithm has its time series, which names its seed.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "sim_determinism: $*" >&2; exit 1; }

for run in a b; do
	"$bin" sim --no-timing --quiet --seed 42 --out "$tmp/$run" sim/mix.ini sim/trace.ini >"$tmp/$run.out" ||
		fail "run $run exited $?"
done
diff -r "$tmp/a" "$tmp/b" >/dev/null || fail "two runs with seed 42 differ: $(diff -r "$tmp/a" "$tmp/b" | head -5)"
"$bin" sim --no-timing --quiet --seed 43 --out "$tmp/c" sim/mix.ini sim/trace.ini >/dev/null || fail "seed 43 run failed"
cmp -s "$tmp/a/summary.csv" "$tmp/c/summary.csv" && fail "seeds 42 and 43 gave the same summary"

want="scenario,algo,limit,window_ns,burst,seed,requests,admitted,false_allows,false_allow_pct,false_rejects,false_reject_pct,keys_over_admitted_pct,max_in_window,max_window_ratio,long_run_rate_ratio,jain_index,state_bytes_mean,state_bytes_max,decisions_per_sec,own_bound,beyond_bound,beyond_bound_pct,client_requests,client_served,client_gave_up_pct,client_wait_ms_mean,client_wait_ms_max,heavy_keys_pct,heavy_requests_pct,heavy_false_pct,estimate_diff_pct,would_reject"
[ "$(head -1 "$tmp/a/summary.csv")" = "$want" ] || fail "summary.csv header is $(head -1 "$tmp/a/summary.csv")"
[ "$(head -1 "$tmp/a/breaker.csv")" = "scenario,seed,requests,allowed,rejected_pct,openings,closed_ns,open_ns,half_open_ns,max_in_window,limit,window_ns" ] ||
	fail "breaker.csv header"
rows=$(($(wc -l <"$tmp/a/summary.csv") - 1))
[ "$rows" -eq 18 ] || fail "expected 18 rows (3 scenarios x 6 algorithms), got $rows"
awk -F, 'NR > 1 && ($6 != 42 || $20 != 0) { exit 1 }' "$tmp/a/summary.csv" || fail "seed or timing column wrong"
for s in mix_060 mix_140 trace; do
	for a in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
		f="$tmp/a/series/${s}__${a}.csv"
		[ "$(head -2 "$f" 2>/dev/null)" = "# seed=42 scenario=$s algo=$a
t_ns,admitted,rejected" ] || fail "missing or bad $f (no seed line?)"
	done
	[ "$(head -3 "$tmp/a/series/breaker_$s.csv")" = "# seed=42 scenario=$s algo=breaker
t_ns,state
0,CLOSED" ] || fail "bad breaker series for $s (no seed line?)"
done
# the trace: key a gets 4 at 0 (3 admitted), then 99999999, 100000000, 100000001
awk -F, '$1 == "trace" && $2 == "sliding_log" && $7 == 11 && $8 == 9 { ok = 1 } END { exit !ok }' \
	"$tmp/a/summary.csv" || fail "trace/sliding_log: expected 11 requests, 9 admitted: $(grep '^trace,sliding_log' "$tmp/a/summary.csv")"
# a replayed trace picks no key uniformly: Jain's index is not measured (empty), never 1
awk -F, '$1 == "trace" && $17 != "" { exit 1 }' "$tmp/a/summary.csv" || fail "trace: jain_index written"
# no algorithm admits past its own documented bound (column beyond_bound)
awk -F, 'NR > 1 && $22 != 0 { exit 1 }' "$tmp/a/summary.csv" || fail "an admission beyond an algorithm's own bound"
grep -q "seed=42" "$tmp/a.out" || fail "the seed is not printed"
exit 0
