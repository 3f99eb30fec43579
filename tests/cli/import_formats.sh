#!/bin/bash
# ratelab import: each format's exact trace on hand-worked fixtures that
# hold what real logs hold: lines out of order (a log is written at
# completion), equal times (kept in input order), IPv6 clients, escaped
# quotes inside fields, CRLF line ends, a UTF-8 byte-order mark, offsets
# east and west of UTC, fractions of a second; every --key of the combined
# format; --spread, --absolute, --cost-field; detection named on stderr.
# $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# imp NAME FILE WANT_STDOUT WANT_LAST_STDERR_LINE ARGS...: exit 0, stdout
# exact (T since the first request, --relative, unless --absolute is
# given; the "# ratelab trace:" line left out), stderr's last line exact.
imp() {
	local name=$1 file=$2 want=$3 last=$4 out rc rel=--relative
	shift 4
	case " $* " in *" --absolute "*) rel= ;; esac
	out=$("$ratelab" import $rel "$@" <"$file" 2>"$tmp/err"); rc=$?
	out=$(printf '%s\n' "$out" | grep -v '^# ratelab trace:')
	[ $rc -eq 0 ] || fail "$name: exit $rc (stderr: $(cat "$tmp/err"))"
	[ "$out" = "$want" ] || fail "$name: ratelab import $*
--- got:
$out
--- want:
$want"
	[ "$(tail -n 1 "$tmp/err")" = "$last" ] || fail "$name: last stderr line: $(tail -n 1 "$tmp/err"), want: $last"
}
# has NAME NEEDLE: the last run's stderr holds NEEDLE.
has() { grep -qF -- "$2" "$tmp/err" || fail "$1: stderr lacks \"$2\": $(cat "$tmp/err")"; }

# -- combined and common: BOM and CRLF on the first line, IPv6, an escaped
# quote in the agent and in the request, offsets: line 3 (20:55:36 +0000)
# is line 2's instant (13:55:36 -0700) and stays after it; line 4 is the
# common format; line 5 is the earliest.
printf '\xef\xbb\xbf10.0.0.1 - - [10/Oct/2026:13:55:37 -0700] "GET /a?x=1 HTTP/1.1" 200 12 "-" "curl/8"\r\n' >"$tmp/c.log"
printf '2001:db8::1 - bob [10/Oct/2026:13:55:36 -0700] "GET /b HTTP/1.1" 200 5 "-" "ua \\"q\\" x"\r\n' >>"$tmp/c.log"
printf '10.0.0.1 - - [10/Oct/2026:20:55:36 +0000] "POST /a HTTP/1.1" 404 - "-" "-"\n' >>"$tmp/c.log"
printf '10.0.0.2 - - [10/Oct/2026:13:55:38 -0700] "GET /c HTTP/1.1" 200 1\n' >>"$tmp/c.log"
printf '::ffff:10.0.0.3 - - [10/Oct/2026:13:55:35 -0700] "GET /d\\"e HTTP/1.1" 200 7 "-" "-"\n' >>"$tmp/c.log"

imp combined_ip "$tmp/c.log" '0 ::ffff:10.0.0.3
1000000000 2001:db8::1
1000000000 10.0.0.1
2000000000 10.0.0.1
3000000000 10.0.0.2' 'ratelab import: skipped 0 of 5 lines'
has combined_detected 'ratelab import: format combined (detected from stdin:1)'
has combined_resolution 'ratelab import: time resolution 1s'
# --key user: a request without a user keyed by its address, and counted
imp combined_user "$tmp/c.log" '0 ::ffff:10.0.0.3
1000000000 bob
1000000000 10.0.0.1
2000000000 10.0.0.1
3000000000 10.0.0.2' 'ratelab import: skipped 0 of 5 lines' --key user
has combined_user 'ratelab import: 4 of 5 requests had no user: keyed by their address (--key user)'
imp combined_path "$tmp/c.log" '0 /d\"e
1000000000 /b
1000000000 /a
2000000000 /a
3000000000 /c' 'ratelab import: skipped 0 of 5 lines' --key path --format combined
grep -q 'detected' "$tmp/err" && fail "combined_path: --format given, yet stderr says detected: $(cat "$tmp/err")"
imp combined_ip_path "$tmp/c.log" '0 ::ffff:10.0.0.3/d\"e
1000000000 2001:db8::1/b
1000000000 10.0.0.1/a
2000000000 10.0.0.1/a
3000000000 10.0.0.2/c' 'ratelab import: skipped 0 of 5 lines' --key ip+path
# --spread: the two requests of second 1 at 1 s and 1.5 s
imp combined_spread "$tmp/c.log" '0 ::ffff:10.0.0.3
1000000000 2001:db8::1
1500000000 10.0.0.1
2000000000 10.0.0.1
3000000000 10.0.0.2' 'ratelab import: skipped 0 of 5 lines' --spread
has combined_spread 'spread evenly inside it (--spread)'
# --absolute: 2026-10-10 20:55:35 UTC is 1791665735 s after the epoch
imp combined_absolute "$tmp/c.log" '1791665735000000000 ::ffff:10.0.0.3
1791665736000000000 2001:db8::1
1791665736000000000 10.0.0.1
1791665737000000000 10.0.0.1
1791665738000000000 10.0.0.2' 'ratelab import: skipped 0 of 5 lines' --absolute
# --cost-field bytes: the size; '-' is the common log format's 0 bytes: a request of
# cost 0 takes nothing (admitted, no state changed), so it is counted and left out
imp combined_bytes "$tmp/c.log" '0 ::ffff:10.0.0.3 7
1000000000 2001:db8::1 5
2000000000 10.0.0.1 12
3000000000 10.0.0.2 1' 'ratelab import: skipped 0 of 5 lines' --cost-field bytes
has combined_bytes "ratelab import: 1 request of cost 0 takes nothing: admitted with no state change, left out of the trace"
printf '10.0.0.1 - - [10/Oct/2026:13:55:37 -0700] "GET / HTTP/1.1" 200 x1\n10.0.0.1 - - [10/Oct/2026:13:55:38 -0700] "GET / HTTP/1.1" 200 1\n' >"$tmp/x.log"
imp combined_bad_bytes "$tmp/x.log" '0 10.0.0.1 1' 'ratelab import: skipped 1 of 2 lines' --cost-field bytes --format combined
has combined_bad_bytes "stdin:1: "
has combined_bad_bytes "expected the size (digits or '-') after the status"

# a request ending in an escaped backslash: the quote right after it closes it
printf '10.0.0.1 - - [10/Oct/2026:13:55:37 -0700] "GET /a\\\\" 200 1 "-" "-"\n' >"$tmp/bs.log"
imp combined_backslash "$tmp/bs.log" '0 /a\\' 'ratelab import: skipped 0 of 1 lines' --key path

# -- JSON lines: BOM, CRLF, nested values skipped (a '}' inside a string),
# escapes decoded (a key's blank written %20), fractions and offsets,
# unknown members ignored.
{
	printf '\xef\xbb\xbf{"time":"2026-10-10T13:55:36.120Z","key":"a b","n":[1,{"x":"}"}],"cost":3}\r\n'
	printf '{"key":"c\\u00e9\\"","time":"2026-10-10T15:55:36.1+02:00","cost":"2"}\n'
	printf '\n'
	printf '  { "time" : "2026-10-10T08:25:36.12-05:30" , "key" : 7 , "cost" : 1 }  \n'
} >"$tmp/j.jsonl"
imp jsonl "$tmp/j.jsonl" '0 cé" 2
20000000 a%20b 3
20000000 7 1' 'ratelab import: skipped 0 of 3 lines' --cost-field cost
has jsonl_detected 'ratelab import: format jsonl (detected from stdin:1)'
has jsonl_resolution 'ratelab import: time resolution 10ms'
# numbers in a unit, named fields, resolution from the fractions shown
printf '{"ts":1700000000.5,"ip":"10.0.0.1"}\n{"ts":1700000000,"ip":"10.0.0.2"}\n{"ts":"1699999999.25","ip":"10.0.0.1"}\n' >"$tmp/n.jsonl"
imp jsonl_seconds "$tmp/n.jsonl" '0 10.0.0.1
750000000 10.0.0.2
1250000000 10.0.0.1' 'ratelab import: skipped 0 of 3 lines' --time-field ts --key-field ip --time-unit s
has jsonl_seconds 'time resolution 10ms'
imp jsonl_ms "$tmp/n.jsonl" '0 10.0.0.1
750000 10.0.0.2
1250000 10.0.0.1' 'ratelab import: skipped 0 of 3 lines' --time-field ts --key-field ip --time-unit ms --format jsonl
imp jsonl_spread "$tmp/n.jsonl" '0 10.0.0.1
750000000 10.0.0.2
1250000000 10.0.0.1' 'ratelab import: skipped 0 of 3 lines' --time-field ts --key-field ip --time-unit s --spread

# -- CSV: header, quoted fields with commas and doubled quotes, CRLF, BOM,
# columns in any order, a field's blanks written %20.
{
	printf '\xef\xbb\xbfbytes,when,client\r\n'
	printf '7,2026-10-10T13:55:37Z,"10.0.0.1"\r\n'
	printf '"12",2026-10-10T13:55:36Z,"a ""quoted"", b"\r\n'
	printf '1,2026-10-10T13:55:36.000Z,2001:db8::2\r\n'
} >"$tmp/c.csv"
imp csv "$tmp/c.csv" '0 a%20"quoted",%20b 12
0 2001:db8::2 1
1000000000 10.0.0.1 7' 'ratelab import: skipped 0 of 3 lines' --time-field when --key-field client --cost-field bytes
has csv_detected 'ratelab import: format csv (detected from stdin:1)'
has csv_resolution 'ratelab import: time resolution 1s'
imp csv_spread "$tmp/c.csv" '0 a%20"quoted",%20b
500000000 2001:db8::2
1000000000 10.0.0.1' 'ratelab import: skipped 0 of 3 lines' --time-field when --key-field client --spread --format csv

# several CSV files: each opens with its own header (the columns may move)
printf 'key,time\nb,2026-10-10T13:55:38Z\n' >"$tmp/2.csv"
printf 'time,key\n2026-10-10T13:55:37Z,a\n' >"$tmp/1.csv"
out=$("$ratelab" import --relative --format csv "$tmp/2.csv" "$tmp/1.csv" 2>"$tmp/err" | grep -v '^#')
[ "$out" = '0 a
1000000000 b' ] || fail "csv_files: $out ($(cat "$tmp/err"))"

# -- CSV on the one reader (sim/base/csv.h), record by record, as docs/cli.md
# states: a quoted field's doubled quotes, commas, a line break (CRLF read
# as LF, the key written %0A); a '"' or CR inside an unquoted field a byte
# of it; blank lines skipped, '#' no comment; the last line without its end.
# A bad record is skipped and counted at the line of its problem, reading
# going on at the next record; --strict stops there.
{
	printf 'time,key\r\n'
	printf '1,"a,""b"""\r\n'
	printf '2,"c\r\nd"\r\n'
	printf '  \t\n'
	printf '3,e"f\n'
	printf '4,g\rh\n'
	printf '#5,i\n'
	printf '6,"j"x\n'
	printf '7,"k\n""l"\n'
	printf '8,m,extra\n'
	printf '9,"n\n"x\n'
	printf '10,o'
} >"$tmp/r.csv"
imp csv_records "$tmp/r.csv" '0 a,"b"
1000000000 c%0Ad
2000000000 e"f
3000000000 g%0Dh
6000000000 k%0A"l
9000000000 o' 'ratelab import: skipped 4 of 10 lines' --format csv --time-unit s
has csv_records "stdin:8: '#5,i': time '#5': not an ISO 8601"
has csv_records "stdin:9: '6,\"j\"x': text after a closing '\"' (a quoted field ends at a comma or the line's end)"
has csv_records "stdin:12: '8,m,extra': 3 fields, the header has 2"
has csv_records "stdin:14: '9,\"n\\n\"x': text after a closing '\"'"
has csv_records 'skipped 3 lines for not a line of the format (stdin:9, stdin:12, stdin:14)'
"$ratelab" import --format csv --time-unit s --strict "$tmp/r.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -qF "ratelab import: $tmp/r.csv:8: '#5,i': time '#5': not an ISO 8601" "$tmp/err" ||
	fail "csv_records --strict: exit $rc, stdout $(cat "$tmp/out"), stderr $(cat "$tmp/err")"
# an unclosed quote runs to the end: one bad record, the lines after it in it
printf 'time,key\n1,a\n2,"b\n3,c\n' >"$tmp/u.csv"
imp csv_unclosed "$tmp/u.csv" '0 a' 'ratelab import: skipped 1 of 2 lines' --format csv --time-unit s
has csv_unclosed "stdin:3: '2,\"b\\n3,c': a quoted field is not closed"

# -- trace: made relative to its first request and sorted stably; comments
# and blank lines skipped; costs kept; --absolute keeps the times.
printf '# a trace\n7 a\n5 b 2\n\n5 c\n9 a 3\n' >"$tmp/t.trace"
imp trace "$tmp/t.trace" '0 b 2
0 c 1
2 a 1
4 a 3' 'ratelab import: skipped 0 of 4 lines'
has trace_detected 'ratelab import: format trace (detected from stdin:1)'
has trace_resolution 'ratelab import: time resolution 1ns'
imp trace_absolute "$tmp/t.trace" '5 b 2
5 c 1
7 a 1
9 a 3' 'ratelab import: skipped 0 of 4 lines' --absolute --format trace
# COST is written on every line when some line had one, and never when none had
printf '3 x 1\n1 y\n' >"$tmp/u.trace"
imp trace_unit_cost "$tmp/u.trace" '0 y 1
2 x 1' 'ratelab import: skipped 0 of 2 lines'
printf '3 x\n1 y\n' >"$tmp/n.trace"
imp trace_no_cost "$tmp/n.trace" '0 y
2 x' 'ratelab import: skipped 0 of 2 lines'

# empty input: an error (exit 2), no trace
"$ratelab" import </dev/null >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(tail -1 "$tmp/err")" = "ratelab import: standard input holds no request" ] ||
	fail "empty: exit $rc, stdout $(cat "$tmp/out"), stderr $(cat "$tmp/err")"

# importing an imported trace changes nothing
"$ratelab" import --spread <"$tmp/c.log" 2>/dev/null >"$tmp/once"
"$ratelab" import <"$tmp/once" 2>/dev/null >"$tmp/twice"
cmp -s "$tmp/once" "$tmp/twice" || fail "import of an imported trace: $(diff "$tmp/once" "$tmp/twice")"

# the trace is what replay reads
"$ratelab" import <"$tmp/c.log" 2>/dev/null | "$ratelab" replay --algo sliding_log --limit 1 --window 2s >"$tmp/v" 2>"$tmp/err" ||
	fail "replay of an imported trace: $(cat "$tmp/err")"
[ "$(tr '\n' ' ' <"$tmp/v")" = "1 1 1 0 1 " ] || fail "replay of an imported trace: $(cat "$tmp/v")"

finish import_formats
