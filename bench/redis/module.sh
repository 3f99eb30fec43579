#!/usr/bin/env bash
# bench/redis/module.sh BUILD [N] - ratelab.so against a plain GCRA script
# on one redis-server (free loopback port) loading the module: for each, N
# pipelined decisions (redis-benchmark, one client, pipeline 100, 100000
# keys, times passed in epoch ns as a service passes them), their rate and
# the server's time per decision (INFO commandstats usec_per_call after a
# CONFIG RESETSTAT); then `ratelab replay --redis --redis-batch 100` on a
# trace of epoch-ns times through the module and through the scripts
# (RATELAB_REDIS_SCRIPTS=1). Prints one table row per line. N defaults to
# 200000.
set -euo pipefail
BUILD=$1 N=${2:-200000}
module=$BUILD/algos/redis/module/ratelab.so
ratelab=$BUILD/ratelab
cmake --build "$BUILD" -j "${JOBS:-2}" --target ratelab_module ratelab >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
	--loadmodule "$(realpath "$module")" >"$dir/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.01; done
cli() { redis-cli -p "$port" "$@"; }

# The inexact reference: TAT as a Lua number, one GET and one SET; its TTL
# gets the same grace as the module's keys below.
gcra_lua='local now, t, tau, grace = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local tat = math.max(tonumber(redis.call("GET", KEYS[1]) or 0), now)
if tat - now > tau then return {0, tat - now - tau} end
tat = tat + t
redis.call("SET", KEYS[1], tat, "PX", math.ceil((tat - now) / 1e6) + grace)
return {1, 0}'
sha=$(cli script load "$gcra_lua")
now=1796000000000000000

# name, command name in commandstats, then the command
run() {
	local name=$1 stat=$2
	shift 2
	cli flushall >/dev/null
	cli config resetstat >/dev/null
	local rps
	rps=$(redis-benchmark -p "$port" -c 1 -P 100 -n "$N" -r 10000 --csv "$@" | awk -F'"' 'NR == 2 { print $4 }')
	local us
	us=$(cli info commandstats | tr -d '\r' | awk -F'[=,]' -v c="cmdstat_$stat:calls" '$1 == c { print $6 }')
	printf '%-44s %12.0f decisions/s  %6s us/decision (server)\n' "$name" "$rps" "$us"
}

echo "redis-server $(redis-server --version | awk '{print $3}'), one client, pipeline 100, $N decisions, 10000 keys"
run "plain GCRA script (Lua numbers)" evalsha evalsha "$sha" 1 "k:__rand_int__" "$now" 1000 1000000 60000
# a grace of a minute: keys stay, as a service's keys do (else each
# request of a 1 us emission interval finds its key expired, a fresh one)
run "RATELAB.CHECK gcra, caller's time" ratelab.check ratelab.check "m:__rand_int__" gcra 1000000 1000000000 1000000 1 "$now" 60000
run "RATELAB.CHECK gcra, server clock (*)" ratelab.check ratelab.check "c:__rand_int__" gcra 1000000 1000000000 1000000 1 '*' 60000
for algo in token_bucket leaky_bucket fixed_window sliding_counter sliding_log; do
	run "RATELAB.CHECK $algo, caller's time" ratelab.check ratelab.check "m:__rand_int__" $algo 1000000 1000000000 1000000 1 "$now" 60000
done
run "INCR (the floor)" incr incr "i:__rand_int__"
run "SET key value PXAT (one key write)" set set "s:__rand_int__" 0123456789abcdef0123 PXAT 1900000000000

# replay --redis, batch 100: the backend end to end, module and scripts.
awk -v n=50000 -v t=$now 'BEGIN { srand(7); for (i = 0; i < n; i++) { t += int(rand() * 20000); printf "%.0f u%d\n", t, int(rand() * 1000) } }' >"$dir/trace"
for mode in module scripts; do
	cli flushall >/dev/null
	cli config resetstat >/dev/null
	env=()
	[ $mode = scripts ] && env=(RATELAB_REDIS_SCRIPTS=1)
	start=$(date +%s.%N)
	env "${env[@]}" "$ratelab" replay --algo gcra --limit 100 --window 1s --redis "127.0.0.1:$port" --redis-batch 100 \
		<"$dir/trace" >/dev/null 2>"$dir/err"
	end=$(date +%s.%N)
	stat=$([ $mode = module ] && echo ratelab.check || echo evalsha)
	us=$(cli info commandstats | tr -d '\r' | awk -F'[=,]' -v c="cmdstat_$stat:calls" '$1 == c { print $6 }')
	printf '%-44s %12.0f decisions/s  %6s us/decision (server)  [%s]\n' "replay --redis --redis-batch 100 ($mode)" \
		"$(echo "50000 / ($end - $start)" | bc -l)" "$us" "$(tr '\n' ' ' <"$dir/err")"
done
