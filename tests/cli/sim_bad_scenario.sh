#!/bin/bash
# ratelab sim: a bad scenario file or trace exits 2 with a message naming file and
# line, and writes nothing.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "sim_bad_scenario: $*" >&2; exit 1; }

check() { # name, ini text, expected "line: text" fragment
	printf '%b' "$2" >"$tmp/$1.ini"
	"$bin" sim --quiet --out "$tmp/out" "$tmp/$1.ini" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$1: exit $rc, expected 2"
	grep -qF "$tmp/$1.ini:$3" "$tmp/err" || fail "$1: message '$(cat "$tmp/err")' lacks '$1.ini:$3'"
	[ ! -e "$tmp/out" ] || fail "$1: output written"
}
ok='[scenario]\nlimit = 10\nwindow = 1s\nduration = 5s\n'
check badwindow '[scenario]\nlimit = 10\nwindow = 1 sec\n' "3: window"
check badlimit '[scenario]\nlimit = 0\n' "2: limit"
check badkey "${ok}[traffic x]\ntype = poisson\nspeed = 3\n" "7: [traffic]: unknown key 'speed'"
check badtype "${ok}[traffic x]\ntype = tsunami\n" "6: type = 'tsunami'"
check notype "${ok}[traffic x]\nload = 50\n" "6: [traffic x]: no type"
check noline "${ok}[traffic x]\ntype = poisson\njunk\n" "7: malformed"
check nosection "${ok}" "4: no [traffic"
check badtrace "${ok}[traffic x]\ntype = replay\nfile = t.txt\n" "6: [traffic x]: cannot open the trace"
# a key that its source's type would ignore, and sweep where a load cannot change
printf '0 a\n' >"$tmp/t1.txt"
check load_on_replay "${ok}[traffic x]\ntype = replay\nfile = t1.txt\nload = 50\n" \
	"8: [traffic x]: 'load' does not apply to type replay"
check keys_on_replay "${ok}[traffic x]\ntype = replay\nkeys = 3\nfile = t1.txt\n" \
	"7: [traffic x]: 'keys' does not apply to type replay"
check zipf_on_replay "${ok}[traffic x]\nzipf = 1\ntype = replay\nfile = t1.txt\n" \
	"6: [traffic x]: 'zipf' does not apply to type replay"
check file_on_poisson "${ok}[traffic x]\ntype = poisson\nfile = t1.txt\n" \
	"7: [traffic x]: 'file' does not apply to type poisson (only to replay)"
check sweep_on_replay "${ok}sweep = 50,100\n[traffic x]\ntype = replay\nfile = t1.txt\n" \
	"5: [scenario]: sweep sets each source's load, which [traffic x] cannot change"
# a bad trace line: the trace's file and line, the line quoted, the reason as replay words it
printf '5 a\n3 a x\n' >"$tmp/bad.txt"
printf "${ok}[traffic x]\ntype = replay\nfile = bad.txt\n" >"$tmp/badline.ini"
"$bin" sim --quiet --out "$tmp/out" "$tmp/badline.ini" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "bad.txt:2: '3 a x': cost 'x' is not an integer in [1, 1000000000000]" "$tmp/err" ||
	fail "bad trace line: $(cat "$tmp/err")"
[ ! -e "$tmp/out" ] || fail "bad trace line: output written"
"$bin" sim --bogus >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown option not exit 2"
exit 0
