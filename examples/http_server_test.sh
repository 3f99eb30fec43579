#!/bin/bash
# http_server_test.sh SERVER - runs the http_server example on a free
# loopback port and checks that a 4th request of one key within the minute
# gets 429 with the RateLimit headers, while another key is still served.
set -u
server=$1
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$server" 0 5 >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 100); do grep -q listening "$tmp/out" && break; sleep 0.1; done
port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$tmp/out")
[ -n "$port" ] || fail "no port: $(cat "$tmp/out" "$tmp/err")"

ask() { curl -s -i --max-time 10 -H "X-Api-Key: $1" "http://127.0.0.1:$port/" | tr -d '\r'; }
t0=$(date +%s)
for i in 1 2 3; do
	r=$(ask alice)
	echo "$r" | head -1 | grep -q '^HTTP/1.1 200 ' || fail "alice request $i: $r"
	echo "$r" | grep -qx "RateLimit: \"per-key\";r=$((3 - i));t=[0-9]*" || fail "alice request $i headers: $r"
done
r=$(ask alice)
echo "$r" | head -1 | grep -q '^HTTP/1.1 429 ' || fail "alice 4th: $r"
echo "$r" | grep -qx 'RateLimit-Policy: "per-key";q=3;w=60' || fail "429 policy header: $r"
# one token per 20 s, counted from the first request: 20 s less the whole
# seconds the requests took (a loaded machine takes some), never more
ra=$(echo "$r" | sed -n 's/^Retry-After: \([0-9]*\)$/\1/p')
took=$(($(date +%s) - t0))
[ -n "$ra" ] && [ "$ra" -le 20 ] && [ "$ra" -ge $((20 - took - 1)) ] ||
	fail "429 Retry-After (one token per 20 s, $took s after the first request): $r"
r=$(ask bob)
echo "$r" | head -1 | grep -q '^HTTP/1.1 200 ' || fail "bob: $r"
wait "$pid" || fail "server exited $?: $(cat "$tmp/err")"
pid=
echo ok
