#!/usr/bin/env bash
# study/long_span.sh BUILD RESULTS - `ratelab study`'s cost on a log whose
# span is long and whose requests are few: two combined-log lines dated
# 1970-01-01 and 2096-09-30 (126 years apart, the importer's range), timed
# and measured by /usr/bin/time -v (wall time, peak resident set) against
# the bound of issue 40: under 1 s and 50 MiB, the cost growing with the
# requests, never with the span. Writes RESULTS/bench/study_long_span.csv
# (name,value); a bound exceeded is said on stderr, not failed (a benchmark
# of a shared machine, not a test).
set -euo pipefail
build=$1
results=$2
mkdir -p "$results/bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x /usr/bin/time ] || { echo "study long span: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
printf '%s\n' \
	'10.0.0.1 - - [01/Jan/1970:00:00:01 +0000] "GET / HTTP/1.1" 200 5 "-" "x"' \
	'10.0.0.2 - - [30/Sep/2096:23:59:59 +0000] "GET / HTTP/1.1" 200 5 "-" "x"' >"$tmp/long.log"
echo "  study of a long span: 2 requests 126 years apart"
/usr/bin/time -v "$build/ratelab" study --trace "$tmp/long.log" --rules 20/1m --quiet --out "$tmp/study" \
	2>"$tmp/time" || { cat "$tmp/time" >&2; exit 1; }
# /usr/bin/time -v: "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:00.72", "Maximum resident set size (kbytes): 25976"
wall_s=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$tmp/time" |
	awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
rss_kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
meta() { awk -F, -v k="$1" '$1 == k { print $2 }' "$tmp/study/meta.csv"; }
{
	echo "name,value"
	echo "command,ratelab study --trace LOG --rules 20/1m --out DIR"
	echo "log,2 combined lines: 1970-01-01T00:00:01Z and 2096-09-30T23:59:59Z"
	echo "wall_s,$wall_s"
	echo "max_rss_kib,$rss_kib"
	echo "peak_rss_bytes,$(meta peak_rss_bytes)"
	echo "traffic_bin_ns,$(meta traffic_bin_ns)"
	echo "traffic_bins,$(($(wc -l <"$tmp/study/traffic.csv") - 1))"
	echo "traffic_csv_bytes,$(wc -c <"$tmp/study/traffic.csv")"
	echo "bound_wall_s,1"
	echo "bound_rss_kib,51200"
	echo "cpu,$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
} >"$results/bench/study_long_span.csv"
echo "  study of a long span: ${wall_s} s, ${rss_kib} KiB peak RSS, $(($(wc -l <"$tmp/study/traffic.csv") - 1)) traffic bins"
awk -v w="$wall_s" -v r="$rss_kib" 'BEGIN { exit !(w >= 1 || r >= 51200) }' &&
	echo "study long span: over the bound (1 s, 50 MiB): ${wall_s} s, ${rss_kib} KiB" >&2
exit 0
