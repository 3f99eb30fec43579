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
#   PEERS_PART=deciders|nginx|timed, PEERS_OUT=DIR   make bench's split: 2.
#             alone and 3. alone (they time nothing the report quotes as a
#             speed: bench/run.sh runs them beside the simulator, 3. at a
#             higher priority than the rest, see its step 2), their output
#             kept in DIR; then the rest, timed, with 2.'s rows appended and
#             3.'s file taken from DIR (3. runs there when DIR has no
#             nginx.json). The peers are built once, into DIR.
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

PART=${PEERS_PART:-all}
case $PART in all | deciders | nginx | timed) ;; *)
	echo "bench: peers: PEERS_PART=$PART: expected deciders, nginx, timed or nothing (all)" >&2
	exit 2
	;;
esac
[ "$PART" = all ] || [ "$PART" = timed ] && echo "  peers: the peers beside ratelab ($([ "$QUICK" = 1 ] && echo "quick: the Go peers, x/time/rate's accuracy on one scenario, nginx" || echo "all five")); make bench PEERS=0 skips them"
if [ -n "${PEERS_OUT:-}" ]; then
	OUT=$(realpath "$PEERS_OUT")
else
	[ "$PART" = all ] || { echo "bench: peers: PEERS_PART=$PART needs PEERS_OUT" >&2; exit 2; }
	OUT=$(mktemp -d)
	trap 'rm -rf "$OUT"' EXIT
fi
# GOPATH mode: the libraries from Debian, ratelabpeer (the drivers' shared part) from this tree
# GOCACHE beside the ratelab binary's build (build-bench/peers-gocache): kept between runs, so that
# an unchanged peer is not compiled again (go's cache is keyed by the sources and the toolchain)
export GOPATH="/usr/share/gocode:$(realpath "$PEERDIR/gopath")" GO111MODULE=off GOFLAGS= \
	GOCACHE="$(dirname "$RATELAB")/peers-gocache"
if [ "$QUICK" = 1 ]; then
	REPS=1 GOTIME=200000x GOTIME_1M=200000x SCALE=0.1 NODE_SCALE=0.1 NGINX_REQUESTS=60
else
	# A million keys: 500,000 ops a repetition in every harness (Go's, Guava's, Node's), about
	# 0.5 s at ~1 us an op; ratelab's own repetition of its 1M-key store is 0.05 to 0.1 s
	# (min_time); the five repetitions and their spread are the statistics, as there. Node's
	# loops are ~50x slower per op than the others': its hot and 1K-key loops run 200,000 ops
	# (0.3 s a repetition at ~1.3 us an op).
	REPS=5 GOTIME=2000000x GOTIME_1M=500000x SCALE=1 NODE_SCALE=0.1 NGINX_REQUESTS=300
fi

# -- 3. nginx limit_req vs leaky_bucket at real time (no build of the other peers needed)
nginx_agreement() {
	say "nginx_limit_req: $NGINX_REQUESTS requests at real time vs ratelab replay --algo leaky_bucket"
	python3 "$PEERDIR/nginx/agree.py" "$RATELAB" "$NGINX_REQUESTS" "$OUT/nginx.json" | sed 's/^/  peers: /'
}
if [ "$PART" = nginx ]; then
	rm -f "$OUT/nginx.json"
	nginx_agreement
	exit 0
fi

if [ ! -e "$OUT/built" ]; then # once per OUT: the deciders' part builds them for the timed part
	say "build: go (x/time/rate, juju/ratelimit), javac (guava)"
	for p in go_x_time_rate go_juju_ratelimit; do
		# the benchmark's test binary too: no compiler runs in the timed part
		(cd "$PEERDIR/$p" && go vet . && go build -o "$OUT/$p" . && go test -c -o "$OUT/$p.test" .)
	done
	# javac has no cache: its classes kept beside GOCACHE, compiled again when the source is newer
	src="$PEERDIR/guava/src/com/google/common/util/concurrent/RatelabGuavaPeer.java"
	classes="$(dirname "$RATELAB")/peers-guava"
	if [ ! -e "$classes/stamp" ] || [ "$src" -nt "$classes/stamp" ]; then
		rm -rf "$classes"
		mkdir -p "$classes"
		javac -d "$classes" -cp /usr/share/java/guava.jar "$src"
		touch "$classes/stamp"
	fi
	rm -rf "$OUT/guava"
	cp -r "$classes" "$OUT/guava"
	touch "$OUT/built"
fi
GUAVA="java -cp /usr/share/java/guava.jar:$OUT/guava com.google.common.util.concurrent.RatelabGuavaPeer"
NODE="node $(realpath "$PEERDIR/node/peer.js")"

# -- 2. accuracy: each decider through the simulator (no timing: beside other work in make bench)
deciders=("go_x_time_rate|$OUT/go_x_time_rate decide")
if [ "$QUICK" = 1 ]; then
	scenarios=(sim/scenarios/poisson.ini)
else
	scenarios=() # the default set
	# the decider JVM on the serial collector: a third less CPU than the default's GC threads
	# on 2 cores, the same answers (the timed Java loop below keeps the JVM's defaults)
	deciders+=("go_juju_ratelimit|$OUT/go_juju_ratelimit decide" "guava|${GUAVA/java /java -XX:+UseSerialGC } decide"
		"node_rlf|$NODE decide")
fi
# Each run is a pair, the simulator and the decider; the simulator sends
# requests ahead of their answers where no answer can change them
# (--decider-window, sim_traffic.h) and waits only on closed-loop clients
# (clients.ini, the adversary). Two pairs run at a time, the longest first
# (Node's, then Guava's, about 33 and 22 s alone; each Go pair about 9 s):
# a pair keeps about one and a half cores busy, and all four at once on 2
# cores took a third more CPU (156 s against 115 s two at a time) in
# hand-offs between eight processes. Any failure fails the part.
run_decider() { # index into deciders
	local d=${deciders[$1]} name
	name=${d%%|*}
	say "$name: ratelab sim --decider --seed $SEED on ${scenarios[*]:-the default scenarios}"
	"$RATELAB" sim --no-timing --quiet --seed "$SEED" --out "$OUT/sim_$name" --decider "${d#*|}" --decider-name "$name" \
		"${scenarios[@]}" >"$OUT/sim_$name.log" 2>&1
}
run_deciders() {
	local order=() i q pid pids=() rc=0
	for i in "${!deciders[@]}"; do # the longest first: node_rlf, guava, then the Go peers
		case ${deciders[i]%%|*} in node_rlf | guava) order=("$i" "${order[@]}") ;; *) order+=("$i") ;; esac
	done
	for q in 0 1; do
		(
			set -e
			for ((i = q; i < ${#order[@]}; i += 2)); do run_decider "${order[i]}"; done
		) &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
	[ $rc = 0 ] || { cat "$OUT"/sim_*.log >&2; echo "bench: peers: a decider run failed (exit status $rc)" >&2; exit 1; }
	say "deciders done"
}
if [ "$PART" != timed ]; then
	rm -rf "$OUT"/sim_*
	run_deciders
fi
[ "$PART" != deciders ] || exit 0

# -- 1. speed and memory, each in its own harness: "FIGURE VALUE" lines per peer
for p in go_x_time_rate go_juju_ratelimit; do
	say "$p: go test -bench . -benchtime $GOTIME ($GOTIME_1M at 1M keys) -count $REPS (its test binary); bytes per key"
	(cd "$PEERDIR/$p" &&
		"$OUT/$p.test" -test.run '^$' -test.bench 'Hot|Keys1K' -test.benchtime "$GOTIME" -test.count "$REPS" &&
		"$OUT/$p.test" -test.run '^$' -test.bench 'Keys1M' -test.benchtime "$GOTIME_1M" -test.count "$REPS") |
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

# -- 3., unless PEERS_PART=nginx ran it beside the simulator
if [ "$PART" = all ] || [ ! -f "$OUT/nginx.json" ]; then
	nginx_agreement
else
	say "nginx_limit_req: its agreement from step 2 ($OUT/nginx.json)"
fi

python3 "$PEERDIR/collect.py" "$OUT" "$RESULTS/bench/peers.json"
say "wrote $RESULTS/bench/peers.json"

# -- 2.'s rows into the simulator's results
for d in "${deciders[@]}"; do
	name=${d%%|*}
	[ -f "$OUT/sim_$name/summary.csv" ] || { echo "bench: peers: $name: no decider run in $OUT (PEERS_PART=deciders first)" >&2; exit 1; }
	tail -n +2 "$OUT/sim_$name/summary.csv" >>"$RESULTS/sim/summary.csv"
	tail -n +2 "$OUT/sim_$name/diverged.csv" >>"$RESULTS/sim/diverged.csv"
	cp "$OUT/sim_$name/series/"*"__peer_$name.csv" "$RESULTS/sim/series/"
	say "$name: $(($(wc -l <"$OUT/sim_$name/summary.csv") - 1)) rows peer_$name -> $RESULTS/sim/summary.csv"
done
