#!/bin/bash
# ratelab check --config: the example file's resolved rules, exactly.
ratelab=$1
fail() { echo "FAIL: $*"; exit 1; }

out=$("$ratelab" check --config ../../examples/tiers.ini) || fail "check exited $?"
want='tier free algorithm=token_bucket limit=10 window_ns=1000000000 burst=10 on_error=fail_open max_keys=1000000 when_full=evict
tier premium algorithm=gcra limit=100 window_ns=1000000000 burst=200 on_error=fail_open max_keys=100000 when_full=evict
tier otp algorithm=sliding_log limit=3 window_ns=600000000000 burst=3 on_error=fail_closed max_keys=1000000 when_full=fail_closed
tier internal unlimited on_error=fail_open
client 10.0.0.1 tier=internal
client 10.0.0.2 tier=internal
client 2001:db8::1 tier=premium
client alice tier=premium
client bob tier=premium
client sms-gateway tier=otp
default tier=free'
[ "$out" = "$want" ] || fail "check output differs:
$out"

# The largest max_keys validates without allocating its store (about 100 GiB).
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf '[tier big]\nalgorithm = sliding_log\nlimit = 1\nwindow = 1s\nmax_keys = 4294967296\n[defaults]\ntier = big\n' > "$tmp"
out=$("$ratelab" check --config "$tmp") || fail "check of max_keys 2^32: exit $?"
echo "$out" | grep -q 'max_keys=4294967296' || fail "check of max_keys 2^32: $out"

"$ratelab" check --help | grep -q 'usage: ratelab check --config FILE' || fail "check --help"
"$ratelab" --help | grep -q '^  check ' || fail "check missing from ratelab --help"
echo ok
