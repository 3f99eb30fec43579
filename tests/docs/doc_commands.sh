#!/bin/bash
# doc_commands.sh SRC BUILD - every pasteable command of docs/*.md, and the
# blocks of README.md marked <!-- doc-test --> (its unmarked ones are left
# alone), run as written. A pasteable block is fenced ```sh (commands) or ```console (a
# transcript: "$ " command lines, a line ending in '\' continued on the
# next, each followed by its exact output on stdout); the line before its
# fence must be one of
#   <!-- doc-test -->                  run it: every command exits 0
#                                      (```sh), or prints what is written
#                                      (```console)
#   <!-- doc-test skip: REASON -->     not run here, and why (another test, a
#                                      server, a long run)
# so that no such block goes untested unsaid. Blocks run in an empty
# directory in which build/ is BUILD and the source tree's folders the
# commands name (examples/, sim/) are links to SRC's: what they write stays
# in that directory, removed at the end. A failure names FILE:LINE.
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 ran=0 skipped=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Each block into $tmp/blocks/N.KIND, its first line "FILE:LINE", then its text.
mkdir "$tmp/blocks"
for md in "$src"/docs/*.md "$src"/README.md; do
	rel=${md#"$src"/}
	lenient=0
	[ "$rel" = README.md ] && lenient=1 # the README: its marked blocks only (its sections are many hands')
	awk -v f="$rel" -v base="${rel##*/}" -v lenient=$lenient -v out="$tmp/blocks" '
		function start(kind) {
			n = ++count
			file = sprintf("%s/%s_%03d.%s", out, base, n, kind)
			print f ":" FNR > file
			inb = 1
		}
		inb && /^```[ \t]*$/ { close(file); inb = 0; marker = ""; next }
		inb { print > file; next }
		/^```(sh|console)[ \t]*$/ {
			kind = substr($0, 4); sub(/[ \t]*$/, "", kind)
			if (marker == "" && lenient) { inb = 2; file = "/dev/null"; next }
			if (marker == "") { print f ":" FNR ": a ```" kind " block without a <!-- doc-test --> or <!-- doc-test skip: REASON --> line before it" > "/dev/stderr"; bad = 1 }
			if (marker == "skip") { skip++; marker = ""; inb = 2; file = "/dev/null"; next }
			start(kind); marker = ""; next
		}
		/^```/ { inb = 2; file = "/dev/null"; marker = ""; next }
		/^<!-- doc-test -->$/ { marker = "run"; next }
		/^<!-- doc-test skip: .+ -->$/ { marker = "skip"; next }
		/^<!-- doc-test/ { print f ":" FNR ": a doc-test marker not of the two forms: " $0 > "/dev/stderr"; bad = 1 }
		{ marker = "" }
		END { print skip + 0 > (out "/" base ".skipped"); exit bad }
	' "$md" 2>>"$tmp/unmarked" || true
done
[ -s "$tmp/unmarked" ] && fail "$(cat "$tmp/unmarked")"
for s in "$tmp"/blocks/*.skipped; do skipped=$((skipped + $(cat "$s"))); done

# The directory the commands run in: build/ and the source folders they read.
run=$tmp/run
mkdir "$run"
ln -s "$build" "$run/build"
for d in examples sim; do ln -s "$src/$d" "$run/$d"; done

for b in "$tmp"/blocks/*.sh "$tmp"/blocks/*.console; do
	[ -e "$b" ] || continue
	where=$(head -1 "$b")
	ran=$((ran + 1))
	case $b in
	*.sh)
		tail -n +2 "$b" >"$tmp/cmd"
		(cd "$run" && bash -euo pipefail "$tmp/cmd" >"$tmp/out" 2>"$tmp/err") ||
			fail "$where: exit $?: $(tail -3 "$tmp/err")"
		;;
	*.console)
		# split into commands (with their continuation lines) and their output
		awk -v dir="$tmp/steps" '
			BEGIN { system("rm -rf " dir "; mkdir " dir) }
			cont { print > cmd; cont = /\\$/; next }
			/^\$ / { n++; cmd = sprintf("%s/%03d.cmd", dir, n); want = sprintf("%s/%03d.want", dir, n)
			         print substr($0, 3) > cmd; printf "" > want; cont = /\\$/; next }
			n { print > want }
		' < <(tail -n +2 "$b")
		[ -n "$(ls "$tmp/steps")" ] || fail "$where: a console block with no \"\$ \" command"
		for c in "$tmp"/steps/*.cmd; do
			(cd "$run" && bash -o pipefail "$c" >"$tmp/out" 2>"$tmp/err") ||
				{ fail "$where: \$ $(head -1 "$c"): exit $?: $(tail -3 "$tmp/err")"; continue; }
			diff "${c%.cmd}.want" "$tmp/out" >"$tmp/diff" ||
				fail "$where: \$ $(head -1 "$c"): the output is not what is written (< written, > printed): $(head -8 "$tmp/diff")"
		done
		;;
	esac
done
[ "$ran" -gt 0 ] || fail "no block of docs/*.md was run"
ls "$tmp"/blocks/README.md_* >/dev/null 2>&1 || fail "no block of README.md was run"
[ "$fails" -eq 0 ] || { echo "doc_commands: $fails failure(s)"; exit 1; }
echo "doc_commands: $ran block(s) of docs/*.md and README.md run as written, $skipped marked skip with a reason"
