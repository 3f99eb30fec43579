#!/bin/bash
# ratelab import on logs as real servers write them (fixtures in
# tests/cli/import/, one per format, written from each format's
# documented layout): AWS Application and Classic load balancers, Caddy's
# JSON (nested fields by dotted names, ts in float seconds read exactly),
# Apache vhost_combined, HAProxy behind a syslog prefix; detected and
# selected with --format. Times as logs have them: ISO 8601 without an
# offset (UTC, or --tz), nginx's $time_local inside JSON and CSV,
# --time-format. A bad line anywhere is skipped and counted by reason;
# no request, or the same file twice, is an error; a repeated JSON member
# or CSV column is named; a quoted CSV field holds line breaks. The trace
# keeps its absolute times: a study of the trace equals the study of the
# log. Expected times are epoch seconds worked out by hand (and checked
# with Python's datetime). $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"
fx=$(cd "$(dirname "$0")/import" && pwd)

# imp NAME WANT ARGS...: `ratelab import ARGS` exits 0 with stdout == WANT.
imp() {
	local name=$1 want=$2 out rc
	shift 2
	out=$("$ratelab" import "$@" 2>"$tmp/err"); rc=$?
	[ $rc -eq 0 ] || fail "$name: exit $rc (stderr: $(cat "$tmp/err"))"
	[ "$out" = "$want" ] || fail "$name: ratelab import $*
--- got:
$out
--- want:
$want"
}
# has NAME NEEDLE: the last run's stderr holds NEEDLE.
has() { grep -qF -- "$2" "$tmp/err" || fail "$1: stderr lacks \"$2\": $(cat "$tmp/err")"; }
# bad NAME NEEDLE ARGS...: `ratelab import ARGS` exits 2, nothing on stdout, stderr holds NEEDLE.
bad() {
	local name=$1 needle=$2 out rc
	shift 2
	out=$("$ratelab" import "$@" 2>"$tmp/err"); rc=$?
	[ $rc -eq 2 ] && [ -z "$out" ] || fail "$name: exit $rc, stdout '$out' (stderr: $(cat "$tmp/err"))"
	has "$name" "$needle"
}

# -- AWS ALB: 2026-07-02T22:23:00Z is 1783030980 s; the client without its port
# (IPv6 too); the last line (a request refused before any client: '-') skipped.
imp alb '# ratelab trace: resolution_ns=1000 spread=no origin_ns=0
1783030979500000000 192.168.131.39
1783030980000001000 2001:db8::1
1783030980186641000 192.168.131.39' "$fx/alb.log"
has alb 'format alb (detected from'
has alb 'time resolution 1us'
has alb "skipped 1 line for their key ($fx/alb.log:4)"
has alb 'skipped 1 of 4 lines'
imp alb_path '# ratelab trace: resolution_ns=1000 spread=no origin_ns=0
1783030979500000000 /b
1783030980000001000 /a
1783030980186641000 /index.html' --format alb --key path "$fx/alb.log"
imp alb_bytes '# ratelab trace: resolution_ns=1000 spread=no origin_ns=0
1783030980000001000 2001:db8::1 57
1783030980186641000 192.168.131.39 366' --cost-field bytes "$fx/alb.log"
has alb_bytes "skipped 1 line for their cost ($fx/alb.log:3)"
# a cost of 0 takes nothing: admitted with no state change, counted, left out of the trace
sed 's/ 200 200 0 57 / 200 200 0 0 /' "$fx/alb.log" >"$tmp/alb0.log"
imp alb_cost_zero '# ratelab trace: resolution_ns=1000 spread=no origin_ns=0
1783030980186641000 192.168.131.39 366' --cost-field bytes "$tmp/alb0.log"
has alb_cost_zero '1 request of cost 0 takes nothing: admitted with no state change, left out of the trace'
has alb_cost_zero 'skipped 2 of 4 lines'
# -- Classic ELB: 2026-05-13T23:39:43Z is 1778715583 s
imp elb '# ratelab trace: resolution_ns=1000 spread=no origin_ns=0
1778715583945958000 192.168.131.39
1778715583945958000 192.168.131.40
1778715584000000000 192.168.131.39' "$fx/elb.log"
has elb 'format alb (detected from'
imp elb_ip_path '# ratelab trace: resolution_ns=1000 spread=no origin_ns=0
1778715583945958000 192.168.131.39/
1778715583945958000 192.168.131.40/x
1778715584000000000 192.168.131.39/' --key ip+path "$fx/elb.log"

# -- Caddy: ts read as decimal digits (1646861401.1 is exactly ...401100000000),
# the key request.remote_ip; --key-field request.client_ip picks the other
imp caddy '# ratelab trace: resolution_ns=10000000 spread=no origin_ns=0
1646861401100000000 10.0.0.2
1646861401520000000 127.0.0.1
1646861402000000000 127.0.0.1' "$fx/caddy.jsonl"
has caddy 'format caddy (detected from'
imp caddy_client '# ratelab trace: resolution_ns=10000000 spread=no origin_ns=0
1646861401100000000 203.0.113.9 512
1646861401520000000 127.0.0.1 10900' --format caddy --key-field request.client_ip --cost-field size "$fx/caddy.jsonl"
has caddy_client "1 request of cost 0 takes nothing"
# Caddy before 2.5: no remote_ip, the client in request.remote_addr "HOST:PORT" ("[V6]:PORT")
imp caddy_remote_addr '# ratelab trace: resolution_ns=10000000 spread=no origin_ns=0
1646861401520000000 ::1
1646861402000000000 10.1.2.3' "$fx/caddy_remote_addr.jsonl"
has caddy_remote_addr 'format caddy (detected from'
# the same nested field read as plain JSON lines, with its unit given
imp jsonl_dotted '# ratelab trace: resolution_ns=10000000 spread=no origin_ns=0
1646861401100000000 /a
1646861401520000000 /
1646861402000000000 /b' --format jsonl --time-field ts --time-unit s --key-field request.uri "$fx/caddy.jsonl"

# -- vhost_combined: 13:55:35 -0700 is 1791665735 s
imp vhost '# ratelab trace: resolution_ns=1000000000 spread=no origin_ns=0
1791665735000000000 alice
1791665736000000000 10.0.0.1
1791665737000000000 2001:db8::5' --key user "$fx/vhost.log"
has vhost 'format vhost_combined (detected from'
has vhost '2 of 3 requests had no user: keyed by their address (--key user)'
imp vhost_path '# ratelab trace: resolution_ns=1000000000 spread=no origin_ns=0
1791665735000000000 /b
1791665736000000000 /a
1791665737000000000 /c' --format vhost_combined --key path "$fx/vhost.log"

# -- HAProxy: the accept date (no offset: UTC, or --tz), ms; 2024-02-09 10:11:12 UTC is 1707473472 s
imp haproxy '# ratelab trace: resolution_ns=1000000 spread=no origin_ns=0
1707473472001000000 10.0.1.3
1707473472345000000 10.0.1.2
1707473473000000000 ::1' "$fx/haproxy.log"
has haproxy 'format haproxy (detected from'
has haproxy '3 of 3 requests had a time without a UTC offset: read as UTC (--tz +HH:MM says otherwise)'
imp haproxy_tz '# ratelab trace: resolution_ns=1000000 spread=no origin_ns=0
1707466272001000000 /missing 120
1707466272345000000 /index.html 2750
1707466273000000000 /api 5' --tz +02:00 --key path --cost-field bytes "$fx/haproxy.log"
has haproxy_tz 'read as --tz +02:00'

# -- times: ISO 8601 without an offset is UTC (2026-09-13T09:00:00Z is 1789290000 s),
# or --tz; nginx's $time_local in a JSON field; a bad line in the middle skipped
{
	printf '{"time":"2026-09-13T09:00:00","k":"a"}\n'
	printf '{"time":"not a time","k":"x"}\n'
	printf '{"time":"17/May/2015:08:05:32 +0000","k":"b"}\n'
	printf '{"time":"[13/Sep/2026:09:00:01 +0000]","k":"c"}\n'
	printf '{"time":"2026-09-13 09:00:02.5","k":"d"}\n'
} >"$tmp/t.jsonl"
imp no_offset '# ratelab trace: resolution_ns=100000000 spread=no origin_ns=0
1431849932000000000 b
1789290000000000000 a
1789290001000000000 c
1789290002500000000 d' --key-field k "$tmp/t.jsonl"
has no_offset '2 of 4 requests had a time without a UTC offset: read as UTC'
has no_offset "$tmp/t.jsonl:2: "
has no_offset "skipped 1 line for their time ($tmp/t.jsonl:2)"
imp tz '# ratelab trace: resolution_ns=100000000 spread=no origin_ns=0
1431849932000000000 b
1789282800000000000 a
1789282802500000000 d
1789290001000000000 c' --key-field k --tz +02:00 "$tmp/t.jsonl"
# --time-format, with a fraction after %S, in CSV
printf 'when,who\n"13.09.2026 09:00:00,25",a\n13.09.2026 09:00:01,b\n' >"$tmp/f.csv"
imp time_format '# ratelab trace: resolution_ns=10000000 spread=no origin_ns=0
1789290000250000000 a
1789290001000000000 b' --time-field when --key-field who --time-format '%d.%m.%Y %H:%M:%S' "$tmp/f.csv"
printf 'when,who\n13/Sep/2026:09:00:00.125 +0200,a\n' >"$tmp/g.csv"
imp time_format_z '# ratelab trace: resolution_ns=1000000 spread=no origin_ns=0
1789282800125000000 a' --time-field when --key-field who --time-format '%d/%b/%Y:%H:%M:%S %z' "$tmp/g.csv"
printf 'when,who\n17/May/2015:08:05:32 +0000,a\n' >"$tmp/clf.csv"
imp csv_clf '# ratelab trace: resolution_ns=1000000000 spread=no origin_ns=0
1431849932000000000 a' --time-field when --key-field who "$tmp/clf.csv"
bad time_format_bad '--time-format '"'"'%d %q'"'"' knows' --format csv --time-format '%d %q' "$tmp/g.csv"
bad time_format_no_date "--time-format '%H:%M' needs a date" --format csv --time-format '%H:%M' "$tmp/g.csv"
bad tz_bad "--tz 'CEST' is not a UTC offset +HH:MM or -HH:MM" --tz CEST "$tmp/g.csv"

# -- no request, a file twice: errors
bad empty "'/dev/null' holds no request" /dev/null
bad stdin_twice "standard input is named twice (as '-' and '-')" - - </dev/null
bad twice "a file is named twice (as '$fx/vhost.log' and '$fx/../import/vhost.log')" "$fx/vhost.log" "$fx/../import/vhost.log"

# -- a JSON member given twice: the line is bad, naming it; a CSV column given twice: an error
printf '{"time":"2026-09-13T09:00:00Z","key":"a","key":"b"}\n{"time":"2026-09-13T09:00:01Z","key":"c"}\n' >"$tmp/r.jsonl"
imp repeated_member '# ratelab trace: resolution_ns=1000000000 spread=no origin_ns=0
1789290001000000000 c' "$tmp/r.jsonl"
has repeated_member "member 'key' is given twice"
printf '{"time":"2026-09-13T09:00:00Z","key":"a","x":1,"x":2}\n' >"$tmp/r2.jsonl"
bad repeated_other "member 'x' is given twice" "$tmp/r2.jsonl"
# many members (sorted, not compared pairwise): the repeat found all the same, the unrepeated read
many=$(for i in $(seq 1 30); do printf '"m%d":%d,' $i $i; done)
printf '{%s"time":"2026-09-13T09:00:00Z","key":"a","m17":0}\n{%s"time":"2026-09-13T09:00:01Z","key":"b"}\n' "$many" "$many" >"$tmp/r3.jsonl"
imp repeated_many '# ratelab trace: resolution_ns=1000000000 spread=no origin_ns=0
1789290001000000000 b' "$tmp/r3.jsonl"
has repeated_many "member 'm17' is given twice"
cols=$(for i in $(seq 1 30); do printf 'c%d,' $i; done)
printf '%stime,key,c29\n' "$cols" >"$tmp/r2.csv"
bad repeated_many_columns "the header names the column 'c29' twice" "$tmp/r2.csv"
{ printf '%stime,key\n' "$cols"; printf '%s2026-09-13T09:00:00Z,a\n' "$(seq -s, 1 30),"; } >"$tmp/w.csv"
imp many_columns '# ratelab trace: resolution_ns=1000000000 spread=no origin_ns=0
1789290000000000000 a' "$tmp/w.csv"
printf 'time,key,ua,ua\n2026-09-13T09:00:00Z,a,x,y\n' >"$tmp/r.csv"
bad repeated_column "the header names the column 'ua' twice" "$tmp/r.csv"

# -- RFC 4180: a quoted field with line breaks (and CRLF) is one record
printf 'time,key,agent\r\n2026-09-13T09:00:00Z,a,"two\r\nlines, ""quoted"""\r\n2026-09-13T09:00:01Z,"b\nc",x\r\n2026-09-13T09:00:02Z,d,"never closed\n' >"$tmp/m.csv"
imp csv_multiline '# ratelab trace: resolution_ns=1000000000 spread=no origin_ns=0
1789290000000000000 a
1789290001000000000 b%0Ac' "$tmp/m.csv"
has csv_multiline "$tmp/m.csv:6: "
has csv_multiline 'a quoted field is not closed'
has csv_multiline 'skipped 1 of 3 lines'

# -- --relative: T since the first request, origin_ns the first request's epoch ns
imp relative '# ratelab trace: resolution_ns=1000000000 spread=no origin_ns=1791665735000000000
0 10.0.0.2
1000000000 10.0.0.1
2000000000 2001:db8::5' --relative "$fx/vhost.log"
bad relative_absolute '--relative and --absolute' --relative --absolute "$fx/vhost.log"
# a --relative trace read again: its origin added back, its resolution kept
"$ratelab" import --relative "$fx/haproxy.log" 2>/dev/null >"$tmp/h.rel"
"$ratelab" import "$fx/haproxy.log" 2>/dev/null >"$tmp/h.abs"
"$ratelab" import "$tmp/h.rel" >"$tmp/h.again" 2>"$tmp/err" || fail "re-import: $(cat "$tmp/err")"
cmp -s "$tmp/h.abs" "$tmp/h.again" || fail "re-import of a --relative trace: $(diff "$tmp/h.abs" "$tmp/h.again")"
has reimport 'time resolution 1ms'
"$ratelab" import --relative "$tmp/h.rel" 2>/dev/null >"$tmp/h.rel2"
cmp -s "$tmp/h.rel" "$tmp/h.rel2" || fail "re-import --relative: $(diff "$tmp/h.rel" "$tmp/h.rel2")"

# -- the trace route is the log route: the trace keeps the log's epoch times and
# resolution, so a study of the trace (absolute or --relative) equals the study
# of the log, fixed windows aligned to the epoch in both
gen=$(dirname "$ratelab")/examples/access_log
if [ -x "$gen" ]; then "$gen" >"$tmp/access.log"; else
	for i in $(seq 0 2999); do
		printf '10.0.%d.%d - - [13/Sep/2026:09:%02d:%02d +0000] "GET /%d HTTP/1.1" 200 %d\n' \
			$((i % 3)) $((i % 7)) $(((i * 7) / 60 % 60)) $(((i * 7) % 60)) $i $((i % 5))
	done >"$tmp/access.log"
fi
"$ratelab" import "$tmp/access.log" >"$tmp/access.trace" 2>/dev/null || fail "route: import"
"$ratelab" import --relative "$tmp/access.log" >"$tmp/access.rel" 2>/dev/null || fail "route: import --relative"
for src in log trace rel; do
	f=$tmp/access.$src
	[ $src = log ] && f=$tmp/access.log
	"$ratelab" study --quiet --jobs 1 --trace "$f" --rules 10/1s,60/1h --algos fixed_window,sliding_counter,token_bucket \
		--out "$tmp/study_$src" >/dev/null 2>"$tmp/err" || fail "route: study of the $src: $(cat "$tmp/err")"
done
for src in trace rel; do
	cmp -s <(cut -d, -f1-9 "$tmp/study_log/study.csv") <(cut -d, -f1-9 "$tmp/study_$src/study.csv") ||
		fail "route: the study of the $src differs from the log's: $(diff "$tmp/study_log/study.csv" "$tmp/study_$src/study.csv" | head -5)"
	cmp -s "$tmp/study_log/clients.csv" "$tmp/study_$src/clients.csv" || fail "route: clients.csv of the $src differs"
	for m in resolution_ns spread requests keys span_ns; do
		a=$(grep "^$m," "$tmp/study_log/meta.csv"); b=$(grep "^$m," "$tmp/study_$src/meta.csv")
		[ "$a" = "$b" ] || fail "route: meta $m: log $a, $src $b"
	done
done
grep -q '^resolution_ns,1000000000$' "$tmp/study_trace/meta.csv" || fail "route: $(grep resolution "$tmp/study_trace/meta.csv")"

finish import_logs
