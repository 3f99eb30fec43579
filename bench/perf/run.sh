#!/usr/bin/env bash
# run.sh - make bench's performance step: the gate's exact per-operation
# figures of this tree (bench/perf/perf.py measure, its own Release build in
# build-perf) -> RESULTS/bench/perf.json, for the report's tracking section.
# Deterministic: the same tree gives the same file but for its date.
#
#   bash bench/perf/run.sh [RESULTS]    (default results)
set -euo pipefail
cd "$(dirname "$0")/../.."
RESULTS=${1:-results}
command -v valgrind >/dev/null || { echo "bench: valgrind missing; run: apt-get install -y valgrind (or: make deps)" >&2; exit 1; }
echo "== perf: callgrind figures of every gate entry -> $RESULTS/bench/perf.json"
mkdir -p "$RESULTS/bench"
# --reuse: binaries measured before (a previous run, make perf-check) are not measured again:
# their counts are exact: the same figures, with this commit's id and the date they were
# measured (perf.py, "Measured once")
/usr/bin/python3 bench/perf/perf.py --build build-perf measure --reuse --out "$RESULTS/bench/perf.json"
