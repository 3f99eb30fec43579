#!/usr/bin/env bash
# ratelab study's traffic series: its bin adapts to the span (at most 2,000
# bins of 1 s, 10 s, 1 min, 10 min, 1 h, 1 day, 10 days or 100 days, aligned
# to the unit), so traffic.csv grows with the requests, never with the span;
# the report reads it in the log's dates, the rate per second, minute or
# hour. $1 is the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

line() { printf '10.0.0.%d - - [%s +0000] "GET / HTTP/1.1" 200 5 "-" "x"\n' "$1" "$2"; }
meta() { awk -F, -v k="$2" '$1 == k { print $2 }' "$1/meta.csv"; }

# study NAME LOG WANT_BIN_NS WANT_BINS WANT_SENTENCE
study() {
	local name=$1 log=$2 bin=$3 bins=$4 sentence=$5
	"$ratelab" study --trace "$log" --rules 20/1m --quiet --out "$tmp/$name" 2>"$tmp/err" ||
		{ fail "$name: exit $?: $(cat "$tmp/err")"; return; }
	[ "$(meta "$tmp/$name" traffic_bin_ns)" = "$bin" ] || fail "$name: traffic_bin_ns $(meta "$tmp/$name" traffic_bin_ns), want $bin"
	[ "$(($(wc -l <"$tmp/$name/traffic.csv") - 1))" -eq "$bins" ] ||
		fail "$name: $(($(wc -l <"$tmp/$name/traffic.csv") - 1)) bins, want $bins"
	[ "$(head -1 "$tmp/$name/traffic.csv" | cut -d, -f1,2)" = "t_ns,requests" ] || fail "$name: header $(head -1 "$tmp/$name/traffic.csv")"
	# every t_ns a multiple of the bin, one bin after another (bash's 64-bit integers: awk's doubles are not exact)
	local t prev= bad=
	while IFS=, read -r t _; do
		[ $((t % bin)) -eq 0 ] && { [ -z "$prev" ] || [ "$t" -eq $((prev + bin)) ]; } || bad=$t
		prev=$t
	done < <(tail -n +2 "$tmp/$name/traffic.csv")
	[ -z "$bad" ] || fail "$name: t_ns $bad is not the bin due"
	grep -qF -- "$sentence" "$tmp/$name/REPORT.md" || fail "$name: REPORT.md lacks \"$sentence\": $(grep 'Requests per' "$tmp/$name/REPORT.md")"
}

# two requests 126 years apart (the importer's range): 100-day bins; it ran out of memory before
{ line 1 '01/Jan/1970:00:00:01'; line 2 '30/Sep/2096:23:59:59'; } >"$tmp/long.log"
study long "$tmp/long.log" 8640000000000000 463 \
	"Requests per hour, counted in bins of 100 days from 1970-01-01 00:00:00 to 2096-06-28 00:00:00 (UTC)"
# 21 months (it took 25 s, 4.7 GB and an 817 MB traffic.csv): 1-day bins
{ line 1 '01/Jan/2025:10:00:00'; line 2 '30/Sep/2026:10:00:00'; } >"$tmp/months.log"
study months "$tmp/months.log" 86400000000000 638 "counted in bins of 1 day from 2025-01-01 00:00:00 to 2026-09-30 00:00:00 (UTC)"
# 10 years: 10-day bins, starting at a multiple of 10 days since 1970
{ line 1 '01/Jan/2016:10:00:00'; line 2 '30/Sep/2026:10:00:00'; } >"$tmp/years.log"
study years "$tmp/years.log" 864000000000000 393 "counted in bins of 10 days from 2015-12-31 00:00:00 to 2026-09-24 00:00:00 (UTC)"
# three hours: 10-s bins; a bin's count per 10 s is 6 per minute
{ line 1 '10/Oct/2026:13:00:05'; line 2 '10/Oct/2026:13:00:07'; line 3 '10/Oct/2026:16:00:00'; } >"$tmp/hours.log"
study hours "$tmp/hours.log" 10000000000 1081 \
	"Requests per minute, counted in bins of 10 s from 2026-10-10 13:00:00 to 2026-10-10 16:00:00 (UTC)"
grep -qF '| all requests | 3 | 12 | 2026-10-10 13:00:00 |' "$tmp/hours/REPORT.md" ||
	fail "hours: the peak row: $(grep '| all requests' "$tmp/hours/REPORT.md")"
# a minute of 1 s: the rate per second
for s in 0 0 1 2 59; do line 1 "10/Oct/2026:13:00:$(printf %02d $s)"; done >"$tmp/minute.log"
study minute "$tmp/minute.log" 1000000000 60 \
	"Requests per second, counted in bins of 1 s from 2026-10-10 13:00:00 to 2026-10-10 13:00:59 (UTC)"

finish traffic_bins
