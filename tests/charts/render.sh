#!/bin/bash
# Renders every chart of make bench (plots/*.gp but the palette) against a
# chart data dir and fails on any gnuplot warning or error (anything on its
# stderr), a non-zero exit or a chart not drawn.
#   bash tests/charts/render.sh [DATA_DIR [OUT_DIR]]
# DATA_DIR defaults to the committed results/plots/data (a QUICK=1 run writes
# the same files there); OUT_DIR to a temporary dir, removed afterwards.
# Run from anywhere: the scripts are run from the repository root.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
data=${1:-results/plots/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${2:-$tmp}
mkdir -p "$out" || exit 1
fail=0
[ -f "$data/vars.gp" ] || { echo "charts: no $data/vars.gp (run make bench, or pass a chart data dir)" >&2; exit 1; }
n=0
for gp in plots/*.gp; do
	[ "$gp" = plots/style.gp ] && continue
	name=$(basename "$gp" .gp)
	rm -f "$out/$name.png"
	gnuplot -e "data='$data'; out='$out'" "$gp" 2>"$tmp/$name.err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$tmp/$name.err" ]; then
		echo "charts: $gp (exit $rc) wrote on stderr:" >&2
		sed 's/^/  /' "$tmp/$name.err" >&2
		fail=1
		continue
	fi
	# redis.gp draws nothing when Redis was not run (an empty redis.csv)
	if [ "$name" = redis ] && ! [ -s "$data/redis.csv" ]; then
		n=$((n + 1))
		continue
	fi
	if ! [ -s "$out/$name.png" ] || [ "$(head -c 4 "$out/$name.png" | od -An -c | tr -d ' ')" != '211PNG' ]; then
		echo "charts: $gp drew no PNG at $out/$name.png" >&2
		fail=1
		continue
	fi
	n=$((n + 1))
done
[ $n -ge 12 ] || { echo "charts: only $n charts rendered, want every plots/*.gp" >&2; fail=1; }
[ $fail -eq 0 ] && echo "charts: $n charts rendered from $data, no gnuplot warning"
exit $fail
