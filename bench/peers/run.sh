#!/usr/bin/env bash
# peers/run.sh - the limiters people deploy, beside ratelab in one `make
# bench` run (called by bench/run.sh with the ratelab binary and results/):
#   1. each peer's native benchmark (go test -bench; a warmed-up Java loop
#      with System.nanoTime; a Node loop with process.hrtime.bigint): one hot
#      key, 1K and 1M keys uniform, bytes per key  -> RESULTS/bench/peers.json
#   2. each peer's decider mode scored by `ratelab sim --decider` on the
#      default scenarios, with the first of SEEDS (bench/run.sh's simulator
#      seeds); its rows (peer_NAME) appended to RESULTS/sim/
#      summary.csv and diverged.csv, its series copied to RESULTS/sim/series
#   3. nginx limit_req against leaky_bucket, decision by decision (real nginx,
#      real HTTP, real time)
#
#   PEERS=0   skip them all (peers.json removed: the report says "not run")
#   QUICK=1   one repetition, short loops, the Go x/time/rate decider on one
#             scenario (poisson), 60 nginx requests
# A missing toolchain stops it with the install command.
set -euo pipefail
cd "$(dirname "$0")/../.."

RATELAB=$(realpath "$1")
RESULTS=$2
QUICK=${QUICK:-0}
PEERS=${PEERS:-1}
SEED=${SEEDS:-1}
SEED=${SEED%% *} # the deciders run on the first of bench/run.sh's seeds, as its first sim run
PEERDIR=bench/peers
T0=$(date +%s)
say() { echo "  peers: $* (t+$(($(date +%s) - T0))s)"; }

if [ "$PEERS" = 0 ]; then
	rm -f "$RESULTS/bench/peers.json"
	echo "  peers: skipped (PEERS=0)"
	exit 0
fi

# -- toolchains: package -> a file or command it provides
missing=()
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need_file() { [ -e "$1" ] || missing+=("$2"); }
need_cmd go golang-go
need_file /usr/share/gocode/src/golang.org/x/time/rate/rate.go golang-golang-x-time-dev
need_file /usr/share/gocode/src/github.com/juju/ratelimit/ratelimit.go golang-github-juju-ratelimit-dev
need_file /usr/share/java/guava.jar libguava-java
need_cmd javac default-jdk-headless
need_cmd node nodejs
need_cmd nginx nginx-core
need_cmd python3 python3
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo "
	echo "bench: peers: missing: ${missing[*]}" >&2
	echo "bench: run: ${sudo}apt-get update && ${sudo}apt-get install -y ${missing[*]}" >&2
	echo "bench: (or: make deps; or skip the peers: make bench PEERS=0)" >&2
	exit 1
fi
if [ ! -e "$PEERDIR/node/node_modules/rate-limiter-flexible/package.json" ]; then
	echo "bench: peers: rate-limiter-flexible is not installed; run: (cd $PEERDIR/node && npm ci)" >&2
	echo "bench: (or: make deps; or skip the peers: make bench PEERS=0)" >&2
	exit 1
fi

echo "  peers: the peers beside ratelab ($([ "$QUICK" = 1 ] && echo "quick: the Go peers, x/time/rate's accuracy on one scenario, nginx" || echo "all five")); make bench PEERS=0 skips them"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# GOPATH mode: the libraries from Debian, ratelabpeer (the drivers' shared part) from this tree
export GOPATH="/usr/share/gocode:$(realpath "$PEERDIR/gopath")" GO111MODULE=off GOFLAGS= GOCACHE="$OUT/gocache"
if [ "$QUICK" = 1 ]; then
	REPS=1 GOTIME=200000x SCALE=0.1 NODE_SCALE=0.1 NGINX_REQUESTS=60
else
	# Node's loop is ~50x slower per op than the others': a quarter of the ops keeps it near a minute
	REPS=5 GOTIME=2000000x SCALE=1 NODE_SCALE=0.25 NGINX_REQUESTS=300
fi

say "build: go (x/time/rate, juju/ratelimit), javac (guava)"
for p in go_x_time_rate go_juju_ratelimit; do
	(cd "$PEERDIR/$p" && go vet . && go build -o "$OUT/$p" .)
done
mkdir -p "$OUT/guava"
javac -d "$OUT/guava" -cp /usr/share/java/guava.jar \
	"$PEERDIR/guava/src/com/google/common/util/concurrent/RatelabGuavaPeer.java"
GUAVA="java -cp /usr/share/java/guava.jar:$OUT/guava com.google.common.util.concurrent.RatelabGuavaPeer"
NODE="node $(realpath "$PEERDIR/node/peer.js")"

# -- 1. speed and memory, each in its own harness: "FIGURE VALUE" lines per peer
for p in go_x_time_rate go_juju_ratelimit; do
	say "$p: go test -bench . -benchtime $GOTIME -count $REPS; bytes per key"
	(cd "$PEERDIR/$p" && go test -run '^$' -bench . -benchtime "$GOTIME" -count "$REPS" .) |
		awk '$1 ~ /^Benchmark/ && $4 == "ns/op" {
			sub(/-[0-9]+$/, "", $1)
			f = $1 == "BenchmarkHot" ? "hot_ns" : $1 == "BenchmarkKeys1K" ? "keys_1k_ns" : "keys_1m_ns"
			print f, $3 }' >"$OUT/$p.txt"
	echo "bytes_per_key $("$OUT/$p" bytes)" >>"$OUT/$p.txt"
done
if [ "$QUICK" != 1 ]; then
	say "guava: Java loop, $REPS repetitions"
	$GUAVA bench "$REPS" "$SCALE" >"$OUT/guava.txt"
	say "node_rlf: Node loop, $REPS repetitions"
	node --expose-gc "$PEERDIR/node/peer.js" bench "$REPS" "$NODE_SCALE" >"$OUT/node_rlf.txt"
fi

# -- 3. nginx limit_req vs leaky_bucket at real time
say "nginx_limit_req: $NGINX_REQUESTS requests at real time vs ratelab replay --algo leaky_bucket"
python3 "$PEERDIR/nginx/agree.py" "$RATELAB" "$NGINX_REQUESTS" "$OUT/nginx.json" | sed 's/^/  peers: /'

python3 "$PEERDIR/collect.py" "$OUT" "$RESULTS/bench/peers.json"
say "wrote $RESULTS/bench/peers.json"

# -- 2. accuracy: each decider through the simulator, two at a time (each run is a lockstep pair)
deciders=("go_x_time_rate|$OUT/go_x_time_rate decide")
if [ "$QUICK" = 1 ]; then
	scenarios=(sim/scenarios/poisson.ini)
else
	scenarios=() # the default set
	deciders+=("go_juju_ratelimit|$OUT/go_juju_ratelimit decide" "guava|$GUAVA decide" "node_rlf|$NODE decide")
fi
pids=()
for d in "${deciders[@]}"; do
	name=${d%%|*}
	say "$name: ratelab sim --decider --seed $SEED on ${scenarios[*]:-the default scenarios}"
	"$RATELAB" sim --no-timing --quiet --seed "$SEED" --out "$OUT/sim_$name" --decider "${d#*|}" --decider-name "$name" \
		"${scenarios[@]}" >"$OUT/sim_$name.log" &
	pids+=($!)
	if [ ${#pids[@]} = 2 ]; then
		wait "${pids[0]}"
		pids=("${pids[1]}")
	fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
for d in "${deciders[@]}"; do
	name=${d%%|*}
	tail -n +2 "$OUT/sim_$name/summary.csv" >>"$RESULTS/sim/summary.csv"
	tail -n +2 "$OUT/sim_$name/diverged.csv" >>"$RESULTS/sim/diverged.csv"
	cp "$OUT/sim_$name/series/"*"__peer_$name.csv" "$RESULTS/sim/series/"
	say "$name: $(($(wc -l <"$OUT/sim_$name/summary.csv") - 1)) rows peer_$name -> $RESULTS/sim/summary.csv"
done
