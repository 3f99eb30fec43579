#!/bin/bash
# ratelab replay streams a 1,000,000-line trace over 1000 keys to the end,
# one output line per request, and its fixed_window verdicts match an
# independent awk model of "at most N admitted per window floor(t/W)".
# (No timing assertion; the sanitizer build runs this too.) $1 is ratelab.
ratelab=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Times rise by 0..3 ns per line, now and then a step back; keys k0..k999;
# a comment every 100000 lines.
awk 'BEGIN {
	srand(7); t = 0
	for (i = 0; i < 1000000; i++) {
		if (i % 100000 == 0) print "# block " i / 100000
		r = int(rand() * 100)
		if (r < 2 && t > 50) t -= int(rand() * 50); else t += int(rand() * 4)
		print t, "k" int(rand() * 1000)
	}
}' >"$tmp/in"
[ "$(grep -vc '^#' "$tmp/in")" -eq 1000000 ] || fail "generator"

# fixed_window, N = 3 per W = 1000 ns; a key's time is clamped to its last
awk -v N=3 -v W=1000 '/^#/ { next } {
	t = $1; k = $2
	if (k in last && t < last[k]) t = last[k]
	last[k] = t
	w = int(t / W)
	if (!(k in win) || win[k] != w) { win[k] = w; cnt[k] = 0 }
	if (cnt[k] < N) { cnt[k]++; print 1 } else print 0
}' "$tmp/in" >"$tmp/want"

"$ratelab" replay --algo fixed_window --limit 3 --window 1us <"$tmp/in" >"$tmp/out" 2>"$tmp/err" ||
	fail "exit $?: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "stderr: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/out")" -eq 1000000 ] || fail "$(wc -l <"$tmp/out") output lines, want 1000000"
cmp -s "$tmp/out" "$tmp/want" || fail "fixed_window verdicts differ from the awk model: $(cmp "$tmp/out" "$tmp/want")"

# every algorithm streams the whole trace (sliding_log and leaky_bucket with --explain)
for a in token_bucket gcra leaky_bucket sliding_log sliding_counter; do
	"$ratelab" replay --algo "$a" --limit 3 --window 1us --explain <"$tmp/in" >"$tmp/out" 2>"$tmp/err" ||
		fail "$a: exit $?: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/out")" -eq 1000000 ] || fail "$a: $(wc -l <"$tmp/out") output lines"
done
echo "replay_million: all checks passed"
