#!/bin/bash
# Where ratelab sim writes: without --out, a directory of its own made in
# the working directory (ratelab-sim-YYYYMMDD-HHMMSS[-N]), never an
# existing one and never the committed results/; into an existing --out, a
# run replaces the previous run's outputs entirely (no stale series/),
# leaving other files alone. make bench names its own --out. $1 is the
# ratelab binary.
source "$(dirname "$0")/lib/harness.sh" "$1"
here=$(cd "$(dirname "$0")" && pwd)
sc=$here/sim/trace.ini

# The default: a fresh directory in the working directory. The names of
# this second and the next few are taken beforehand: they must be skipped.
mkdir "$tmp/wd"
taken=()
for d in 0 1 2 3 4; do
	name=ratelab-sim-$(date -d "+$d seconds" +%Y%m%d-%H%M%S)
	mkdir -p "$tmp/wd/$name"
	taken+=("$name")
done
(cd "$tmp/wd" && "$ratelab" sim --quiet --no-timing "$sc") >"$tmp/out1" 2>"$tmp/err" || fail "default out: exit $? ($(cat "$tmp/err"))"
(cd "$tmp/wd" && "$ratelab" sim --quiet --no-timing "$sc") >"$tmp/out2" 2>"$tmp/err" || fail "default out, again: exit $? ($(cat "$tmp/err"))"
for name in "${taken[@]}"; do
	[ -z "$(ls -A "$tmp/wd/$name")" ] || fail "wrote into the existing $name"
done
made=$(cd "$tmp/wd" && ls -d ratelab-sim-*/summary.csv 2>/dev/null | wc -l)
[ "$made" -eq 2 ] || fail "default out: $made new directories with a summary, want 2: $(ls "$tmp/wd")"
for f in out1 out2; do
	dir=$(sed -n 's|^ratelab sim: wrote \(.*\)/summary.csv, .*|\1|p' "$tmp/$f")
	[[ $dir =~ ^ratelab-sim-[0-9]{8}-[0-9]{6}(-[0-9]+)?$ ]] || fail "default out named '$dir'"
	[ -s "$tmp/wd/$dir/summary.csv" ] && [ -n "$(ls "$tmp/wd/$dir/series")" ] || fail "nothing in $dir"
	for name in "${taken[@]}"; do [ "$dir" != "$name" ] || fail "used the existing $name"; done
done
[ "$(sed -n 's|^ratelab sim: wrote \(.*\)/summary.csv, .*|\1|p' "$tmp/out1")" != \
	"$(sed -n 's|^ratelab sim: wrote \(.*\)/summary.csv, .*|\1|p' "$tmp/out2")" ] || fail "two runs, one directory"
[ ! -e "$tmp/wd/results" ] || fail "the default wrote under results/"

# A second run into one --out replaces exactly the first's outputs (its manifest); a
# file sim did not write there makes it refuse the folder (exit 2), touching nothing.
printf '[scenario]\nname = other\nlimit = 3\nwindow = 100ms\nduration = 1s\nalgos = gcra\n[traffic c]\ntype = constant\n' \
	>"$tmp/other.ini"
"$ratelab" sim --quiet --no-timing --out "$tmp/o" "$sc" >/dev/null 2>"$tmp/err" || fail "first run: $(cat "$tmp/err")"
[ -e "$tmp/o/series/trace__sliding_log.csv" ] || fail "first run: no series"
echo keep >"$tmp/o/series/README"
"$ratelab" sim --quiet --no-timing --out "$tmp/o" "$tmp/other.ini" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "holds '$tmp/o/series/README', which no earlier \`ratelab sim\` wrote there" "$tmp/err" ||
	fail "a foreign file: exit $rc, stderr $(cat "$tmp/err")"
[ -e "$tmp/o/series/trace__sliding_log.csv" ] && [ "$(cat "$tmp/o/series/README")" = keep ] ||
	fail "a refused --out was changed"
rm "$tmp/o/series/README"
"$ratelab" sim --quiet --no-timing --out "$tmp/o" "$tmp/other.ini" >/dev/null 2>"$tmp/err" || fail "second run: $(cat "$tmp/err")"
[ "$(ls "$tmp/o/series" | sort | paste -sd' ')" = "breaker_other.csv other__gcra.csv" ] ||
	fail "series after the second run: $(ls "$tmp/o/series")"
[ "$(cut -d, -f1 "$tmp/o/summary.csv" | sort -u | paste -sd' ')" = "other scenario" ] ||
	fail "summary after the second run: $(cut -d, -f1,2 "$tmp/o/summary.csv")"
[ "$(cut -d, -f1 "$tmp/o/breaker.csv" | sort -u | paste -sd' ')" = "other scenario" ] || fail "breaker.csv kept old rows"
[ "$(ls -A "$tmp/o" | paste -sd' ')" = ".ratelab-manifest breaker.csv diverged.csv series summary.csv" ] ||
	fail "the folder after the second run: $(ls -A "$tmp/o")"
# a bad scenario removes nothing
printf '[scenario]\nlimit = 0\n' >"$tmp/bad.ini"
"$ratelab" sim --quiet --out "$tmp/o" "$tmp/bad.ini" >/dev/null 2>&1
[ $? -eq 2 ] && [ -e "$tmp/o/series/other__gcra.csv" ] || fail "a bad scenario touched the previous outputs"

# make bench: every simulator run of bench/run.sh names its --out.
n=$(grep -c 'ratelab" sim ' "$here/../../bench/run.sh")
[ "$n" -ge 1 ] && [ "$(grep 'ratelab" sim ' "$here/../../bench/run.sh" | grep -c -- '--out ')" -eq "$n" ] ||
	fail "bench/run.sh runs ratelab sim without --out"

finish sim_output
