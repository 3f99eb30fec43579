#!/bin/bash
# ratelab sim --decider: an answer outside the protocol is an error that
# quotes it and says what is wrong (`0 retry=5` is no retry-after); the
# fields `ratelab replay --explain` writes are accepted; a first answer
# that never comes says the decider may not be flushing; the command and
# the answers are quoted once, their control bytes escaped. $1 is the
# ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

printf '[scenario]\nname = tiny\nlimit = 3\nwindow = 100ms\nduration = 1s\n[traffic c]\ntype = constant\n' >"$tmp/tiny.ini"

# refused NAME DECIDER NEEDLE... [-- ARGS]: exit 1, one message naming the decider, with every NEEDLE
refused() {
	local name=$1 cmd=$2 rc
	shift 2
	local needles=() args=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do needles+=("$1"); shift; done
	[ "${1:-}" = "--" ] && shift && args=("$@")
	"$ratelab" sim --quiet --out "$tmp/o" --decider "$cmd" "${args[@]}" "$tmp/tiny.ini" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$name: exit $rc, want 1 ($(cat "$tmp/err"))"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$name: not one line: $(cat "$tmp/err")"
	grep -q "^ratelab sim: decider '.*' (scenario tiny): " "$tmp/err" || fail "$name: $(cat "$tmp/err")"
	for n in "${needles[@]}"; do grep -qF -- "$n" "$tmp/err" || fail "$name: lacks \"$n\": $(cat "$tmp/err")"; done
	grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$tmp/err" && fail "$name: a control byte reached stderr"
	return 0
}

refused retry_misnamed 'while read t k; do echo 0 retry=5; done' \
	"answered '0 retry=5' to request '0 0': unknown field 'retry'" "retry_after_ns, remaining"
refused two_numbers 'while read t k; do echo 1 5 7; done' "answered '1 5 7'" "'7' is neither the retry-after"
refused negative_retry 'while read t k; do echo 0 -5; done' "answered '0 -5'" "not a retry-after"
refused bad_verdict 'while read t k; do echo yes; done' "answered 'yes'" "the verdict 'yes' is not 1 or 0"
refused bad_field_value 'while read t k; do echo 1 remaining=lots; done' "answered '1 remaining=lots'" \
	"remaining='lots' is not an integer"
refused control_bytes_answer "while read t k; do printf '1 \\033[2J\\n'; done" "answered '1 \\x1b[2J'"
refused control_bytes_command $'while read t k; do echo maybe; done #\a' \
	"decider 'while read t k; do echo maybe; done #\\x07' (scenario tiny)"
grep -q "''" "$tmp/err" && fail "quoted twice: $(cat "$tmp/err")"

# The first answer never comes: the message says why that may be.
refused unflushed 'cat >/dev/null' "gave no answer within 0.300s to request '0 0'" \
	"it may not be flushing its output" -- --decider-timeout 300ms
# ... a later one: no such hint
refused stalled 'read t k; echo 1; sleep 20' "gave no answer within 0.300s to request '33333333 0'" \
	-- --decider-timeout 300ms
grep -q flushing "$tmp/err" && fail "stalled: the flushing hint after an answer: $(cat "$tmp/err")"

# What ratelab replay --explain writes passes, tier included.
"$ratelab" sim --quiet --no-timing --out "$tmp/ok" --decider-name fields \
	--decider 'while read t k; do echo "1 remaining=2 retry_after_ns=0 reset_ns=5 delay_ns=0 tier=free"; done' \
	"$tmp/tiny.ini" >/dev/null 2>"$tmp/err" || fail "explain fields: exit $? ($(cat "$tmp/err"))"
awk -F, 'NR > 1 && $2 == "peer_fields" && $7 > 0 && $7 == $8 { ok = 1 } END { exit !ok }' "$tmp/ok/summary.csv" ||
	fail "explain fields: $(cat "$tmp/ok/summary.csv")"

# A bad --decider-name is quoted once, escaped.
run_bad name_quoted "" "" sim --quiet --out "$tmp/n" --decider true --decider-name $'Bad\tName' "$tmp/tiny.ini" -- \
	"--decider-name 'Bad\\tName': 1 to 32 of a-z, 0-9 and _"
grep -q "''" "$tmp/err" && fail "--decider-name quoted twice: $(cat "$tmp/err")"

finish decider_replies
