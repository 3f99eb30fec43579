#!/usr/bin/env bash
# The README's study commands, run as written on the sample log, give the
# study committed in results/study-example: limits.csv as it is, the report
# opening with the answer (a suggested limit per window), study.csv and clients.csv the
# same but for the costs measured in the run (ns_per_check; bytes_per_key and
# heap_bytes, which count the bytes malloc holds for the sliding log's runs and
# so vary with the allocator's state), and the report's charts all there.
# $1 the build directory.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
committed=$here/results/study-example
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

bash "$here/examples/study_example.sh" "$1" "$tmp/study" || fail "the README's commands failed"
# Drops the columns measured in the run (none in clients.csv).
timeless() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^(ns_per_check|bytes_per_key|heap_bytes)$/) drop[i] = 1 }
	         { out = ""; for (i = 1; i <= NF; i++) if (!(i in drop)) out = out (out == "" ? "" : ",") $i; print out }' "$1"
}
for f in study.csv clients.csv placement.csv; do
	[ -f "$committed/$f" ] || fail "$committed/$f is missing"
	diff <(timeless "$committed/$f") <(timeless "$tmp/study/$f") >"$tmp/diff" ||
		{ head -20 "$tmp/diff"; fail "$f differs from results/study-example/$f: run make bench (or examples/study_example.sh build results/study-example) and commit"; }
done
cmp -s "$committed/limits.csv" "$tmp/study/limits.csv" ||
	fail "limits.csv differs from results/study-example/limits.csv: $(diff "$committed/limits.csv" "$tmp/study/limits.csv" | head -5)"
# the report opens with the answer: a suggested limit per window
[ "$(sed -n 3p "$tmp/study/REPORT.md")" = "## The answer" ] || fail "REPORT.md does not open with the answer"
[ "$(grep -c '^- Suggested limit: [0-9]*/' "$committed/REPORT.md")" -eq 3 ] ||
	fail "results/study-example/REPORT.md shows no suggested limit per window"
# the README quotes those lines as they are in the committed report
sed -n '/<!-- suggested:begin -->/,/<!-- suggested:end -->/p' "$here/README.md" | grep '^- Suggested limit: ' >"$tmp/quoted" || true
[ "$(wc -l <"$tmp/quoted")" -eq 3 ] || fail "the README's study section quotes $(wc -l <"$tmp/quoted") suggested limits, want 3"
diff "$tmp/quoted" <(grep '^- Suggested limit: ' "$committed/REPORT.md") >"$tmp/qdiff" ||
	fail "the README's suggested limits differ from results/study-example/REPORT.md: $(head -4 "$tmp/qdiff")"
head -1 "$tmp/study/study.csv" | grep -q '^rule,algo,requests,admitted,good_keys,good_keys_hurt,good_requests_rejected,excess_requests,excess_admitted,' ||
	fail "study.csv's header: $(head -1 "$tmp/study/study.csv")"
for f in REPORT.md report.html; do
	[ -s "$committed/$f" ] || fail "results/study-example/$f is missing or empty"
done
grep -o 'plots/[a-z_0-9]*\.png' "$committed/REPORT.md" | sort -u >"$tmp/charts"
[ -s "$tmp/charts" ] || fail "results/study-example/REPORT.md shows no chart"
while read -r png; do
	[ -s "$committed/$png" ] || fail "results/study-example/REPORT.md shows $png, not committed"
done <"$tmp/charts"
echo "study example: the README's commands give the committed study ($(wc -l <"$tmp/charts") charts)"
