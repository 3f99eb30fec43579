#!/bin/bash
# Tiers with policy = P and mode = shadow (issue 44): ratelab check shows
# them exactly; replay --config decides by them (a shadow tier admits every
# request); their mistakes get one message naming file, line and value,
# exit 2, the same words from check and replay.
# RL_REDIS_BUILT=0: a ratelab without the Redis backend (no redis_timeout_ms).
ratelab=$1
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
redis=${RL_REDIS_BUILT:-1}
as_built() { if [ "$redis" = 1 ]; then printf '%s' "$1"; else printf '%s' "$1" | sed 's/ redis_timeout_ms=0$//'; fi; }

cat > "$tmp/t.ini" <<'INI'
[tier api]
algorithm = gcra
policy = 10/1s + 1000/1h:b2000
[tier trial]
algorithm = fixed_window
limit = 2
window = 1m
mode = shadow
[tier llm]
algorithm = token_bucket
policy = 60/1m+90000/1m:units
mode = shadow
[clients]
trial = tina
llm = lee
[defaults]
tier = api
INI
want='tier api algorithm=gcra policy=10/1s+1000/1h:b2000 mode=enforce on_error=fail_open max_keys=1000000 when_full=evict redis_timeout_ms=0
tier trial algorithm=fixed_window policy=2/1m:units mode=shadow on_error=fail_open max_keys=1000000 when_full=evict redis_timeout_ms=0
tier llm algorithm=token_bucket policy=60/1m+90000/1m:units mode=shadow on_error=fail_open max_keys=1000000 when_full=evict redis_timeout_ms=0
client lee tier=llm
client tina tier=trial
default tier=api'
out=$("$ratelab" check "$tmp/t.ini") || fail "check exited $?"
want=$(as_built "$want")
[ "$out" = "$want" ] || fail "check output differs:
$out"

# The policy decides all or nothing: 10 per second, the 11th at one instant refused;
# the shadow tier admits all four of tina's requests though its rule allows 2.
out=$(for i in $(seq 11); do echo "0 ann"; done; for i in 1 2 3 4; do echo "0 tina"; done)
got=$(printf '%s\n' "$out" | "$ratelab" replay --config "$tmp/t.ini" | tr '\n' ' ')
[ "$got" = "1 1 1 1 1 1 1 1 1 1 0 1 1 1 1 " ] || fail "replay --config with policy and shadow tiers: $got"

expect_error() { # want, then the command
	local want=$1 out err rc
	shift
	out=$("$@" 2>"$tmp/err" </dev/null); rc=$?
	err=$(cat "$tmp/err")
	[ $rc -eq 2 ] || fail "$*: exit $rc, want 2"
	[ -z "$out" ] || fail "$*: stdout not empty: $out"
	[ "$err" = "$want" ] || fail "$*: stderr
 got: $err
want: $want"
}
bad() { # name, text, the message after "FILE:"
	printf "$2" > "$tmp/$1.ini"
	expect_error "ratelab check: $tmp/$1.ini:$3" "$ratelab" check "$tmp/$1.ini"
	expect_error "ratelab replay: $tmp/$1.ini:$3" "$ratelab" replay --config "$tmp/$1.ini"
}
bad both '[tier a]\nalgorithm = gcra\nlimit = 10\npolicy = 10/1s\n[defaults]\ntier = a\n' \
	"4: 'policy' with 'limit' in [tier a]: policy = RULES replaces limit, window and burst"
bad nine '[tier a]\nalgorithm = gcra\npolicy = 1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s\n' \
	"3: policy: '1/1s+2/1s+3/1s+4/1s+5/1s+6/1s+7/1s+8/1s+9/1s' has 9 rules (at most 8)"
bad loud '[tier a]\nalgorithm = gcra\nlimit = 1\nwindow = 1s\nmode = loud\n' \
	"5: mode 'loud' is not enforce or shadow"
bad rule '[tier a]\nalgorithm = gcra\npolicy = 10/1s + 5/0s\n' \
	"3: policy: '10/1s + 5/0s': rule 2: '5/0s': the window '0s' is out of range [1ns, 1000000000000000000ns]"
# Through Redis (replay --config --redis) the same tiers print the same lines: cli_redis_policy.
exit 0
