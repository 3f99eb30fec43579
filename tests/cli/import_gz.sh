#!/bin/bash
# ratelab import: rotated logs as they lie on disk: .gz files read
# directly (zlib), several files in one call in the order given (equal
# times keep that order), mixed plain and compressed, a compressed
# standard input; a corrupt or cut .gz is an error naming the file;
# trailing data after the gzip data is said, with its size.
# $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# import ARGS...: `ratelab import --relative ARGS`, its "# ratelab trace:" line left out; its exit status.
import() {
	local o rc
	o=$("$ratelab" import --relative "$@"); rc=$?
	printf '%s\n' "$o" | grep -v '^# ratelab trace:'
	return $rc
}

line() { printf '%s - - [10/Oct/2026:13:55:%02d +0000] "GET /%s HTTP/1.1" 200 1 "-" "-"\n' "$1" "$2" "$3"; }

# access.log.2.gz is the oldest; the same second in two files keeps file order
{ line 10.0.0.1 10 old; line 10.0.0.2 12 old; } >"$tmp/access.log.2"
{ line 10.0.0.3 12 mid; line 10.0.0.1 11 mid; } >"$tmp/access.log.1"
{ line 2001:db8::7 13 new; } >"$tmp/access.log"
gzip -n "$tmp/access.log.2"
gzip -n -c "$tmp/access.log.1" >"$tmp/access.log.1.gz"

want='0 10.0.0.1
1000000000 10.0.0.1
2000000000 10.0.0.2
2000000000 10.0.0.3
3000000000 2001:db8::7'
out=$(import "$tmp/access.log.2.gz" "$tmp/access.log.1.gz" "$tmp/access.log" 2>"$tmp/err"); rc=$?
[ $rc -eq 0 ] || fail "rotated: exit $rc: $(cat "$tmp/err")"
[ "$out" = "$want" ] || fail "rotated: stdout
$out"
grep -qF 'skipped 0 of 5 lines' "$tmp/err" || fail "rotated: $(cat "$tmp/err")"
grep -qF "format combined (detected from $tmp/access.log.2.gz:1)" "$tmp/err" || fail "rotated: $(cat "$tmp/err")"

# plain and compressed read alike
out=$(import "$tmp/access.log.1" 2>/dev/null)
[ "$out" = "$(import "$tmp/access.log.1.gz" 2>/dev/null)" ] || fail "plain vs gz: $out"
[ "$out" = '0 10.0.0.1
1000000000 10.0.0.3' ] || fail "plain: $out"

# the order given is the order of equal times: mid before old now
out=$(import "$tmp/access.log.1.gz" "$tmp/access.log.2.gz" 2>/dev/null)
[ "$(sed -n 4p <<<"$out")" = '2000000000 10.0.0.2' ] || fail "file order: $out"
[ "$(sed -n 3p <<<"$out")" = '2000000000 10.0.0.3' ] || fail "file order: $out"

# '-' and no file: standard input, compressed or not; two gzip members in one stream
out=$(gzip -c "$tmp/access.log.1" | import - 2>/dev/null)
[ "$out" = '0 10.0.0.1
1000000000 10.0.0.3' ] || fail "stdin gz: $out"
out=$({ gzip -c "$tmp/access.log.1"; gzip -c "$tmp/access.log"; } | import 2>/dev/null)
[ "$(wc -l <<<"$out")" -eq 3 ] || fail "two members: $out"

# a .gz cut short, or corrupt: exit 2, the file named, nothing written
head -c 40 "$tmp/access.log.2.gz" >"$tmp/cut.gz"
out=$(import "$tmp/cut.gz" 2>"$tmp/err"); rc=$?
[ $rc -eq 2 ] && [ -z "$out" ] || fail "cut gz: exit $rc, stdout $out"
grep -qF "ratelab import: $tmp/cut.gz:" "$tmp/err" && grep -qF 'cannot read: the compressed data ends early' "$tmp/err" ||
	fail "cut gz: $(cat "$tmp/err")"
printf '\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage, not deflate' >"$tmp/bad.gz"
out=$(import "$tmp/bad.gz" 2>"$tmp/err"); rc=$?
[ $rc -eq 2 ] && [ -z "$out" ] || fail "corrupt gz: exit $rc, stdout $out"
grep -qF "ratelab import: $tmp/bad.gz:1: cannot read: " "$tmp/err" || fail "corrupt gz: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "corrupt gz: $(cat "$tmp/err")"

# trailing data after the gzip members: read up to it, said with its size, exit 0
{ gzip -c "$tmp/access.log.1"; gzip -c "$tmp/access.log"; printf 'junk\n\0\0'; } >"$tmp/trail.gz"
out=$(import "$tmp/trail.gz" 2>"$tmp/err"); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 3 ] || fail "trailing data: exit $rc, stdout $out"
grep -qF "ratelab import: $tmp/trail.gz: warning: 7 bytes of trailing data after the gzip data, not gzip: not read" "$tmp/err" ||
	fail "trailing data: $(cat "$tmp/err")"
gzip -c "$tmp/access.log.1" >"$tmp/clean.gz"
import "$tmp/clean.gz" >/dev/null 2>"$tmp/err"
grep -q trailing "$tmp/err" && fail "no trailing data, yet: $(cat "$tmp/err")"

finish import_gz
