# harness.sh - what the black-box tests of the ratelab program share.
# Sourced as: source "$(dirname "$0")/lib/harness.sh" "$1" ($1: the binary).
ratelab=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_ok NAME INPUT WANT ARGS...: `ratelab ARGS` on INPUT exits 0 with an
# empty stderr and stdout == WANT.
run_ok() {
	local name=$1 input=$2 want=$3 out rc
	shift 3
	out=$(printf '%s' "$input" | "$ratelab" "$@" 2>"$tmp/err"); rc=$?
	[ $rc -eq 0 ] || fail "$name: exit $rc (stderr: $(cat "$tmp/err"))"
	[ -s "$tmp/err" ] && fail "$name: stderr not empty: $(cat "$tmp/err")"
	[ "$out" = "$want" ] || fail "$name: ratelab $*
--- got:
$out
--- want:
$want"
}

# run_bad NAME INPUT WANT CMD ARGS... -- NEEDLE...: `ratelab CMD ARGS` on
# INPUT exits 2; stdout == WANT (the earlier lines' output, flushed); stderr
# is one line beginning "ratelab CMD: " and containing every NEEDLE.
run_bad() {
	local name=$1 input=$2 want=$3 cmd=$4 out rc err n
	shift 4
	local args=()
	while [ "$1" != "--" ]; do args+=("$1"); shift; done
	shift
	out=$(printf '%s' "$input" | "$ratelab" "$cmd" "${args[@]}" 2>"$tmp/err"); rc=$?
	err=$(cat "$tmp/err")
	n=$(wc -l <"$tmp/err")
	[ $rc -eq 2 ] || fail "$name: exit $rc, want 2 (stderr: $err)"
	[ "$out" = "$want" ] || fail "$name: stdout
--- got:
$out
--- want:
$want"
	[ "$n" -eq 1 ] || fail "$name: $n stderr lines, want 1: $err"
	case $err in "ratelab $cmd: "*) ;; *) fail "$name: stderr does not start 'ratelab $cmd: ': $err" ;; esac
	for needle in "$@"; do
		case $err in *"$needle"*) ;; *) fail "$name: stderr lacks \"$needle\": $err" ;; esac
	done
}

# finish NAME: exits 1 when any check failed.
finish() {
	[ $fails -eq 0 ] || { echo "$1: $fails check(s) failed"; exit 1; }
	echo "$1: all checks passed"
}
