#!/usr/bin/env bash
# study_example.sh BUILD DIR - runs the commands of README "Study your own
# traffic" as they are written there (read from README.md, `build/` meaning
# BUILD) in an empty directory, and leaves their study in DIR. make bench
# writes results/study-example with it; the test example_study compares a
# fresh run with that committed copy.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
dest=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The block's command lines, but the first (make deps && make: BUILD is built).
awk '/^### Study your own traffic/ { s = 1; next } s && /^```sh/ { b = 1; next }
     b && /^```/ { exit } b' "$here/README.md" | sed 1d >"$tmp/commands"
grep -q 'ratelab study' "$tmp/commands" || { echo "study_example: no 'ratelab study' in README's study block" >&2; exit 1; }
while IFS= read -r line; do
	case $line in build/*) ;; *) echo "study_example: a command not under build/: $line" >&2; exit 1 ;; esac
done <"$tmp/commands"
mkdir "$tmp/run"
(cd "$tmp/run" && sed "s|^build/|\"$build\"/|" "$tmp/commands" | bash -euo pipefail 2>"$tmp/err") ||
	{ cat "$tmp/err" >&2; exit 1; }
out=$(sed -n 's/.*ratelab study .*--out \([^ ]*\).*/\1/p' "$tmp/commands")
[ -f "$tmp/run/$out/study.csv" ] || { echo "study_example: no $out/study.csv" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
cp -r "$tmp/run/$out" "$dest"
