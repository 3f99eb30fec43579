#!/usr/bin/env bash
# bench/redis/run.sh BUILD RESULTS QUICK - the Redis backend's step of `make
# bench`: starts a redis-server on a free loopback port, measures
# redis-benchmark's EVALSHA ceiling for a trivial script (one client,
# pipeline 1, 10, 100) and then ratelab_redis_bench (the same client
# count and pipelines, every algorithm), into RESULTS/bench/redis.json;
# stops the server. Without redis-server or the Redis backend it says so
# and writes nothing (the report then says "not run").
set -euo pipefail
BUILD=$1 RESULTS=$2 QUICK=$3
cmake --build "$BUILD" -j "${JOBS:-2}" --target ratelab_redis_bench >/dev/null 2>&1 || true
if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null ||
	[ ! -x "$BUILD/ratelab_redis_bench" ]; then
	echo "  redis: not run (redis-server, redis-benchmark or the Redis backend missing: make deps)"
	rm -f "$RESULTS/bench/redis.json"
	exit 0
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.01; done
if [ "$QUICK" = 1 ]; then n=20000 secs=0.3; else n=200000 secs=2; fi
sha=$(redis-cli -p "$port" script load 'return 1')
ceil=()
for p in 1 10 100; do
	ceil+=("$(redis-benchmark -p "$port" -c 1 -n "$n" -P "$p" --csv evalsha "$sha" 0 |
		awk -F'"' 'NR == 2 { print $4 }')")
done
"$BUILD/ratelab_redis_bench" "$port" "$secs" "${ceil[@]}" >"$RESULTS/bench/redis.json.tmp"
mv "$RESULTS/bench/redis.json.tmp" "$RESULTS/bench/redis.json"
echo "  redis: $RESULTS/bench/redis.json (redis-server $(redis-server --version | awk '{print $3}'))"
