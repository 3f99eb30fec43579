#!/usr/bin/env bash
# run.sh BUILD NAME... - runs each libFuzzer harness for FUZZ_SECONDS
# (default 60) on its committed seed corpus (tests/fuzz/corpus/NAME, read
# only: new inputs go to a scratch corpus). Fails when any harness finds a
# crash, a leak, a sanitizer report or a timeout; the reproducer is kept
# in FUZZ_ARTIFACTS (default build-fuzz/artifacts).
set -euo pipefail
build=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
secs=${FUZZ_SECONDS:-60}
artifacts=${FUZZ_ARTIFACTS:-$build/artifacts}
mkdir -p "$artifacts"
failed=0
for name in "$@"; do
	scratch=$(mktemp -d)
	# stdout and stderr of the harness's own prints are closed (commands print
	# verdicts and messages); libFuzzer's reports still reach stderr
	if "$build/tests/fuzz/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
		-artifact_prefix="$artifacts/$name-" -print_final_stats=1 "$scratch" "$here/corpus/$name" \
		>"$artifacts/$name.log" 2>&1; then
		echo "fuzz: $name: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$artifacts/$name.log" | grep -o '[0-9]*$') runs in ${secs}s, no finding"
	else
		echo "fuzz: $name: FAILED (log: $artifacts/$name.log)"
		tail -40 "$artifacts/$name.log"
		failed=$((failed + 1))
	fi
	rm -rf "$scratch"
done
[ "$failed" -eq 0 ] || { echo "fuzz: $failed harness(es) failed"; exit 1; }
