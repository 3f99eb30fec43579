#!/bin/bash
# ratelab import: bad lines are counted, the first five shown as FILE:LINE
# with the line quoted (control bytes escaped), and stderr ends "skipped K
# of N lines"; --strict makes the first one exit 2 with nothing written;
# a NUL byte, a 1 MB line (read), a line past 16 MiB (refused); and every
# option's bad input refused with one message, exit 2. $1 is the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# rel_import ARGS...: `ratelab import --relative ARGS`, its "# ratelab trace:" line left out; its exit status.
rel_import() {
	local o rc
	o=$("$ratelab" import --relative "$@"); rc=$?
	printf '%s\n' "$o" | grep -v '^# ratelab trace:'
	return $rc
}

good() { printf '10.0.0.%d - - [10/Oct/2026:13:55:%02d +0000] "GET / HTTP/1.1" 200 1 "-" "-"\n' "$1" "$2"; }

# -- seven bad lines among three good ones, in two files
{
	good 1 10
	printf 'not a log line\n'
	printf '10.0.0.1 - - [10/Oct/2026:13:55:99 +0000] "GET / HTTP/1.1" 200 1\n'
	printf '10.0.0.1 - - [31/Feb/2026:13:55:10 +0000] "GET / HTTP/1.1" 200 1\n'
	printf '10.0.0.1 - - [10/Oct/2026:13:55:10 +0000] "GET / HTTP/1.1 200 1\n'
	printf '10.0.0.1 - - [10/Oct/2026:13:55:10 +0000] "GET / HTTP/1.1" 20 1\n'
	printf '10.0.0.1 - - [10/Oct/2026:13:55:10 +0000] "GET / HTTP/1.1" 200 1\x01\t"\n'
	good 2 11
} >"$tmp/a.log"
{
	printf '10.0.0.9 - - [10/Oct/2026:13:55:12 +0000] "GET / HTTP/1.1" 200 x\n'
	good 3 9
} >"$tmp/b.log"
out=$(rel_import "$tmp/a.log" "$tmp/b.log" 2>"$tmp/err"); rc=$?
[ $rc -eq 0 ] || fail "bad_lines: exit $rc"
[ "$out" = '0 10.0.0.3
1000000000 10.0.0.1
2000000000 10.0.0.2' ] || fail "bad_lines: stdout: $out"
want="ratelab import: $tmp/a.log:2: 'not a log line': expected 'HOST IDENT USER [TIME] \"REQUEST\" STATUS BYTES'
ratelab import: $tmp/a.log:3: '10.0.0.1 - - [10/Oct/2026:13:55:99 +0000] \"GET / HTTP/1.1\" 2'...(64 bytes): time '10/Oct/2026:13:55:99 +0000': no such time of day
ratelab import: $tmp/a.log:4: '10.0.0.1 - - [31/Feb/2026:13:55:10 +0000] \"GET / HTTP/1.1\" 2'...(64 bytes): time '31/Feb/2026:13:55:10 +0000': no such date
ratelab import: $tmp/a.log:5: '10.0.0.1 - - [10/Oct/2026:13:55:10 +0000] \"GET / HTTP/1.1 20'...(63 bytes): the request's quote is not closed
ratelab import: $tmp/a.log:6: '10.0.0.1 - - [10/Oct/2026:13:55:10 +0000] \"GET / HTTP/1.1\" 2'...(63 bytes): expected a 3-digit status after the request
ratelab import: (further bad lines are counted, not shown)
ratelab import: format combined (detected from $tmp/a.log:1)
ratelab import: time resolution 1s: the requests of one tick share one instant (--spread spreads them evenly inside it)
ratelab import: skipped 5 lines for not a line of the format (the first: $tmp/a.log:2, $tmp/a.log:5, $tmp/a.log:6, ...)
ratelab import: skipped 2 lines for their time ($tmp/a.log:3, $tmp/a.log:4)
ratelab import: skipped 7 of 10 lines"
[ "$(cat "$tmp/err")" = "$want" ] || fail "bad_lines: stderr
--- got:
$(cat "$tmp/err")
--- want:
$want"

# the second file's lines numbered from 1; control bytes quoted escaped;
# a host's control byte written %XX in the key
"$ratelab" import --format combined "$tmp/b.log" "$tmp/a.log" >/dev/null 2>"$tmp/err"
grep -qF "$tmp/b.log:1: '10.0.0.9 - - [10/Oct/2026:13:55:12 +0000] \"GET / HTTP/1.1\" 2'...(64 bytes): expected the size" "$tmp/err" ||
	fail "second file: $(cat "$tmp/err")"
{ good 1 10; printf 'bad\x01line\there\\\n'; printf '10.0.0.2\x7f - - [10/Oct/2026:13:55:11 +0000] "GET / HTTP/1.1" 200 1\n'; } >"$tmp/ctl.log"
out=$(rel_import "$tmp/ctl.log" 2>"$tmp/err")
grep -qF "$tmp/ctl.log:2: 'bad\\x01line\\there\\\\': expected" "$tmp/err" || fail "control bytes: $(cat "$tmp/err")"
[ "$out" = '0 10.0.0.1
1000000000 10.0.0.2%7F' ] || fail "control byte in a key: $out"

# a rotated log opening with the end of a line cut short: the format is
# detected from the next line, and the cut line counted as bad
out=$({ printf 'compatible; bot/2.1)"\n'; good 1 10; good 2 11; } | rel_import 2>"$tmp/err")
[ "$out" = '0 10.0.0.1
1000000000 10.0.0.2' ] || fail "cut first line: $out"
grep -qF "stdin:1: 'compatible; bot/2.1)\"': expected 'HOST IDENT USER" "$tmp/err" &&
	grep -qF 'format combined (detected from stdin:2)' "$tmp/err" && grep -qF 'skipped 1 of 3 lines' "$tmp/err" ||
	fail "cut first line: $(cat "$tmp/err")"
# five lines of no known format: an error naming the first
run_bad undetectable_5 'what
is
this
log
format
10.0.0.1 - - [10/Oct/2026:13:55:10 +0000] "GET / HTTP/1.1" 200 1' '' import -- \
	"stdin:1: cannot tell the log's format from its first 5 lines" "the first: 'what'" 'give --format'

# --strict: the first bad line, exit 2, nothing on stdout
run_bad strict "$(cat "$tmp/a.log")" '' import --strict -- \
	"stdin:2: 'not a log line': expected 'HOST IDENT USER [TIME] \"REQUEST\" STATUS BYTES'"
# every line bad: an error (exit 2) after the lines shown, not an empty trace
out=$(printf 'x y z\na b c\n' | "$ratelab" import --format combined 2>"$tmp/err"); rc=$?
[ $rc -eq 2 ] && [ -z "$out" ] || fail "all_bad: exit $rc, stdout $out"
[ "$(tail -n 1 "$tmp/err")" = 'ratelab import: none of the 2 lines is a combined line (skipped 2 of 2 lines)' ] ||
	fail "all_bad: $(cat "$tmp/err")"

# -- a NUL byte: refused, said, never read short
printf '%s\n10.0.0.5 - - [10/Oct/2026:13:55:10 +0000] "GET /\0 HTTP/1.1" 200 1\n%s\n' "$(good 1 10)" "$(good 2 11)" >"$tmp/nul.log"
out=$(rel_import "$tmp/nul.log" 2>"$tmp/err")
[ "$out" = '0 10.0.0.1
1000000000 10.0.0.2' ] || fail "nul: stdout: $out"
grep -qF "$tmp/nul.log:2: holds a NUL byte" "$tmp/err" || fail "nul: $(cat "$tmp/err")"
grep -qF 'skipped 1 of 3 lines' "$tmp/err" || fail "nul: $(cat "$tmp/err")"

# -- a 1 MB agent is read; a line past 16 MiB is refused, and the next read
{
	good 1 10
	printf '10.0.0.7 - - [10/Oct/2026:13:55:12 +0000] "GET / HTTP/1.1" 200 1 "-" "'
	head -c 1048576 /dev/zero | tr '\0' 'a'
	printf '"\n'
	head -c $((16 * 1048576 + 10)) /dev/zero | tr '\0' 'b'
	printf '\n'
	good 2 13
} >"$tmp/long.log"
out=$(rel_import "$tmp/long.log" 2>"$tmp/err")
[ "$out" = '0 10.0.0.1
2000000000 10.0.0.7
3000000000 10.0.0.2' ] || fail "long lines: stdout: $out"
grep -qF "$tmp/long.log:3: 'bbbbbbbbbb" "$tmp/err" || fail "long lines: $(cat "$tmp/err")"
grep -qF 'longer than 16 MiB' "$tmp/err" || fail "long lines: $(cat "$tmp/err")"
grep -qF 'skipped 1 of 4 lines' "$tmp/err" || fail "long lines: $(cat "$tmp/err")"

# -- options: each bad value, one message, exit 2
log=$(good 1 10)
run_bad format_unknown "$log" '' import --format xml -- "--format 'xml' is not auto, combined, vhost_combined, alb, haproxy, caddy, jsonl, csv or trace"
run_bad key_unknown "$log" '' import --key host -- "--key 'host' is not ip, user, path or ip+path"
run_bad unit_unknown '{"time":1,"key":"a"}' '' import --time-unit h -- "--time-unit 'h' is not s, ms, us or ns"
run_bad field_empty '{"time":1,"key":"a"}' '' import --time-field= -- '--time-field is empty: it names a field'
run_bad key_on_jsonl '{"time":1,"key":"a"}' '' import --key ip -- '--key applies to the combined, vhost_combined, alb and haproxy formats only (jsonl takes --key-field)'
run_bad key_on_csv 'time,key' '' import --format csv --key user -- '--key applies to the combined, vhost_combined, alb and haproxy formats only (csv takes --key-field)'
run_bad time_field_on_combined "$log" '' import --time-field t -- '--time-field does not apply to the combined format'
run_bad unit_on_combined "$log" '' import --format combined --time-unit s -- '--time-unit does not apply to the combined format'
run_bad cost_on_combined "$log" '' import --cost-field status -- "--cost-field 'status': the combined format's only cost is 'bytes'"
run_bad key_on_trace '0 a' '' import --format trace --key ip -- "--key does not apply to a trace"
run_bad field_on_trace '0 a' '' import --time-field t -- "--time-field does not apply to a trace"
run_bad flag_value "$log" '' import --spread=maybe -- "option --spread is a flag: its value 'maybe' is not yes, no, true, false, 1 or 0"
run_bad unknown_option "$log" '' import --keys ip -- "unknown option or argument '--keys'"
run_bad twice "$log" '' import --key ip --key user -- 'option --key given twice'
run_bad missing_file '' '' import /nonexistent/x.log -- "cannot open '/nonexistent/x.log': No such file or directory"
# a number without its unit: a bad line like any other (and so, every line bad, an error)
out=$(printf '{"time":1700000000,"key":"a"}\n' | "$ratelab" import 2>"$tmp/err"); rc=$?
[ $rc -eq 2 ] && [ -z "$out" ] || fail "numeric_no_unit: exit $rc, stdout $out"
grep -qF "stdin:1: '{\"time\":1700000000,\"key\":\"a\"}': time '1700000000': is a number: give its unit with --time-unit s, ms, us or ns" "$tmp/err" ||
	fail "numeric_no_unit: $(cat "$tmp/err")"
run_bad csv_no_column 'when,who
1,a' '' import --time-unit s -- "stdin:1: 'when,who': the header has no time column 'time' (--time-field)"
run_bad undetectable 'hello world again
' '' import -- "stdin:1: cannot tell the log's format from 'hello world again'" 'give --format'
run_bad trace_bad_time 'x a' '' import --format trace --strict -- "stdin:1: 'x a': time 'x' is not an integer number of ns"

# --spread inside the range's last tick, with --absolute: past the range, refused
edge='1.1.1.1 - - [02/Oct/2096:07:06:40 +0000] "GET / HTTP/1.1" 200 1'
run_bad spread_past_range "$edge
$edge" '' import --absolute --spread -- '--spread moves the last request past 4000000000000000000 ns'

# --help: the options, exit 0
"$ratelab" import --help >"$tmp/help" || fail "--help: exit $?"
for opt in --format --key --time-field --key-field --cost-field --time-unit --time-format --tz --relative --absolute --spread --strict; do
	grep -q -- "$opt" "$tmp/help" || fail "--help lacks $opt"
done

finish import_errors
