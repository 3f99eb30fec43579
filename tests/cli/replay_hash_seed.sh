#!/bin/bash
# replay's key map draws its hash seed per run; RATELAB_HASH_SEED fixes it
# (reproducible instruction counts for the perf gate) and changes no output;
# a value that is no non-negative integer is refused (exit 2).
source "$(dirname "$0")/lib/harness.sh" "$1"

for i in $(seq 1 3000); do echo "$((i * 1000)) k$((i % 97))"; done >"$tmp/trace"
"$ratelab" replay --algo gcra --limit 3 --window 1ms --explain <"$tmp/trace" >"$tmp/drawn" || fail "drawn seed: exit $?"
RATELAB_HASH_SEED=12345 "$ratelab" replay --algo gcra --limit 3 --window 1ms --explain <"$tmp/trace" >"$tmp/fixed" ||
	fail "fixed seed: exit $?"
cmp -s "$tmp/drawn" "$tmp/fixed" || fail "the seed changed the output"
[ "$(wc -l <"$tmp/fixed")" -eq 3000 ] || fail "$(wc -l <"$tmp/fixed") lines, want 3000"
for bad in abc -1 ""; do
	out=$(echo "1 a" | RATELAB_HASH_SEED=$bad "$ratelab" replay --algo gcra --limit 3 --window 1ms 2>"$tmp/err"); rc=$?
	[ $rc -eq 2 ] || fail "RATELAB_HASH_SEED='$bad': exit $rc, want 2"
	grep -q "RATELAB_HASH_SEED" "$tmp/err" || fail "RATELAB_HASH_SEED='$bad': message $(cat "$tmp/err")"
	[ -z "$out" ] || fail "RATELAB_HASH_SEED='$bad': output $out"
done
finish replay_hash_seed
