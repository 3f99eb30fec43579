#!/bin/bash
# ratelab sim --decider: the decider protocol (sim/engine/sim_decider.h, README).
# Self-drive: `ratelab replay --algo X --explain` as the decider gives, for
# every algorithm X, the same summary, diverged and series rows as the
# built-in X (all but the name and the state bytes, which a decider keeps to
# itself), on scenarios with polite and abusive closed-loop clients, the
# adversary, the boundary attack, a replayed trace and weighted requests
# (`T KEY COST` lines). Then the child's
# failures: exit, garbage, no answer within the timeout, a bad exit status
# at the end; and bad options.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "sim_decider: FAIL: $*" >&2; fails=$((fails + 1)); }
sc=$(cd "$(dirname "$0")/../../sim/scenarios" && pwd)
scenarios=("$sc/clients.ini" "$sc/adversary.ini" "$sc/boundary.ini" "$sc/onoff.ini" "$sc/replay.ini"
	"$sc/weighted/bursty.ini" "$sc/weighted/boundary.ini")

"$bin" sim --no-timing --quiet --out "$tmp/builtin" "${scenarios[@]}" >/dev/null || fail "built-in run exited $?"
# the columns compared: all but algo (2), state_bytes_mean/max (18, 19) and
# own_bound, beyond_bound, beyond_bound_pct (21-23): a decider's memory and
# bound are its own
cols() { awk -F, -v a="$1" 'NR > 1 && $2 == a { $2 = ""; $18 = ""; $19 = ""; $21 = ""; $22 = ""; $23 = ""; print }' OFS=, "$2"; }
for a in token_bucket gcra leaky_bucket fixed_window sliding_log sliding_counter; do
	burst=
	case $a in token_bucket | gcra | leaky_bucket) burst="--burst \$RATELAB_BURST" ;; esac
	cmd="'$bin' replay --algo $a --limit \$RATELAB_LIMIT --window \${RATELAB_WINDOW_NS}ns $burst --explain"
	"$bin" sim --no-timing --quiet --out "$tmp/$a" --decider "$cmd" --decider-name "self_$a" "${scenarios[@]}" \
		>"$tmp/$a.out" 2>"$tmp/$a.err" || { fail "$a: decider run exited $?: $(cat "$tmp/$a.err")"; continue; }
	want=$(cols "$a" "$tmp/builtin/summary.csv")
	got=$(cols "peer_self_$a" "$tmp/$a/summary.csv")
	[ -n "$want" ] || fail "$a: no built-in rows"
	[ "$got" = "$want" ] || fail "$a: summary rows differ
--- decider:
$got
--- built-in:
$want"
	[ "$(awk -F, 'NR > 1 && $2 != "peer_self_'$a'"' "$tmp/$a/summary.csv")" = "" ] || fail "$a: rows of other algorithms"
	awk -F, 'NR > 1 && ($18 != "" || $19 != "" || $21 != "") { exit 1 }' "$tmp/$a/summary.csv" ||
		fail "$a: decider state bytes or bound not empty"
	[ "$(cols "peer_self_$a" "$tmp/$a/diverged.csv")" = "$(cols "$a" "$tmp/builtin/diverged.csv")" ] ||
		fail "$a: diverged rows differ"
	for f in "$tmp/builtin/series/"*"__$a.csv"; do
		g="$tmp/$a/series/$(basename "$f" "__$a.csv")__peer_self_$a.csv"
		cmp -s <(tail -n +2 "$f") <(tail -n +2 "$g" 2>/dev/null) || fail "$a: series $(basename "$g") differs"
		[ "$(head -1 "$g")" = "$(head -1 "$f" | sed "s/algo=$a/algo=peer_self_$a/")" ] || fail "$a: $g seed line"
	done
done

# a child that admits everything: every request admitted; the rule reaches it in the environment
"$bin" sim --no-timing --quiet --out "$tmp/all" --decider-name yes \
	--decider 'echo "$RATELAB_SCENARIO $RATELAB_LIMIT $RATELAB_WINDOW_NS $RATELAB_BURST" >&2; while read t k; do echo 1; done' \
	"$sc/constant.ini" >/dev/null 2>"$tmp/all.err" || fail "admit-all exited $?"
awk -F, 'NR > 1 && ($2 != "peer_yes" || $7 != $8) { exit 1 } END { exit NR != 4 }' "$tmp/all/summary.csv" ||
	fail "admit-all rows: $(cat "$tmp/all/summary.csv")"
grep -q '^constant_150 100 1000000000 100$' "$tmp/all.err" || fail "environment: $(cat "$tmp/all.err")"

# bad_child NAME WANT_IN_STDERR ARGS...: exits 1, quickly, with one message naming the decider
# (the child's own stderr passes through)
bad_child() {
	local name=$1 needle=$2 rc t0
	shift 2
	t0=$(date +%s)
	"$bin" sim --no-timing --quiet --out "$tmp/bad" "$@" "$sc/constant.ini" >/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ $rc -eq 1 ] || fail "$name: exit $rc, want 1 (stderr: $(cat "$tmp/bad.err"))"
	grep -q "^ratelab sim: decider '.*' (scenario constant_050): .*$needle" "$tmp/bad.err" ||
		fail "$name: stderr lacks '$needle': $(cat "$tmp/bad.err")"
	[ "$(grep -c '^ratelab' "$tmp/bad.err")" -eq 1 ] || fail "$name: not one message: $(cat "$tmp/bad.err")"
	[ $(($(date +%s) - t0)) -lt 8 ] || fail "$name: took $(($(date +%s) - t0))s"
}
bad_child exit "exited with status 3 .*request '0 0'" --decider 'exit 3'
bad_child "exit later" "exited with status 0 .*request '12000000 6'" --decider 'for i in 1 2 3 4 5 6; do read t k; echo 1; done'
bad_child "killed" "was killed by signal 9" --decider 'read t k; kill -9 $$'
bad_child "not found" "exited with status 127" --decider '/nonexistent/decider'
bad_child garbage "answered 'maybe' to request '0 0'" --decider 'while read t k; do echo maybe; done'
bad_child "verdict 2" "answered '2' to request" --decider 'while read t k; do echo 2; done'
bad_child "bad retry" "answered '0 soon' to request" --decider 'while read t k; do echo 0 soon; done'
bad_child "bad field" "answered '0 retry_after_ns=-5'" --decider 'while read t k; do echo 0 retry_after_ns=-5; done'
bad_child "empty answer" "answered '' to request" --decider 'while read t k; do echo; done'
bad_child "half line" "in the middle of its answer" --decider 'read t k; printf 1'
bad_child timeout "gave no answer within 0.300s to request '0 0'" --decider 'sleep 20' --decider-timeout 300ms
bad_child "slow answer" "gave no answer within 0.200s to request '2000000 1'" \
	--decider 'read t k; echo 1; sleep 20' --decider-timeout 200ms
bad_child "bad exit at end" "exited with status 4 at the end of its input" \
	--decider 'while read t k; do echo 1; done; exit 4'

# bad options: exit 2, one line
for args in "--decider=" "--decider ' '" "--decider true --decider-name Bad-Name" \
	"--decider true --decider-name ''" "--decider true --decider-timeout soon" "--decider true --decider-timeout 0"; do
	eval "\"\$bin\" sim --quiet --out \"\$tmp/opt\" $args \"\$sc/constant.ini\"" >/dev/null 2>"$tmp/opt.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q '^ratelab sim: ' "$tmp/opt.err" || fail "options $args: exit $rc, stderr $(cat "$tmp/opt.err")"
done
[ $fails -eq 0 ] || { echo "sim_decider: $fails check(s) failed"; exit 1; }
echo "sim_decider: all checks passed"
