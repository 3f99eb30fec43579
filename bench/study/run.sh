#!/usr/bin/env bash
# study/run.sh BUILD RESULTS QUICK - `ratelab study` at scale: a synthetic
# trace generated deterministically (ratelab_study_gen: 10M requests over
# 100K keys in one hour of trace time; QUICK=1: 1M over 10K), studied under
# 3 rules with every algorithm on all cores, timed from start to end
# (reading the trace, the study, the files and the report), and within it
# limits.csv (every limit of the rules' three windows, as stderr times it).
# Writes RESULTS/bench/study_scale.csv (name,value) for the report's "Study
# at scale" section; the trace and the study itself are removed.
#
#   study/run.sh BUILD RESULTS QUICK [TRACE]   TRACE: the trace, written
#       before by `study/run.sh --trace BUILD QUICK TRACE` (make bench does
#       it in step 2, beside the simulator); else generated here
set -euo pipefail
# the trace's requests and keys of each mode
sizes() { if [ "$1" = 1 ]; then n=1000000 keys=10000; else n=10000000 keys=100000; fi; }
if [ "${1:-}" = --trace ]; then
	build=$2 quick=$3
	sizes "$quick"
	"$build/ratelab_study_gen" "$n" "$keys" 3600 >"$4"
	exit 0
fi
build=$1
results=$2
quick=$3
trace=${4:-}
sizes "$quick"
rules=10/1s,60/1m,1000/1h
mkdir -p "$results/bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "  study at scale: $n requests over $keys keys, rules $rules"
[ -z "$trace" ] || [ -s "$trace" ] || { echo "bench: study: $trace: no trace (bench/study/run.sh --trace)" >&2; exit 1; }
if [ -z "$trace" ]; then
	trace=$tmp/trace
	bash "$0" --trace "$build" "$quick" "$trace"
fi
t0=$(date +%s%N)
"$build/ratelab" study --trace "$trace" --rules "$rules" --out "$tmp/study" 2>"$tmp/err" ||
	{ cat "$tmp/err" >&2; exit 1; }
t1=$(date +%s%N)
meta() { awk -F, -v k="$1" '$1 == k { print $2 }' "$tmp/study/meta.csv"; }
{
	echo "name,value"
	echo "command,ratelab study --trace TRACE --rules $rules --out DIR"
	echo "generator,ratelab_study_gen $n $keys 3600"
	echo "requests,$(meta requests)"
	echo "keys,$(meta keys)"
	echo "rows,$(($(wc -l <"$tmp/study/study.csv") - 1))"
	echo "jobs,$(meta jobs)"
	echo "wall_s,$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')"
	echo "limits_windows,$(awk -F, 'NR > 1 { print $1 }' "$tmp/study/limits.csv" | sort -u | wc -l)"
	echo "limits_rows,$(($(wc -l <"$tmp/study/limits.csv") - 1))"
	echo "limits_s,$(sed -n 's/^ratelab study: limits.csv: [0-9]* windows in \([0-9.]*\) s$/\1/p' "$tmp/err")"
	echo "peak_rss_bytes,$(meta peak_rss_bytes)"
	echo "trace_bytes,$(meta trace_bytes)"
	echo "cpu,$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "cores,$(nproc)"
} >"$results/bench/study_scale.csv"
echo "  study at scale: $(awk -F, '$1 == "wall_s" { print $2 }' "$results/bench/study_scale.csv") s, limits.csv $(awk -F, '$1 == "limits_s" { print $2 }' "$results/bench/study_scale.csv") s"
