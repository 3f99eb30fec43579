#!/bin/bash
# ratelab replay --config: each client decided in its own tier.
ratelab=$1
fail() { echo "FAIL: $*"; exit 1; }

# free: token_bucket 10/s; premium: gcra 100/s burst 200; internal: unlimited;
# otp: sliding_log 3 per 10 min.
trace=$(for i in $(seq 1 12); do echo "0 carol"; done
	for i in $(seq 1 201); do echo "0 alice"; done
	for i in $(seq 1 500); do echo "0 10.0.0.1"; done
	for i in $(seq 1 4); do echo "0 sms-gateway"; done
	echo "100000000 carol")
out=$(echo "$trace" | "$ratelab" replay --config ../../examples/tiers.ini) || fail "replay exited $?"
count() { echo "$out" | sed -n "$1,$2p" | grep -c '^1$'; }
[ "$(count 1 12)" = 10 ] || fail "free admitted $(count 1 12) of 12, want 10"
[ "$(count 13 213)" = 200 ] || fail "premium admitted $(count 13 213) of 201, want 200"
[ "$(count 214 713)" = 500 ] || fail "internal admitted $(count 214 713) of 500, want 500"
[ "$(count 714 717)" = 3 ] || fail "otp admitted $(count 714 717) of 4, want 3"
[ "$(echo "$out" | sed -n 718p)" = 1 ] || fail "carol not refilled after 100 ms"

out=$(printf '0 carol\n0 10.0.0.1\n' | "$ratelab" replay --config ../../examples/tiers.ini --explain)
want='1 remaining=9 retry_after_ns=0 reset_ns=100000000 tier=free
1 tier=internal'
[ "$out" = "$want" ] || fail "--explain with --config:
$out"

# redis_timeout is the Redis backend's tier key: replay takes it when the
# backend is built in (RL_REDIS_BUILT, tests/CMakeLists.txt), in process
# too, and refuses it as unknown without.
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf '[tier r]\nalgorithm = gcra\nlimit = 1\nwindow = 1s\nredis_timeout = 50\n[defaults]\ntier = r\n' >"$tmp"
out=$(printf '0 a\n0 a\n' | "$ratelab" replay --config "$tmp" 2>&1); rc=$?
if [ "${RL_REDIS_BUILT:-1}" = 1 ]; then
	[ $rc -eq 0 ] && [ "$out" = $'1\n0' ] || fail "replay of a tier with redis_timeout: exit $rc: $out"
else
	[ $rc -eq 2 ] && [[ $out == *"unknown key 'redis_timeout' in [tier r]"* ]] ||
		fail "replay of redis_timeout without the Redis backend: exit $rc: $out"
fi
echo ok
