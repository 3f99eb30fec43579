#!/bin/bash
# The sample access log (access_log.c): the same bytes for a seed on every
# machine (the README's commands and the committed study of it depend on
# that), another seed another log; about 10,000 lines out of order as
# completion-order logs are; imported without a bad line into 60 ordinary
# clients and 3 heavy ones, IPv4 and IPv6.
# $1 is the generator, $2 the ratelab binary.
gen=$1 ratelab=$2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gen" >"$tmp/access.log" || fail "generator: exit $?"
sum=$(sha256sum <"$tmp/access.log" | cut -d' ' -f1)
[ "$sum" = 8f00082a71813738fc284014cd2d253e64dbee4616df71c7d6d8b11126aba09c ] ||
	fail "seed 1 gave other bytes ($sum): update the README's study example with the new log"
[ "$("$gen" --seed 1 | sha256sum | cut -d' ' -f1)" = "$sum" ] || fail "--seed 1 is not the default"
[ "$("$gen" --seed 2 | sha256sum | cut -d' ' -f1)" != "$sum" ] || fail "seed 2 gave seed 1's log"
"$gen" --seed x >/dev/null 2>&1 && fail "--seed x accepted"
"$gen" --duration 0 >/dev/null 2>&1 && fail "--duration 0 accepted"

n=$(wc -l <"$tmp/access.log")
[ "$n" -ge 9000 ] && [ "$n" -le 11000 ] || fail "$n lines, want about 10,000"

# out of order: some line's time is earlier than the line before it
"$ratelab" import --absolute --format combined --strict <"$tmp/access.log" >"$tmp/sorted" 2>"$tmp/err" ||
	fail "import: $(cat "$tmp/err")"
grep -qF "skipped 0 of $n lines" "$tmp/err" || fail "import: $(cat "$tmp/err")"
head -1 "$tmp/sorted" | grep -q '^# ratelab trace: resolution_ns=1000000000 ' || fail "import: $(head -1 "$tmp/sorted")"
sed -i 1d "$tmp/sorted" # the trace's own line: resolution and origin
awk -F'[][]' '{ print $2 }' "$tmp/access.log" | awk 'prev > $0 { back++ } { prev = $0 } END { exit back > 0 ? 0 : 1 }' ||
	fail "the log is in time order: a completion-order log is not"

# 63 clients: 3 heavy (over 1,500 requests each), 60 ordinary (under 400)
cut -d' ' -f2 "$tmp/sorted" | sort | uniq -c | sort -rn >"$tmp/clients"
[ "$(wc -l <"$tmp/clients")" -eq 63 ] || fail "$(wc -l <"$tmp/clients") clients, want 63"
[ "$(awk '$1 > 1500' "$tmp/clients" | wc -l)" -eq 3 ] || fail "heavy clients: $(head -5 "$tmp/clients")"
[ "$(awk '$1 < 400' "$tmp/clients" | wc -l)" -eq 60 ] || fail "ordinary clients: $(sed -n 4,8p "$tmp/clients")"
v6=$(awk '$2 ~ /:/' "$tmp/clients" | wc -l)
[ "$v6" -ge 2 ] && [ "$v6" -le 10 ] || fail "$v6 IPv6 clients, want a few"

[ $fails -eq 0 ] || { echo "access_log: $fails check(s) failed"; exit 1; }
echo "access_log: all checks passed"
