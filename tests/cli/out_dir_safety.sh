#!/usr/bin/env bash
# ratelab study and sim --out: a new or empty folder, or one an earlier run
# of the same command wrote (its manifest); then exactly that run's files are
# replaced. Anything else in it is refused with exit 2 and the path of the
# first foreign entry, and nothing there is touched; an input is never
# deleted or overwritten. $1 is the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# a combined log of 120 requests from 6 clients over two minutes
for i in $(seq 0 119); do
	printf '10.0.0.%d - - [10/Oct/2026:13:%02d:%02d +0000] "GET /a HTTP/1.1" 200 5 "-" "x"\n' \
		$((i % 6)) $((i / 60)) $((i % 60))
done >"$tmp/access.log"
sc=$(dirname "$0")/../../sim/scenarios/constant.ini

# snap DIR: every file under DIR with its checksum, to tell whether anything changed
snap() { (cd "$1" && find . -print0 | sort -z | xargs -0 -I{} sh -c 'if [ -f "{}" ]; then cksum <"{}" | sed "s|^|{} |"; else echo "{}"; fi'); }

# refused NAME WANT_NEEDLE DIR ARGS...: exit 2, one stderr line holding the needle, DIR unchanged
refused() {
	local name=$1 needle=$2 dir=$3 before rc
	shift 3
	before=$(snap "$dir")
	"$ratelab" "$@" >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc -eq 2 ] || fail "$name: exit $rc, want 2 (stderr: $(cat "$tmp/err"))"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$name: stderr is not one line: $(cat "$tmp/err")"
	grep -qF -- "$needle" "$tmp/err" || fail "$name: stderr lacks \"$needle\": $(cat "$tmp/err")"
	[ "$(snap "$dir")" = "$before" ] || fail "$name: $dir changed"
}

study() { "$ratelab" study --quiet "$@" 2>"$tmp/err" || fail "study $*: exit $?: $(cat "$tmp/err")"; }

# -- the issue's case: an earlier study's folder holding the input, notes and a folder of the user's
study --trace "$tmp/access.log" --rules 20/1m --out "$tmp/st"
[ -f "$tmp/st/.ratelab-manifest" ] || fail "a study wrote no manifest"
[ "$(sed -n 2p "$tmp/st/.ratelab-manifest")" = "command study" ] || fail "the manifest's command: $(cat "$tmp/st/.ratelab-manifest")"
# the manifest lists exactly what is there
(cd "$tmp/st" && find . -mindepth 1 ! -name .ratelab-manifest | sed 's|^\./||' | sort) >"$tmp/there"
sed -n 's/^\(file\|dir\) //p' "$tmp/st/.ratelab-manifest" | sort >"$tmp/listed"
diff "$tmp/there" "$tmp/listed" >/dev/null || fail "the manifest does not list what the study wrote: $(diff "$tmp/there" "$tmp/listed")"
cp "$tmp/access.log" "$tmp/st/access.log"
echo mine >"$tmp/st/notes.txt"
mkdir "$tmp/st/mydir"
echo mine >"$tmp/st/mydir/keep"
refused "input and notes in an earlier study" "--out '$tmp/st' holds '$tmp/st/access.log', which no earlier \`ratelab study\` wrote there" \
	"$tmp/st" study --quiet --trace "$tmp/st/access.log" --rules 20/1m --out "$tmp/st"
rm "$tmp/st/access.log"
refused "notes in an earlier study" "holds '$tmp/st/mydir'" "$tmp/st" study --quiet --trace "$tmp/access.log" --rules 20/1m --out "$tmp/st"
rm -r "$tmp/st/mydir"
refused "a file in an earlier study" "holds '$tmp/st/notes.txt'" "$tmp/st" study --quiet --trace "$tmp/access.log" --rules 20/1m --out "$tmp/st"
rm "$tmp/st/notes.txt"
# a file inside a folder the study made
echo mine >"$tmp/st/plots/mine.png"
refused "a file in the study's plots" "holds '$tmp/st/plots/mine.png'" "$tmp/st" study --quiet --trace "$tmp/access.log" --rules 20/1m --out "$tmp/st"
rm "$tmp/st/plots/mine.png"

# -- the input inside --out: a new folder holding only the log, and a file the earlier study wrote
mkdir "$tmp/new"
cp "$tmp/access.log" "$tmp/new/"
refused "the input in a new folder" "holds '$tmp/new/access.log'" "$tmp/new" study --quiet --trace "$tmp/new/access.log" --rules 20/1m --out "$tmp/new"
refused "an input the earlier study wrote" "holds '$tmp/st/traffic.csv', an input of this run: an input is never overwritten" \
	"$tmp/st" study --quiet --format csv --time-field t_ns --key-field requests --time-unit ns --trace "$tmp/st/traffic.csv" --rules 20/1m --out "$tmp/st"

# -- another command's folder, a study without a manifest, a damaged manifest, a stage left by a killed run
refused "sim into a study" "holds the output of \`ratelab study\`, not of \`ratelab sim\`" "$tmp/st" sim --quiet --out "$tmp/st" "$sc"
cp -r "$tmp/st" "$tmp/old"
rm "$tmp/old/.ratelab-manifest"
refused "a study without a manifest" "holds '$tmp/old/REPORT.md', which no earlier" "$tmp/old" study --quiet --trace "$tmp/access.log" --rules 20/1m --out "$tmp/old"
printf 'ratelab-manifest 1\ncommand study\nfile ../access.log\n' >"$tmp/old/.ratelab-manifest"
refused "a manifest naming a file outside" "holds a manifest '$tmp/old/.ratelab-manifest' that is not ratelab's (line 3)" \
	"$tmp/old" study --quiet --trace "$tmp/access.log" --rules 20/1m --out "$tmp/old"
printf 'not a manifest\n' >"$tmp/old/.ratelab-manifest"
refused "a foreign manifest" "that is not ratelab's (line 1)" "$tmp/old" study --quiet --trace "$tmp/access.log" --rules 20/1m --out "$tmp/old"
mkdir "$tmp/st/.ratelab-new-abc123"
refused "a stage left behind" "holds '$tmp/st/.ratelab-new-abc123'" "$tmp/st" study --quiet --trace "$tmp/access.log" --rules 20/1m --out "$tmp/st"
rmdir "$tmp/st/.ratelab-new-abc123"

# -- a second study replaces exactly the first's files: two rules (and the limits they
# suggest), then one; every file left is the second's, named in its manifest
study --trace "$tmp/access.log" --rules 20/1m,5/1s --out "$tmp/st"
[ -f "$tmp/st/plots/hurt_2.png" ] || fail "two rules: no plots/hurt_2.png"
n1=$(ls "$tmp/st/plots" | wc -l)
study --trace "$tmp/access.log" --rules 20/1m --out "$tmp/st"
[ "$(ls "$tmp/st/plots" | wc -l)" -lt "$n1" ] || fail "the earlier study's charts survived: $(ls "$tmp/st/plots")"
for f in $(cd "$tmp/st" && find . -type f ! -name .ratelab-manifest | sed 's|^\./||'); do
	grep -qxF "file $f" "$tmp/st/.ratelab-manifest" || fail "$f is not the second study's"
done
tail -n +2 "$tmp/st/study.csv" | cut -d, -f1 | grep -qx '5/1s' && fail "the second study's rows hold the first's rule 5/1s"
[ -z "$(ls -A "$tmp/st" | grep -v '^\(\.ratelab-manifest\|REPORT.md\|clients.csv\|meta.csv\|plots\|refused.csv\|report.html\|study.csv\|traffic.csv\|limits.csv\)$')" ] ||
	fail "the folder after the second study: $(ls -A "$tmp/st")"
[ "$(cat "$tmp/access.log" | wc -l)" -eq 120 ] || fail "the input changed"

# -- a failed study (a decider failing) leaves the earlier study as it was, and no stage
before=$(snap "$tmp/st")
"$ratelab" study --quiet --trace "$tmp/access.log" --rules 20/1m --decider 'exit 3' --out "$tmp/st" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "a failing decider: exit $rc"
[ "$(snap "$tmp/st")" = "$before" ] || fail "a failed study changed the earlier one"
# a failed study into a new folder leaves no folder
"$ratelab" study --quiet --trace "$tmp/access.log" --rules 20/1m --decider 'exit 3' --out "$tmp/fresh/sub" 2>/dev/null
[ -e "$tmp/fresh/sub" ] && fail "a failed study left its new folder: $(ls -A "$tmp/fresh/sub")"

# -- sim: the same rules
"$ratelab" sim --quiet --no-timing --out "$tmp/so" "$sc" >/dev/null 2>"$tmp/err" || fail "sim: $(cat "$tmp/err")"
[ "$(sed -n 2p "$tmp/so/.ratelab-manifest")" = "command sim" ] || fail "sim's manifest: $(cat "$tmp/so/.ratelab-manifest")"
refused "study into a sim folder" "holds the output of \`ratelab sim\`, not of \`ratelab study\`" "$tmp/so" study --quiet --trace "$tmp/access.log" --rules 20/1m --out "$tmp/so"
echo mine >"$tmp/so/notes.txt"
refused "a file in an earlier sim folder" "holds '$tmp/so/notes.txt'" "$tmp/so" sim --quiet --out "$tmp/so" "$sc"
rm "$tmp/so/notes.txt"
"$ratelab" sim --quiet --no-timing --out "$tmp/so" "$sc" >/dev/null 2>"$tmp/err" || fail "sim again: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/so" | grep -v '^\(\.ratelab-manifest\|summary.csv\|breaker.csv\|diverged.csv\|series\)$')" ] ||
	fail "sim's folder: $(ls -A "$tmp/so")"

finish out_dir_safety
