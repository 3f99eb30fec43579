#!/bin/bash
# ratelab check --config: the example file's resolved rules, exactly.
# RL_REDIS_BUILT=0 (tests/CMakeLists.txt): a ratelab without the Redis
# backend, whose tier files take no redis_timeout (its key, redis.h).
ratelab=$1
fail() { echo "FAIL: $*"; exit 1; }
redis=${RL_REDIS_BUILT:-1}
# The Redis build's expected text as this build prints it.
as_built() { if [ "$redis" = 1 ]; then printf '%s' "$1"; else printf '%s' "$1" | sed 's/ redis_timeout_ms=0$//'; fi; }

out=$("$ratelab" check --config ../../examples/tiers.ini) || fail "check exited $?"
want='tier free algorithm=token_bucket limit=10 window_ns=1000000000 burst=10 on_error=fail_open max_keys=1000000 when_full=evict redis_timeout_ms=0
tier premium algorithm=gcra limit=100 window_ns=1000000000 burst=200 on_error=fail_open max_keys=100000 when_full=evict redis_timeout_ms=0
tier otp algorithm=sliding_log limit=3 window_ns=600000000000 burst=3 on_error=fail_closed max_keys=1000000 when_full=fail_closed redis_timeout_ms=0
tier internal unlimited on_error=fail_open
client 10.0.0.1 tier=internal
client 10.0.0.2 tier=internal
client 2001:db8::1 tier=premium
client alice tier=premium
client bob tier=premium
client sms-gateway tier=otp
default tier=free'
want=$(as_built "$want")
[ "$out" = "$want" ] || fail "check output differs:
$out"

# The largest max_keys validates without allocating its store (about 100 GiB).
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf '[tier big]\nalgorithm = sliding_log\nlimit = 1\nwindow = 1s\nmax_keys = 4294967296\n[defaults]\ntier = big\n' > "$tmp"
out=$("$ratelab" check --config "$tmp") || fail "check of max_keys 2^32: exit $?"
echo "$out" | grep -q 'max_keys=4294967296' || fail "check of max_keys 2^32: $out"

# With no file, or '-', check reads standard input; every tier key is shown,
# redis_timeout too (without the Redis backend, an unknown key).
printf '[tier r]\nalgorithm = gcra\nlimit = 5\nwindow = 1s\nredis_timeout = 2s\n[clients]\nr = 10.0.0.0/8\n[defaults]\ntier = r\n' >"$tmp"
if [ "$redis" = 1 ]; then
want='tier r algorithm=gcra limit=5 window_ns=1000000000 burst=5 on_error=fail_open max_keys=1000000 when_full=evict redis_timeout_ms=2000
client 10.0.0.0/8 tier=r
default tier=r'
out=$("$ratelab" check <"$tmp") || fail "check from standard input: exit $?"
[ "$out" = "$want" ] || fail "check from standard input: $out"
out=$("$ratelab" check - <"$tmp") || fail "check -: exit $?"
[ "$out" = "$want" ] || fail "check -: $out"
keys='algorithm, limit, window, burst, policy, mode, unlimited, on_error, max_keys, when_full, redis_timeout'
else
"$ratelab" check <"$tmp" 2>"$tmp.err" >/dev/null
[ $? -eq 2 ] || fail "check of redis_timeout without the Redis backend: exit status"
grep -qx "ratelab check: -:5: unknown key 'redis_timeout' in \[tier r\] (algorithm, limit, window, burst, policy, mode, unlimited, on_error, max_keys, when_full)" "$tmp.err" ||
	fail "check of redis_timeout without the Redis backend: $(cat "$tmp.err")"
keys='algorithm, limit, window, burst, policy, mode, unlimited, on_error, max_keys, when_full'
fi
# A mistake read from standard input is named '-:LINE'.
printf '[tier r]\nalgorithm = gcra\nlimt = 5\n' | "$ratelab" check 2>"$tmp.err" >/dev/null
[ $? -eq 2 ] || fail "check of a bad standard input: exit status"
grep -qxF "ratelab check: -:3: unknown key 'limt' in [tier r] ($keys)" "$tmp.err" ||
	fail "check of a bad standard input: $(cat "$tmp.err")"
rm -f "$tmp.err"

"$ratelab" check --help | grep -q 'usage: ratelab check --config FILE' || fail "check --help"

# --client ID: the one line of the tier that client gets. A range holds an
# IPv4-mapped IPv6 address (a dual-stack server's IPv4 client) and every
# textual form of an address; an address id does too.
printf '[tier a]\nunlimited = true\n[tier b]\nunlimited = true\n[tier c]\nunlimited = true\n[clients]\na = 10.0.0.0/8 2001:db8::/32\nb = 2001:DB8:5::1 192.0.2.7\n[defaults]\ntier = c\n' >"$tmp"
for pair in "10.1.2.3 a" "::ffff:10.1.2.3 a" "::FFFF:10.1.2.3 a" "0:0:0:0:0:ffff:a01:203 a" "11.0.0.1 c" \
	"2001:db8:7::1 a" "2001:0DB8:0007:0000::1 a" "2001:db8:5:0::1 b" "2001:db8:5::1 b" "::ffff:192.0.2.7 b" \
	"alice c" "10.0.0.0/8 c"; do
	id=${pair% *}
	out=$("$ratelab" check "$tmp" --client "$id") || fail "check --client $id: exit $?"
	[ "$out" = "client $id tier=${pair#* }" ] || fail "check --client $id: '$out', want 'client $id tier=${pair#* }'"
done
out=$("$ratelab" check --config ../../examples/tiers.ini --client ::ffff:10.0.0.2) || fail "check --client: exit $?"
[ "$out" = "client ::ffff:10.0.0.2 tier=internal" ] || fail "check --client of the example: $out"
if [ "$redis" = 1 ]; then
	"$ratelab" check --help | grep -q 'redis_timeout_ms=T' || fail "check --help does not show redis_timeout"
else
	"$ratelab" check --help | grep -q 'redis_timeout' && fail "check --help shows redis_timeout without the Redis backend"
fi
"$ratelab" --help | grep -q '^  check ' || fail "check missing from ratelab --help"
echo ok
