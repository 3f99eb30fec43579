#!/bin/bash
# bench/steps.sh, the progress and preflight of `make bench`, without
# running a bench: the preflight names every missing package (and the
# peers' node modules) with the command that installs them and exits 2,
# and demands no peer with PEERS=0; a step's line gives the previous run's
# time of that step and of what is left; a terminal gets a line every
# BENCH_TICK seconds, a log none; the steps' times are written to
# STEPS_CSV, the other mode's rows kept; lanes beside a step are waited
# for, shown and named in the summary. $1 is the top of the source tree.
top=$(realpath "$1")
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A PATH holding every command the bench needs but those named, and a
# tree with or without the peers' node modules.
# fake_path DIR CMD...: DIR with links to the real commands, but CMDs.
fake_path() {
	local dir=$1 c skip
	shift
	mkdir -p "$dir"
	for c in bash cmake g++ cc make python3 gzip gnuplot valgrind redis-server redis-benchmark redis-cli \
		go javac node npm nginx awk date id sleep mv cat kill rm mkdir; do
		skip=0
		for s in "$@"; do [ "$c" = "$s" ] && skip=1; done
		[ $skip = 1 ] && continue
		if command -v "$c" >/dev/null 2>&1; then
			ln -s "$(command -v "$c")" "$dir/$c"
		else # a machine without it: a stand-in that succeeds
			printf '#!/bin/sh\nexit 0\n' >"$dir/$c"
			chmod +x "$dir/$c"
		fi
	done
}
mkdir -p "$tmp/tree/bench/peers/node/node_modules/rate-limiter-flexible" "$tmp/tree/bench/peers/node/node_modules/ioredis"
touch "$tmp/tree/bench/peers/node/node_modules/rate-limiter-flexible/package.json" \
	"$tmp/tree/bench/peers/node/node_modules/ioredis/package.json"
mkdir -p "$tmp/bare/bench/peers/node"

# preflight NAME TREE PEERS PATH: runs bench_preflight; its stderr in $tmp/NAME.err, its status echoed
preflight() {
	(cd "$2" && PEERS=$3 PATH=$4 bash -c "source '$top/bench/steps.sh'; bench_preflight" 2>"$tmp/$1.err"; echo $?)
}
# The files the preflight looks for (headers, jars, Go sources) are this machine's: the test
# needs them (make deps), so that only what it takes away is missing.
fake_path "$tmp/all"
rc=$(preflight all "$tmp/tree" 1 "$tmp/all")
[ "$rc" = 0 ] || fail "all present: status $rc ($(cat "$tmp/all.err"))"
[ -s "$tmp/all.err" ] && fail "all present: stderr $(cat "$tmp/all.err")"

# npm only installs the node modules: not needed once they are there
fake_path "$tmp/nonpm" npm
rc=$(preflight nonpm "$tmp/tree" 1 "$tmp/nonpm")
[ "$rc" = 0 ] || fail "npm, the node modules present: status $rc ($(cat "$tmp/nonpm.err"))"

fake_path "$tmp/novg" valgrind go redis-benchmark redis-cli
rc=$(preflight novg "$tmp/tree" 1 "$tmp/novg")
[ "$rc" = 2 ] || fail "missing: status $rc, want 2"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo "
want="bench: missing before the first step: valgrind redis-tools golang-go
bench: run: make deps
bench: (that is: ${sudo}apt-get update && ${sudo}apt-get install -y valgrind redis-tools golang-go)
bench: (or skip the peers: make bench PEERS=0)"
[ "$(cat "$tmp/novg.err")" = "$want" ] || fail "missing: stderr
--- got:
$(cat "$tmp/novg.err")
--- want:
$want"

# the peers' node modules, and PEERS=0 needing no peer at all
rc=$(preflight npm "$tmp/bare" 1 "$tmp/all")
[ "$rc" = 2 ] || fail "node modules: status $rc"
grep -qx 'bench: missing before the first step: (the node modules of bench/peers/node)' "$tmp/npm.err" ||
	fail "node modules: $(cat "$tmp/npm.err")"
grep -qx 'bench: (that is: cd bench/peers/node && npm ci)' "$tmp/npm.err" || fail "node modules: $(cat "$tmp/npm.err")"
fake_path "$tmp/nopeers" go javac node npm nginx
rc=$(preflight nopeers "$tmp/bare" 0 "$tmp/nopeers")
[ "$rc" = 0 ] || fail "PEERS=0: status $rc ($(cat "$tmp/nopeers.err"))"
rc=$(preflight peers "$tmp/bare" 1 "$tmp/nopeers")
grep -q 'missing before the first step: golang-go default-jdk-headless nodejs npm nginx-core (the node modules' "$tmp/peers.err" ||
	fail "peers: $(cat "$tmp/peers.err")"

# -- the step lines and STEPS_CSV
# run_steps MODE CSV TICK: three steps of 0, 2 and 1 s (2 with BENCH_TICK=TICK), then done
run_steps() {
	MODE=$1 STEPS_CSV=$2 BENCH_TICK=$3 bash -c "
		STEPS=3
		source '$top/bench/steps.sh'
		bench_step 1 build 'build it' sim peers
		bench_step 2 sim 'simulate' peers
		sleep 2.5
		bench_step 3 peers 'the peers'
		sleep 1
		echo \"summary: \$(bench_steps_summary)\"
		bench_steps_done"
}
printf 'mode,step,seconds\nquick,build,7\nfull,build,60\nfull,sim,100\nfull,peers,40\n' >"$tmp/steps.csv"
out=$(run_steps full "$tmp/steps.csv" 10)
line() { sed -n "$1p" <<<"$out"; }
[[ $(line 1) =~ ^'== [1/3] build it (t+'[0-9]+"s; the previous full run: 60s, about 200s left)"$ ]] || fail "step 1: $(line 1)"
[[ $(line 2) =~ ^'== [2/3] simulate (t+'[0-9]+"s; the previous full run: 100s, about 140s left)"$ ]] || fail "step 2: $(line 2)"
[[ $(line 3) =~ ^'== [3/3] the peers (t+'[0-9]+"s; the previous full run: 40s, about 40s left)"$ ]] || fail "step 3: $(line 3)"
grep -q '\.\.\.' <<<"$out" && fail "not a terminal, yet progress lines: $out"
[[ $(line 4) =~ ^'summary: '[0-9]+' s (full); each step: build '[01]' s, sim '[23]' s'$ ]] || fail "summary: $(line 4)"
# the full run's rows replaced, the quick run's kept
awk -F, 'NR == 1 && $0 != "mode,step,seconds" { exit 1 } $1 == "quick" { q++ } $1 == "full" { f++ } END { exit !(q == 1 && f == 3) }' \
	"$tmp/steps.csv" || fail "steps.csv: $(cat "$tmp/steps.csv")"
grep -qx 'quick,build,7' "$tmp/steps.csv" || fail "steps.csv lost the quick run: $(cat "$tmp/steps.csv")"
grep -Eqx 'full,sim,[23]' "$tmp/steps.csv" || fail "steps.csv: sim's time: $(cat "$tmp/steps.csv")"
# no previous run of the mode
out=$(run_steps quick "$tmp/none.csv" 10)
grep -q "^== \[1/3\] build it (t+[0-9]*s; no previous quick run's time)$" <<<"$out" || fail "no previous: $out"
[ -f "$tmp/none.csv" ] || fail "steps.csv not written"

# lanes: work beside a step, waited for at its end, their output and time
# shown, a failed one failing the wait; the summary names them beside the step
out=$(MODE=full STEPS_CSV="$tmp/lanes.csv" BENCH_TICK=10 bash -c "
	STEPS=2
	source '$top/bench/steps.sh'
	bench_step 1 sim 'simulate' peers
	bench_lane slow bash -c 'sleep 1.2; echo slow says hi'
	bench_lane bad bash -c 'echo bad says no; exit 3'
	rc=0
	bench_lanes_wait || rc=\$?
	echo \"wait: \$rc\"
	bench_step 2 peers 'the peers'
	bench_lane ok true
	bench_lanes_wait && echo 'wait: 0'
	echo \"summary: \$(bench_steps_summary)\"" 2>"$tmp/lanes.err")
grep -qx '   beside it: slow' <<<"$out" || fail "lanes: no 'beside it' line: $out"
grep -Eqx '   -- slow \(beside the step\): [1-9][0-9]*s' <<<"$out" || fail "lanes: slow's time: $out"
grep -qx 'slow says hi' <<<"$out" && grep -qx 'bad says no' <<<"$out" || fail "lanes: their output: $out"
[ "$(grep -c '^wait: ' <<<"$out")" = 2 ] && grep -qx 'wait: 1' <<<"$out" && grep -qx 'wait: 0' <<<"$out" ||
	fail "lanes: a failed lane must fail the wait (1), none failed 0: $out"
grep -qx 'bench: bad failed (exit status 3); its output above' "$tmp/lanes.err" || fail "lanes: stderr: $(cat "$tmp/lanes.err")"
# (the summary's steps are those ended: the second is still on)
grep -Eq '^summary: [0-9]+ s \(full\); each step: sim [1-9][0-9]* s \(beside it: slow [1-9][0-9]* s, bad [0-9]+ s\)$' <<<"$out" ||
	fail "lanes: summary: $(grep '^summary' <<<"$out")"

# on a terminal: a line every BENCH_TICK seconds during the 2.5 s step
script -qec "$(declare -f run_steps); top='$top'; run_steps full '$tmp/steps.csv' 1" /dev/null >"$tmp/tty.out" </dev/null
n=$(grep -c '^   \.\.\. \[2/3\] sim: [0-9]*s of about [23]s' "$tmp/tty.out")
[ "$n" -ge 2 ] || fail "terminal: $n progress lines in the 2.5 s step: $(cat "$tmp/tty.out")"
grep -q '\.\.\. \[1/3\]' "$tmp/tty.out" && fail "terminal: the 0 s step ticked"

# the pool: a slot frees when any command ends, not only the oldest. A waits (up to
# 10 s) for the file C makes; B ends at once; C, started by a pool of 2, can only
# start while A runs if B's slot freed it: waiting on A first fails A (exit 1).
out=$(cd "$tmp" && bash -c "
	set -euo pipefail
	source '$top/bench/steps.sh'
	bench_pool_run 2 bash -c 'for i in \$(seq 100); do [ -e pool.c ] && exit 0; sleep 0.1; done; exit 1'
	bench_pool_run 2 true
	bench_pool_run 2 touch pool.c
	bench_pool_wait && echo 'pool: done'
" 2>&1)
[ "$out" = 'pool: done' ] || fail "pool: a slot must free when a newer command ends first: $out"
# a failed command's status comes back from the run that waits on it, and stops a set -e run
out=$(bash -c "
	set -euo pipefail
	source '$top/bench/steps.sh'
	bench_pool_run 1 bash -c 'exit 3'
	bench_pool_run 1 true
	echo 'pool: not stopped'
" 2>&1; echo "status $?")
[ "$out" = 'status 3' ] || fail "pool: a failed command must stop the run with its status: $out"
out=$(bash -c "
	source '$top/bench/steps.sh'
	bench_pool_run 2 true
	bench_pool_run 2 bash -c 'exit 4'
	bench_pool_wait; echo \"wait \$?\"
" 2>&1)
[ "$out" = 'wait 4' ] || fail "pool: bench_pool_wait must return a failed command's status: $out"

# the import and study steps' inputs, made in step 2: a folder of another mode's logs is refused
# (before any build), with the command that makes them
mkdir -p "$tmp/inputs"
echo 55000 >"$tmp/inputs/duration"
out=$(bash "$top/bench/import/run.sh" "$tmp/no-build" "$tmp/res" 0 "$tmp/inputs" 2>&1; echo "status $?")
grep -q "^bench: import: $tmp/inputs holds no logs of --duration 220000 (bench/import/run.sh --inputs)\$" <<<"$out" &&
	grep -q '^status 1$' <<<"$out" || fail "import inputs: a quick run's logs in a full run: $out"
out=$(bash "$top/bench/study/run.sh" "$tmp/no-build" "$tmp/res" 0 "$tmp/no-such-trace" 2>&1; echo "status $?")
grep -q "^bench: study: $tmp/no-such-trace: no trace (bench/study/run.sh --trace)\$" <<<"$out" &&
	grep -q '^status 1$' <<<"$out" || fail "study inputs: a missing trace: $out"

[ $fails -eq 0 ] || { echo "bench_steps: $fails check(s) failed"; exit 1; }
echo "bench_steps: all checks passed"
