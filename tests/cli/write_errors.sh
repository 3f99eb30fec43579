#!/usr/bin/env bash
# Every command checks every write and the final close: a failed write
# (/dev/full, `ulimit -f`) exits 1 with "write error:", the path and the
# system's reason, and leaves no partial file that looks complete: a folder
# keeps the earlier run's files, a new one is not left, a file is written
# beside and renamed. An input with no request is an error. $1 is the binary.
source "$(dirname "$0")/lib/harness.sh" "$1"

sc=$(dirname "$0")/../../sim/scenarios/constant.ini
for i in $(seq 0 2999); do
	printf '10.0.%d.%d - - [10/Oct/2026:13:%02d:%02d +0000] "GET /a HTTP/1.1" 200 5 "-" "x"\n' \
		$((i % 50)) $((i % 7)) $((i / 60 % 60)) $((i % 60))
done >"$tmp/access.log"
head -5 "$tmp/access.log" >"$tmp/small.log"

# failing NAME NEEDLE CMD...: exit 1 and stderr holding NEEDLE; stdout to $to (default: discarded)
to=/dev/null
failing() {
	local name=$1 needle=$2 rc
	shift 2
	"$@" >"$to" 2>"$tmp/err"; rc=$?
	[ $rc -eq 1 ] || fail "$name: exit $rc, want 1 (stderr: $(cat "$tmp/err"))"
	grep -qF -- "$needle" "$tmp/err" || fail "$name: stderr lacks \"$needle\": $(cat "$tmp/err")"
}

# -- stdout on /dev/full: a trace over 64 KiB (past stdout's buffer) and a small one
to=/dev/full
[ "$("$ratelab" import "$tmp/access.log" 2>/dev/null | wc -c)" -gt 65536 ] || fail "the trace is not over 64 KiB"
failing "import > /dev/full" "ratelab import: write error: <stdout>: No space left on device" \
	"$ratelab" import "$tmp/access.log"
failing "import small > /dev/full" "ratelab import: write error: <stdout>: No space left on device" \
	"$ratelab" import "$tmp/small.log"
[ "$(grep -c 'write error' "$tmp/err")" -eq 1 ] || fail "the write error said more than once: $(cat "$tmp/err")"
failing "sim > /dev/full" "ratelab sim: write error: <stdout>: No space left on device" \
	"$ratelab" sim --no-timing --out "$tmp/s0" "$sc"
failing "theory > /dev/full" "ratelab theory: write error: <stdout>: No space left on device" \
	"$ratelab" theory --rule 10/1s --load 50%
failing "fleet > /dev/full" "ratelab fleet: write error: <stdout>: No space left on device" \
	"$ratelab" fleet --nodes 2 --sync 1s --duration 10s
failing "--help > /dev/full" "write error: <stdout>: No space left on device" "$ratelab" study --help
to=/dev/null

# -- files past `ulimit -f` (4 KiB blocks of 1 KiB here: a few KiB)
"$ratelab" sim --quiet --no-timing --out "$tmp/so" "$sc" >/dev/null 2>"$tmp/err" || fail "sim: $(cat "$tmp/err")"
before=$(cd "$tmp/so" && find . -type f | sort | xargs cksum)
failing "sim past ulimit -f" "File too large" bash -c "ulimit -f 1; exec \"\$0\" sim --quiet --no-timing --out '$tmp/so' '$sc' >/dev/null" "$ratelab"
grep -q "ratelab sim: write error: '$tmp/so/.*\.csv': File too large" "$tmp/err" || fail "sim past ulimit -f: no path: $(cat "$tmp/err")"
[ "$(cd "$tmp/so" && find . -type f | sort | xargs cksum)" = "$before" ] || fail "a failed sim changed the earlier run"
[ -z "$(ls -A "$tmp/so" | grep ratelab-new)" ] || fail "a failed sim left its stage"
failing "sim past ulimit -f, new folder" "File too large" bash -c "ulimit -f 1; exec \"\$0\" sim --quiet --no-timing --out '$tmp/s1' '$sc' >/dev/null" "$ratelab"
[ -e "$tmp/s1" ] && fail "a failed sim left a new folder: $(ls -A "$tmp/s1")"

"$ratelab" study --quiet --trace "$tmp/access.log" --rules 20/1m --out "$tmp/st" 2>"$tmp/err" || fail "study: $(cat "$tmp/err")"
before=$(cd "$tmp/st" && find . -type f | sort | xargs cksum)
failing "study past ulimit -f" "File too large" bash -c "ulimit -f 20; exec \"\$0\" study --quiet --trace '$tmp/access.log' --rules 10/1m,20/1m --out '$tmp/st'" "$ratelab"
[ "$(cd "$tmp/st" && find . -type f | sort | xargs cksum)" = "$before" ] || fail "a failed study changed the earlier one"
[ -z "$(ls -A "$tmp/st" | grep ratelab-new)" ] || fail "a failed study left its stage"

"$ratelab" fleet --nodes 2 --sync 1s --duration 10s --out "$tmp/f.csv" 2>/dev/null || fail "fleet --out"
before=$(cksum <"$tmp/f.csv")
failing "fleet past ulimit -f" "ratelab fleet: write error: '$tmp/f.csv.ratelab-" bash -c "ulimit -f 1; exec \"\$0\" fleet --out '$tmp/f.csv' --duration 60s" "$ratelab"
grep -q "File too large" "$tmp/err" || fail "fleet past ulimit -f: no reason: $(cat "$tmp/err")"
[ "$(cksum <"$tmp/f.csv")" = "$before" ] || fail "a failed fleet changed its --out file"
[ -z "$(ls "$tmp" | grep 'f.csv.ratelab-')" ] || fail "a failed fleet left its file beside"

# -- an input with no request: exit 2, a clear message, no output
: >"$tmp/empty.log"
# empty NAME NEEDLE ARGS...: exit 2, nothing on stdout, the last stderr line "ratelab CMD: ...NEEDLE"
empty() {
	local name=$1 needle=$2 rc
	shift 2
	"$ratelab" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 2 ] || fail "$name: exit $rc, want 2"
	[ -s "$tmp/out" ] && fail "$name: wrote $(cat "$tmp/out")"
	case $(tail -1 "$tmp/err") in "ratelab $1: "*"$needle"*) ;; *) fail "$name: stderr $(cat "$tmp/err")" ;; esac
}
empty "import empty" "'$tmp/empty.log' holds no request" import "$tmp/empty.log"
empty "import empty stdin" "standard input holds no request" import
empty "study empty" "'$tmp/empty.log' holds no request" study --quiet --trace "$tmp/empty.log" --rules 1/1s --out "$tmp/e"
[ -e "$tmp/e" ] && fail "an empty log left a study folder"

finish write_errors
