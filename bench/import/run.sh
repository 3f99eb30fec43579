#!/usr/bin/env bash
# bench/import/run.sh BUILD RESULTS QUICK - the importer's step of `make
# bench`: writes a large sample nginx access log (examples/access_log with
# a long --duration: about 1M lines under QUICK=1, 4M otherwise), then
# times `ratelab import --format combined LOG > /dev/null` several times
# (the whole command: read, parse, sort, write) and writes the figures to
# RESULTS/bench/import.json: lines per CPU second (user + system time of
# the one-threaded process, which a busy shared host does not inflate) and
# per wall-clock second, medians of the runs; then the same log gzipped
# (gzip -6, as logrotate compresses), read through zlib.
#
#   bench/import/run.sh BUILD RESULTS QUICK [INPUTS]   INPUTS: a folder where
#       `bench/import/run.sh --inputs BUILD QUICK INPUTS` wrote the two logs
#       (make bench does it in step 2, beside the simulator: making them
#       times nothing, about 12 s of the step's 23 s before); else made here
set -euo pipefail
# the log's length and the runs of each mode
sizes() { if [ "$1" = 1 ]; then duration=55000 runs=3; else duration=220000 runs=5; fi; }
if [ "${1:-}" = --inputs ]; then
	BUILD=$2 QUICK=$3 dir=$4
	sizes "$QUICK"
	mkdir -p "$dir"
	"$BUILD/examples/access_log" --duration "$duration" >"$dir/access.log"
	gzip -6 -c "$dir/access.log" >"$dir/access.log.gz"
	echo "$duration" >"$dir/duration"
	exit 0
fi
BUILD=$1 RESULTS=$2 QUICK=$3 INPUTS=${4:-}
sizes "$QUICK"
[ -z "$INPUTS" ] || [ "$(cat "$INPUTS/duration" 2>/dev/null)" = "$duration" ] ||
	{ echo "bench: import: $INPUTS holds no logs of --duration $duration (bench/import/run.sh --inputs)" >&2; exit 1; }
cmake --build "$BUILD" -j "${JOBS:-2}" --target ratelab access_log >/dev/null
if [ -n "$INPUTS" ]; then
	dir=$INPUTS
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	bash "$0" --inputs "$BUILD" "$QUICK" "$dir"
fi
DURATION=$duration python3 - "$BUILD/ratelab" "$dir/access.log" "$runs" "$RESULTS/bench/import.json" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
ratelab, log, runs, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
lines = sum(1 for _ in open(log, "rb"))
def measure(path):
    cmd = [ratelab, "import", "--format", "combined", path]
    results = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        last = p.stderr.decode().strip().splitlines()[-1]
        if last != f"ratelab import: skipped 0 of {lines} lines":
            sys.exit(f"import: unexpected stderr: {last}")
        results.append({"cpu_s": cpu, "wall_s": wall})
    return results, statistics.median(r["cpu_s"] for r in results), statistics.median(r["wall_s"] for r in results)
results, cpu, wall = measure(log)
gz_results, gz_cpu, gz_wall = measure(log + ".gz")
cpu_model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
json.dump({"lines": lines, "bytes": os.path.getsize(log), "runs": results,
           "median_cpu_s": cpu, "median_wall_s": wall,
           "lines_per_cpu_s": lines / cpu, "lines_per_wall_s": lines / wall,
           "target_lines_per_s": 2000000,
           "gz": {"bytes": os.path.getsize(log + ".gz"), "runs": gz_results, "median_cpu_s": gz_cpu,
                  "median_wall_s": gz_wall, "lines_per_cpu_s": lines / gz_cpu, "lines_per_wall_s": lines / gz_wall},
           "command": "ratelab import --format combined access.log > /dev/null",
           "log": "examples/access_log --duration " + os.environ["DURATION"],
           "cpu": cpu_model}, open(out, "w"), indent=1)
print(f"  import: {lines} lines, {lines / cpu / 1e6:.2f}M lines per CPU second "
      f"({lines / wall / 1e6:.2f}M per wall second; .gz: {lines / gz_cpu / 1e6:.2f}M per CPU second), "
      f"median of {runs} -> {out}")
PY
