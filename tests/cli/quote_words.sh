#!/bin/bash
# One bad value is quoted the same by every command (rl_quote_to, parse.h,
# the one quoter; issue 42): a path that holds an ESC sequence, a quote, a
# backslash, a byte that is not UTF-8 and an 'é' is named alike by replay,
# import and compare ("cannot open Q: ..."); an unknown algorithm's name, and
# one longer than the 60-byte cap with a 3-byte character across it, alike by
# replay --algo and study --algos. Every quote is checked against the words
# the header gives, and no stderr holds a raw control byte. $1: the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

# quote_of NAME WANT_RC PREFIX SUFFIX CMD ARGS...: runs `ratelab CMD ARGS`
# (stdin empty), checks the exit status and that stderr is one line with no
# control byte, and prints what stands between PREFIX and SUFFIX in it. It
# runs in a subshell: a failed check's words land in what it prints, so
# `same` fails on them.
quote_of() {
	local name=$1 want_rc=$2 prefix=$3 suffix=$4 rc line
	shift 4
	"$ratelab" "$@" >/dev/null 2>"$tmp/err" </dev/null; rc=$?
	[ $rc -eq "$want_rc" ] || fail "$name: exit $rc, want $want_rc (stderr: $(cat "$tmp/err"))"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$name: want one stderr line: $(cat "$tmp/err")"
	LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$tmp/err" && fail "$name: a raw control byte on stderr: $(cat -v "$tmp/err")"
	line=$(cat "$tmp/err")
	case $line in
	*"$prefix"*"$suffix"*) line=${line#*"$prefix"}; printf '%s' "${line%"$suffix"*}" ;;
	*) fail "$name: no '$prefix...$suffix' in: $line" ;;
	esac
}

# same WHAT WANT NAME=QUOTE...: every command's quote is WANT.
same() {
	local what=$1 want=$2 g
	shift 2
	for g in "$@"; do
		[ "${g#*=}" = "$want" ] || fail "$what: ${g%%=*} quotes it as \"${g#*=}\", want \"$want\""
	done
}

bad_path=$tmp/$'no\x1b[31m it\'s a\\b \xff caf\xc3\xa9'
want_path="'$tmp/no\\x1b[31m it\\'s a\\\\b \\xff caf"$'\xc3\xa9'"'"
same "a missing path" "$want_path" \
	"replay=$(quote_of replay 2 'cannot open ' ': No such file' replay --algo gcra --limit 1 --window 1s "$bad_path")" \
	"import=$(quote_of import 2 'cannot open ' ': No such file' import "$bad_path")" \
	"compare=$(quote_of compare 2 'cannot open ' ': No such file' compare "$bad_path" "$bad_path")"

bad_algo=$'gc\x1bra\x7f\x01\xc2\x9b\xed\xa0\x80 \\ \' \xe2\x82\xac'
want_algo="'gc\\x1bra\\x7f\\x01\\xc2\\x9b\\xed\\xa0\\x80 \\\\ \\' "$'\xe2\x82\xac'"'"
same "an unknown algorithm" "$want_algo" \
	"replay=$(quote_of replay 2 'unknown algorithm ' ' (' replay --algo "$bad_algo" --limit 1 --window 1s)" \
	"study=$(quote_of study 2 'unknown algorithm ' ' (' study --algos "$bad_algo" --rules 1/1s --trace /dev/null --out "$tmp/study")"

# 58 bytes, then a 3-byte '€' that would pass the cap: cut before it, never inside
long=$(printf 'x%.0s' $(seq 58))$'\xe2\x82\xac'yz
want_long="'$(printf 'x%.0s' $(seq 58))'...(63 bytes)"
same "a long algorithm name" "$want_long" \
	"replay=$(quote_of replay 2 'unknown algorithm ' ' (' replay --algo "$long" --limit 1 --window 1s)" \
	"study=$(quote_of study 2 'unknown algorithm ' ' (' study --algos "$long" --rules 1/1s --trace /dev/null --out "$tmp/study")"
[ -e "$tmp/study" ] && fail "study wrote $tmp/study after a usage error"

# import's bad log time through the one quoter too: the control byte escaped, the value whole up to the cap
printf '1.2.3.4 - - [05/Dec/2026:10:00:0\x1b +0000] "GET / HTTP/1.1" 200 1 "-" "-"\n' >"$tmp/badtime.log"
"$ratelab" import --format combined "$tmp/badtime.log" >/dev/null 2>"$tmp/badtime.err"
grep -qF "time '05/Dec/2026:10:00:0\x1b +0000': not a date" "$tmp/badtime.err" ||
	fail "import's bad time: $(cat -v "$tmp/badtime.err")"
grep -q $'\x1b' "$tmp/badtime.err" && fail "import's bad time: a raw escape byte on stderr"

finish quote_words
