#!/bin/bash
# Bad tiers files and options: one message on stderr naming file and line, exit 2,
# nothing on stdout; replay flushes earlier output first.
ratelab=$1
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_error() { # cmd-args... ; reads want from $want
	local out err rc
	out=$("$@" 2>"$tmp/err" </dev/null); rc=$?
	err=$(cat "$tmp/err")
	[ $rc -eq 2 ] || fail "$*: exit $rc, want 2"
	[ -z "$out" ] || fail "$*: stdout not empty: $out"
	[ "$err" = "$want" ] || fail "$*: stderr
 got: $err
want: $want"
}

printf '[tier free]\nalgorithm = gcra\nlimit = 10\nwindow = 1s\nburst = lots\n' > "$tmp/a.ini"
want="ratelab check: $tmp/a.ini:5: burst 'lots' is not an integer in [1, 1000000000000]"
expect_error "$ratelab" check --config "$tmp/a.ini"

printf '[tier free]\nunlimited = true\n[clients]\ngold = alice\n[defaults]\ntier = free\n' > "$tmp/b.ini"
want="ratelab replay: $tmp/b.ini:4: client 'alice' is mapped to tier 'gold', which is not defined"
expect_error "$ratelab" replay --config "$tmp/b.ini"

printf '[tier free]\nalgorithm = token\n' > "$tmp/c.ini"
want="ratelab check: $tmp/c.ini:2: unknown algorithm 'token' (token_bucket, gcra, leaky_bucket, fixed_window, sliding_log, sliding_counter)"
expect_error "$ratelab" check --config "$tmp/c.ini"

# A value that reads like an allocation failure is still the file's fault: exit 2.
printf '[tier free]\nalgorithm = out of memory\n' > "$tmp/d.ini"
want="ratelab check: $tmp/d.ini:2: unknown algorithm 'out of memory' (token_bucket, gcra, leaky_bucket, fixed_window, sliding_log, sliding_counter)"
expect_error "$ratelab" check --config "$tmp/d.ini"

printf '[tier free]\nalgorithm = gcra\nlimit = 1\nwindow = 1s\nmax_keys = 4294967297\n' > "$tmp/e.ini"
want="ratelab check: $tmp/e.ini:5: max_keys '4294967297' is not an integer in [1, 4294967296]"
expect_error "$ratelab" check --config "$tmp/e.ini"

want="ratelab check: $tmp/none.ini: cannot open: No such file or directory"
expect_error "$ratelab" check --config "$tmp/none.ini"

want="ratelab check: unknown option or argument '--foo' (see --help)"
expect_error "$ratelab" check --foo bar

want="ratelab replay: --config replaces --algo, --limit, --window and --burst"
expect_error "$ratelab" replay --config ../../examples/tiers.ini --algo gcra

# A bad trace line after good ones: earlier verdicts are flushed, then the message.
out=$(printf '0 alice\n1 alice\nbad\n' | "$ratelab" replay --config ../../examples/tiers.ini 2>"$tmp/err"); rc=$?
[ $rc -eq 2 ] || fail "bad trace line: exit $rc"
[ "$out" = $'1\n1' ] || fail "bad trace line: stdout '$out'"
[ "$(cat "$tmp/err")" = "ratelab replay: line 3: 'bad': expected 'T KEY'" ] || fail "bad trace line: $(cat "$tmp/err")"
echo ok
