#!/bin/bash
# The same bad trace line gets the same words from every command that reads
# traces (sim/trace/trace_line.h, the one line reader; issue 42): replay in
# process, replay --policy, sim with a replay source, study --trace and
# import --format trace, and replay --redis and --redis --policy when the
# Redis backend is built and redis-server is installed. Each bad line is the
# trace's second line; after "ratelab CMD: " and the place ("line 2: " for
# replay, which reads its input as a stream; "FILE:2: " for the others) the
# message is the same text for every command. replay and sim stop there
# (exit 2); import and the study skip the line, count it and go on (exit 0).
# $1 is the ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# words NAME WANT_RC LOC CMD ARGS...: runs `ratelab CMD ARGS`, checks its
# exit status, and appends "NAME=WORDS" to got, WORDS what its one stderr
# line beginning "ratelab CMD: LOC: " says after that.
words() {
	local name=$1 want_rc=$2 loc=$3 cmd=$4 rc lines
	shift 4
	"$ratelab" "$cmd" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
	[ $rc -eq "$want_rc" ] || fail "$name '$line': exit $rc, want $want_rc (stderr: $(cat "$tmp/err"))"
	lines=$(grep -c -F "ratelab $cmd: $loc: " "$tmp/err")
	[ "$lines" = 1 ] || fail "$name '$line': $lines stderr lines begin 'ratelab $cmd: $loc: ', want 1: $(cat "$tmp/err")"
	got+=("$name=$(grep -F "ratelab $cmd: $loc: " "$tmp/err" | head -1 | sed "s|^ratelab $cmd: $loc: ||")")
}

redis=""
if [ "${RL_REDIS_BUILT:-0}" = 1 ] && command -v redis-server >/dev/null; then
	source "$(dirname "$0")/lib/redis.sh"
	start_redis
	redis=127.0.0.1:$REDIS_PORT
else
	echo "trace_words: replay --redis not checked (RL_REDIS_BUILT=${RL_REDIS_BUILT:-0}, redis-server: $(command -v redis-server || echo none))"
fi

forms="expected 'T KEY [COST]' or 'T KEY COST ACTUAL DONE_T'"
time_bound="is not an integer number of ns in [0, 4000000000000000000]"
# a bad second line, and the words every command must say of it
cases=(
	"5 k 1 2"        "'5 k 1 2': $forms"
	"5 k 1 2 9 x"    "'5 k 1 2 9 x': $forms"
	"5"              "'5': expected 'T KEY'"
	"1.5 k"          "'1.5 k': time '1.5' $time_bound"
	"5 k 0"          "'5 k 0': cost '0' is not an integer in [1, 1000000000000]"
	"5 k 1 -1 9"     "'5 k 1 -1 9': actual cost '-1' is not an integer in [0, 1000000000000]"
	"9 k 1 1 4"      "'9 k 1 1 4': done time '4' is not an integer number of ns in [T, 4000000000000000000] (T = 9)"
	$'5\tk 1 2'      "'5\\tk 1 2': $forms"
	"NUL"            "holds a NUL byte"
)
cat >"$tmp/sim.ini" <<'EOF'
[scenario]
name = words
limit = 5
window = 1s
duration = 1s

[traffic trace]
type = replay
file = bad.trace
EOF
n=0
for ((i = 0; i < ${#cases[@]}; i += 2)); do
	line=${cases[i]} want=${cases[i + 1]}
	if [ "$line" = NUL ]; then
		printf '0 a\n5 k\0x\n' >"$tmp/bad.trace"
	else
		printf '0 a\n%s\n' "$line" >"$tmp/bad.trace"
	fi
	f=$tmp/bad.trace rule=(--algo sliding_log --limit 5 --window 1s)
	got=()
	words replay 2 "line 2" replay "${rule[@]}" "$f"
	words "replay --policy" 2 "line 2" replay --algo sliding_log --policy 5/1s+9/1m "$f"
	words sim 2 "$f:2" sim --quiet --out "$tmp/sim_$i" "$tmp/sim.ini"
	words study 0 "$f:2" study --trace "$f" --format trace --rules 5/1s --algos sliding_log --quiet --out "$tmp/study_$i"
	words import 0 "$f:2" import --format trace "$f"
	if [ -n "$redis" ]; then
		redis-cli -p "$REDIS_PORT" flushall >/dev/null
		words "replay --redis" 2 "line 2" replay "${rule[@]}" --redis "$redis" "$f"
		redis-cli -p "$REDIS_PORT" flushall >/dev/null
		words "replay --redis --policy" 2 "line 2" replay --algo sliding_log --policy 5/1s+9/1m --redis "$redis" "$f"
	fi
	for g in "${got[@]}"; do
		n=$((n + 1))
		[ "${g#*=}" = "$want" ] || fail "'$line': ${g%%=*} says \"${g#*=}\", want \"$want\""
	done
done
echo "trace_words: ${#got[@]} commands, $((${#cases[@]} / 2)) bad lines, $n messages compared"
finish trace_words
