#!/usr/bin/env bash
# bench/redis/run.sh BUILD RESULTS QUICK [SECS] - the Redis section's step of `make
# bench`: starts one redis-server on a free loopback port (with ratelab.so
# loaded when the build has the module), measures redis-benchmark's
# EVALSHA ceiling for a trivial script (one client, pipeline 1, 10, 100),
# then, on that server in that run, ratelab_redis_bench (every
# algorithm's script, the module's RATELAB.CHECK when loaded, the plain
# GCRA script bench/redis/plain_gcra.lua) into RESULTS/bench/redis.json,
# and rate-limiter-flexible's RateLimiterRedis (bench/peers/node/redis.js,
# when `make deps` installed it) into RESULTS/bench/redis_rlf.json; stops
# the server. Without redis-server or the Redis backend it says so and
# writes nothing (the report then says "not run"). SECS: the length of one
# run of ratelab_redis_bench at one in-flight depth (a round of the server's
# time is half of it); default 0.3, 0.05 with QUICK=1 (bench/run.sh passes
# the same). At 0.3 s its p99 at 1 in flight is of several thousand round
# trips (3,305 at 11,000 a second on a 2-core machine under load; more when
# quiet: 33 samples beyond it or more), and each round's server time an
# average over ten thousand calls or more; the 5 rounds stay. The step costs
# about 69 s per second of SECS plus 10 s fixed (exactness traces, bytes per
# key, the primitives): 0.5 s, the length until 2026-12, cost 14 s more.
set -euo pipefail
BUILD=$1 RESULTS=$2 QUICK=$3
if [ "$QUICK" = 1 ]; then n=10000 secs=0.05; else n=50000 secs=0.3; fi
secs=${4:-$secs}
cmake --build "$BUILD" -j "${JOBS:-2}" --target ratelab_redis_bench ratelab >/dev/null 2>&1 || true
# the module, when this tree has it (algos/redis/module)
cmake --build "$BUILD" -j "${JOBS:-2}" --target ratelab_module >/dev/null 2>&1 || true
rm -f "$RESULTS/bench/redis.json" "$RESULTS/bench/redis_rlf.json"
if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null ||
	[ ! -x "$BUILD/ratelab_redis_bench" ]; then
	echo "  redis: not run (redis-server, redis-benchmark or the Redis backend missing: make deps)"
	exit 0
fi
module=$(find "$BUILD" -name ratelab.so -type f -print -quit 2>/dev/null || true)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
	${module:+--loadmodule "$(realpath "$module")"} >"$dir/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1000); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.002; done
sha=$(redis-cli -p "$port" script load 'return 1')
ceil=()
for p in 1 10 100; do
	ceil+=("$(redis-benchmark -p "$port" -c 1 -n "$n" -P "$p" --csv evalsha "$sha" 0 |
		awk -F'"' 'NR == 2 { print $4 }')")
done
# the scripts and the module both (the bench keeps one backend to each)
"$BUILD/ratelab_redis_bench" "$port" "$secs" bench/redis/plain_gcra.lua algos/redis/lua/lib.lua "${ceil[@]}" \
	>"$RESULTS/bench/redis.json.tmp"
mv "$RESULTS/bench/redis.json.tmp" "$RESULTS/bench/redis.json"
echo "  redis: $RESULTS/bench/redis.json (redis-server $(redis-server --version | awk '{print $3}')," \
	"module: ${module:-not built})"
node_dir=bench/peers/node
if command -v node >/dev/null && [ -e "$node_dir/node_modules/ioredis/package.json" ] &&
	[ -e "$node_dir/node_modules/rate-limiter-flexible/package.json" ]; then
	node "$node_dir/redis.js" "$port" "$secs" "$(realpath "$BUILD/ratelab")" >"$RESULTS/bench/redis_rlf.json.tmp"
	mv "$RESULTS/bench/redis_rlf.json.tmp" "$RESULTS/bench/redis_rlf.json"
	echo "  redis: $RESULTS/bench/redis_rlf.json (rate-limiter-flexible)"
else
	echo "  redis: rate-limiter-flexible not run (node, or its packages: make deps)"
fi
