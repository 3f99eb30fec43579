#!/bin/bash
# ratelab replay --headers: the verdict line, the HTTP status line, the header
# lines, one empty line - exact strings.
ratelab=$1
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.err"' EXIT

out=$(printf '0 k\n0 k\n0 k\n1500000000 k\n' | "$ratelab" replay --algo fixed_window --limit 2 --window 1s --headers) || fail "exit $?"
want='1
HTTP/1.1 200 OK
RateLimit-Policy: "default";q=2;w=1
RateLimit: "default";r=1;t=1

1
HTTP/1.1 200 OK
RateLimit-Policy: "default";q=2;w=1
RateLimit: "default";r=0;t=1

0
HTTP/1.1 429 Too Many Requests
RateLimit-Policy: "default";q=2;w=1
RateLimit: "default";r=0;t=1
Retry-After: 1

1
HTTP/1.1 200 OK
RateLimit-Policy: "default";q=2;w=1
RateLimit: "default";r=1;t=1
'
[ "$out"$'\n' = "$want" ] || fail "--headers:
$out"

# Tiers, legacy headers and an unlimited tier; Retry-After rounds 0.1 s up to 1.
out=$( (for i in $(seq 1 11); do echo "0 carol"; done; echo "0 10.0.0.2") |
	"$ratelab" replay --config ../../examples/tiers.ini --legacy-headers | tail -n 12) || fail "exit $?"
want='0
HTTP/1.1 429 Too Many Requests
RateLimit-Policy: "free";q=10;w=1
RateLimit: "free";r=0;t=1
Retry-After: 1
X-RateLimit-Limit: 10
X-RateLimit-Remaining: 0
X-RateLimit-Reset: 1

1
HTTP/1.1 200 OK'
[ "$out" = "$want" ] || fail "--legacy-headers with --config:
$out"
"$ratelab" replay --help | grep -q -- '--headers    after each verdict line' || fail "--help lacks --headers"

# [--headers | --legacy-headers]: both at once is a usage error, one line, exit 2,
# nothing on stdout; either flag turned off by =no leaves the other.
out=$(printf '0 k\n' | "$ratelab" replay --algo gcra --limit 1 --window 1s --headers --legacy-headers 2>"$tmp.err")
rc=$?
[ $rc -eq 2 ] || fail "--headers --legacy-headers: exit $rc, want 2"
[ -z "$out" ] || fail "--headers --legacy-headers printed: $out"
[ "$(wc -l <"$tmp.err")" -eq 1 ] && grep -q "^ratelab replay: --headers and --legacy-headers exclude each other" "$tmp.err" ||
	fail "--headers --legacy-headers: $(cat "$tmp.err")"
out=$(printf '0 k\n' | "$ratelab" replay --algo gcra --limit 1 --window 1s --headers=no --legacy-headers) ||
	fail "--headers=no --legacy-headers: exit $?"
echo "$out" | grep -q '^X-RateLimit-Limit: 1' || fail "--headers=no --legacy-headers: $out"
rm -f "$tmp.err"
echo ok
