#!/usr/bin/env bash
# run.sh - `make bench`: builds ratelab in Release into build-bench (with the
# Google Benchmark drivers), runs the simulator's default scenario set, the
# benchmarks and the bytes-per-limit probe, writes results/REPORT.md (and
# the README's tradeoff table) and draws the charts into results/plots.
#
#   QUICK=1 bash bench/run.sh   reduced set (no 10M-key store, short
#                               min_time, 3 repetitions, 2 simulator
#                               seeds): about 2 minutes
# The full run repeats every benchmark 5 times and the simulator over 5
# seeds; the report quotes medians with their ranges (`ratelab report`,
# sim/report/bench_report.h).
#
# A missing tool or library stops it with the apt-get command that fixes it.
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=${QUICK:-}
[ "$QUICK" = 1 ] || QUICK=0
BUILD=build-bench
RESULTS=results
T0=$(date +%s)
STEPS=6

step() { echo "== [$1/$STEPS] $2 (t+$(($(date +%s) - T0))s)"; }

# -- dependencies: package -> a file or command it provides
missing=()
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need_file() { [ -e "$1" ] || missing+=("$2"); }
need_cmd cmake cmake
need_cmd g++ g++
need_cmd make make
need_cmd python3 python3
need_cmd gnuplot gnuplot-nox
need_file /usr/include/benchmark/benchmark.h libbenchmark-dev
need_file /usr/include/nlohmann/json.hpp nlohmann-json3-dev
need_file /usr/include/cmocka.h libcmocka-dev # the configure step also sets up tests/
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo "
	echo "bench: missing: ${missing[*]}" >&2
	echo "bench: run: ${sudo}apt-get update && ${sudo}apt-get install -y ${missing[*]}" >&2
	echo "bench: (or: make deps)" >&2
	exit 1
fi
if ! echo 'set terminal pngcairo' | gnuplot >/dev/null 2>&1; then
	echo "bench: gnuplot has no pngcairo terminal; run: apt-get install -y gnuplot-nox" >&2
	exit 1
fi

if [ "$QUICK" = 1 ]; then
	MODE=quick MIN_TIME=0.02 REPS=3 SEEDS="1 2"
else
	MODE=full MIN_TIME=0.25 REPS=5 SEEDS="1 2 3 4 5"
fi
echo "bench: $MODE run; results in $RESULTS/"

step 1 "build (Release, -DRL_BENCH=ON) in $BUILD"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DRL_BENCH=ON >/dev/null
cmake --build "$BUILD" -j "${JOBS:-2}" --target ratelab ratelab_bench ratelab_bytes_limit \
	ratelab_study_gen access_log

step 2 "simulator: default scenario set, seeds $SEEDS -> $RESULTS/sim"
rm -rf "$RESULTS/sim"
mkdir -p "$RESULTS/sim" "$RESULTS/bench" "$RESULTS/plots"
# sim_seeds OUT [SCENARIO.ini ...]: the first seed writes OUT (its series
# too), every other seed's rows are appended to OUT's CSV files.
sim_seeds() {
	local out=$1 first=1 s f
	shift
	for s in $SEEDS; do
		if [ $first = 1 ]; then
			"$BUILD/ratelab" sim --quiet --seed "$s" --out "$out" "$@"
			first=0
			continue
		fi
		"$BUILD/ratelab" sim --quiet --seed "$s" --out "$out/seed_$s" "$@"
		for f in summary diverged breaker; do
			tail -n +2 "$out/seed_$s/$f.csv" >>"$out/$f.csv"
		done
		rm -rf "$out/seed_$s"
	done
}
sim_seeds "$RESULTS/sim" >/dev/null
if compgen -G "sim/scenarios/weighted/*.ini" >/dev/null; then
	sim_seeds "$RESULTS/sim/weighted" sim/scenarios/weighted/*.ini >/dev/null
fi
# The theory scenarios, each seed's output kept whole: the report's queueing
# theory section pools every seed's series (batch means) and fails the run on
# a point too far off its closed form (sim/report/bench_theory.c).
for s in $SEEDS; do
	"$BUILD/ratelab" sim --quiet --seed "$s" --out "$RESULTS/sim/theory/seed_$s" sim/scenarios/theory/*.ini >/dev/null
done
PEERS=${PEERS:-1} QUICK=$QUICK SEEDS=$SEEDS bash bench/peers/run.sh "$BUILD/ratelab" "$RESULTS" # the peers (PEERS=0 skips)
bash bench/fleet/run.sh "$BUILD" "$RESULTS"

step 3 "benchmarks ($MODE: min_time ${MIN_TIME}s, $REPS repetition(s)) -> $RESULTS/bench/bench.json"
# Three passes. The single-key entries (hot checks and their floors, the
# atomics, rl_limit, the breaker, the one-key stores) are compared with one
# another in the Targets table, and this shared host's speed shifts by up
# to 2x from one moment to the next; their repetitions are therefore
# randomly interleaved, so that a target and its floor sample the same
# moments. So are, in a pass of their own, the stores at 1K keys (both
# modes), their memory floors and the store's own part at 1K keys (the
# Targets table's ratios; a store of 1K keys is refilled in milliseconds).
# The rest (tables of up to 10M keys, which interleaving would refill at
# every repetition) run one benchmark after another.
SINGLE='^(hot|clock|atomic|limit|breaker)/|^(store|store1t)/[a-z_]+/1/'
KEYS1K='^((store|store1t)/[a-z_]+/1000/uniform|floor/[a-z_]+/1000/dependent)$'
bench_pass() { # filter, interleave (true/false), output
	RL_BENCH_QUICK=$QUICK "$BUILD/ratelab_bench" \
		--benchmark_filter="$1" --benchmark_enable_random_interleaving="$2" \
		--benchmark_min_time="$MIN_TIME" \
		--benchmark_repetitions="$REPS" \
		--benchmark_display_aggregates_only="$([ "$REPS" -gt 1 ] && echo true || echo false)" \
		--benchmark_out="$3" --benchmark_out_format=json
}
bench_pass "$SINGLE" true "$RESULTS/bench/bench_single.json"
bench_pass "$KEYS1K" true "$RESULTS/bench/bench_1k.json"
bench_pass "-$SINGLE|$KEYS1K" false "$RESULTS/bench/bench_rest.json"
python3 - "$RESULTS/bench" <<'PY'
import json, os, re, sys
d = sys.argv[1]
def load(f): # Google Benchmark writes NaN and inf bare: read them as null
    text = open(os.path.join(d, f)).read()
    return json.loads(re.sub(r": *-?(nan|NaN|inf|Inf|INF|NAN)([,\n}])", r": null\2", text))
passes = ("bench_single.json", "bench_1k.json", "bench_rest.json")
out = load(passes[-1])
out["benchmarks"] = [b for f in passes for b in load(f)["benchmarks"]]
json.dump(out, open(os.path.join(d, "bench.json"), "w"), indent=1)
for f in passes:
    os.remove(os.path.join(d, f))
PY

step 4 "bytes per key against the limit -> $RESULTS/bench/bytes_vs_limit.csv"
"$BUILD/ratelab_bytes_limit" >"$RESULTS/bench/bytes_vs_limit.csv"

bash bench/perf/run.sh "$RESULTS" # the perf gate's figures for the report (bench/perf/run.sh)
bash bench/redis/run.sh "$BUILD" "$RESULTS" "$QUICK"
bash bench/import/run.sh "$BUILD" "$RESULTS" "$QUICK" # ratelab import's lines per second
bash bench/study/run.sh "$BUILD" "$RESULTS" "$QUICK" # ratelab study at scale (bench/study/run.sh)
echo "  the README's study of the sample log -> $RESULTS/study-example"
bash examples/study_example.sh "$BUILD" "$RESULTS/study-example"

step 5 "report -> $RESULTS/REPORT.md"
pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo n/a; }
cpuinfo() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo | head -1; }
lscpu_field() { lscpu | awk -F: -v k="$1" '$1 == k { sub(/^ +/, "", $2); print $2 }'; }
# A cache's size: lscpu's, else the C library's (a guest may hide the sysfs lscpu reads).
cache_size() {
	local v
	v=$(lscpu_field "$1 cache")
	[ -n "$v" ] || v=$(getconf "$2" 2>/dev/null | awk '$1 >= 1048576 { printf "%d MiB", $1 / 1048576; next } $1 > 0 { printf "%d KiB", $1 / 1024 }')
	echo "${v:-unknown}"
}
hypervisor() {
	local v
	v=$(lscpu_field "Hypervisor vendor")
	[ -n "$v" ] || { grep -qw hypervisor /proc/cpuinfo && v="yes, vendor not reported" || v=none; }
	echo "$v"
}
cpu_line() {
	echo "$(cpuinfo "model name") (family $(cpuinfo "cpu family"), model $(cpuinfo model);" \
		"L1d $(cache_size L1d LEVEL1_DCACHE_SIZE), L2 $(cache_size L2 LEVEL2_CACHE_SIZE)," \
		"L3 $(cache_size L3 LEVEL3_CACHE_SIZE); hypervisor: $(hypervisor))"
}
{
	echo "cpu=$(cpu_line)"
	echo "cores=$(nproc)"
	echo "memory=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
	echo "kernel=$(uname -sr)"
	echo "os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
	echo "compiler=$(g++ --version | head -1); $(cc --version | head -1)"
	echo "cmake=$(cmake --version | head -1 | awk '{print $3}')"
	echo "benchmark=$(pkgver libbenchmark-dev) (Debian libbenchmark-dev)"
	echo "glibc=$(ldd --version | head -1 | awk '{print $NF}')"
	echo "gnuplot=$(gnuplot --version)"
	echo "nlohmann_json=$(pkgver nlohmann-json3-dev)"
	echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo n/a)"
	echo "date=$(date -u -d "@$T0" '+%Y-%m-%d %H:%M UTC')"
} >"$RESULTS/bench/env.txt"
# the report, its chart data and the README's tradeoff table (`ratelab report`, sim/report/)
report() { "$BUILD/ratelab" report "$RESULTS" --qualitative bench/qualitative.csv --readme README.md --mode "$MODE"; }
report

step 6 "charts -> $RESULTS/plots"
for gp in plots/*.gp; do
	[ "$gp" = plots/style.gp ] && continue
	echo "  $gp"
	gnuplot -e "data='$RESULTS/plots/data'; out='$RESULTS/plots'" "$gp"
done

echo "  report.html with the charts just drawn"
report >/dev/null

echo "bench: done in $(($(date +%s) - T0))s: $RESULTS/REPORT.md"
