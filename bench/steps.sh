# steps.sh - what bench/run.sh shows a person while it runs, sourced by it
# (and by tests/bench/steps.sh):
#   bench_preflight      every tool, package and peer the run needs, checked
#                        before the first step; what is missing named with the
#                        one command that installs it, exit status 2
#   bench_step N NAME    a step's line: what it does, the time so far and, from
#                        the previous run of the same mode (STEPS_CSV), what
#                        this step took then and about how long is left; on a
#                        terminal, a line every BENCH_TICK (10) s until the
#                        next step; the step before it is timed
#   bench_steps_done     times the last step, writes STEPS_CSV
#   bench_lane NAME CMD  CMD in the background beside the current step (work
#                        that times nothing: the callgrind counts, the peers'
#                        deciders), its output kept and its seconds measured
#   bench_lanes_wait     waits for every lane, prints each one's output and
#                        time, fails (1) when one failed; the step that started
#                        them ends after it, so no lane runs beside a timed step
#   bench_steps_summary  "N s (MODE); each step: NAME S s (beside it: LANE S s), ..." so far
#   bench_pool_run J CMD CMD in the background, its stdout dropped, once fewer
#                        than J of the pool's commands run: a slot frees when
#                        any of them ends (a failed one returns its status:
#                        under set -e the run stops)
#   bench_pool_wait      waits for the pool's commands, in the order started
# STEPS_CSV (mode,step,seconds: a row per step of each mode's last run; a
# run replaces its own mode's rows only), MODE and STEPS are set by the caller.

BENCH_TICK=${BENCH_TICK:-10}
BENCH_T0=${BENCH_T0:-$(date +%s)}
_step_names=() _step_secs=() _step_beside=() _step_t0= _step_name= _tick_pid=
_lane_names=() _lane_pids=() _lane_dir= _beside=

# _prev NAME: the seconds NAME took in the previous run of MODE, or nothing.
_prev() {
	[ -f "$STEPS_CSV" ] || return 0
	awk -F, -v m="$MODE" -v s="$1" 'NR > 1 && $1 == m && $2 == s { print $3; exit }' "$STEPS_CSV"
}

# _left NAME...: the seconds the named steps took in the previous run, summed; nothing when one is unknown.
_left() {
	local sum=0 s v
	for s in "$@"; do
		v=$(_prev "$s")
		[ -n "$v" ] || return 0
		sum=$((sum + v))
	done
	echo "$sum"
}

_tick_stop() {
	if [ -n "$_tick_pid" ]; then
		kill "$_tick_pid" 2>/dev/null || true
		wait "$_tick_pid" 2>/dev/null || true
		_tick_pid=
	fi
}

_step_end() {
	_tick_stop
	if [ -n "$_step_name" ]; then
		_step_names+=("$_step_name")
		_step_secs+=($(($(date +%s) - _step_t0)))
		_step_beside+=("$_beside")
		_step_name= _beside=
	fi
}

# bench_step N NAME DESCRIPTION REST...: step N of STEPS; REST the names of the steps after it.
bench_step() {
	local n=$1 name=$2 desc=$3 now prev left expect=""
	shift 3
	_step_end
	now=$(date +%s)
	prev=$(_prev "$name")
	left=$(_left "$name" "$@")
	if [ -n "$prev" ]; then
		expect="; the previous $MODE run: ${prev}s"
		[ -n "$left" ] && expect="$expect, about ${left}s left"
	else
		expect="; no previous $MODE run's time"
	fi
	echo "== [$n/$STEPS] $desc (t+$((now - BENCH_T0))s$expect)"
	_step_name=$name _step_t0=$now
	# a person at a terminal sees the long steps move; a log gets the step lines only
	if [ -t 1 ]; then
		(
			s=
			trap 'kill $s 2>/dev/null; wait $s 2>/dev/null; exit 0' TERM
			while :; do
				sleep "$BENCH_TICK" &
				s=$!
				wait $s
				echo "   ... [$n/$STEPS] $name: $(($(date +%s) - now))s${prev:+ of about ${prev}s}"
			done
		) &
		_tick_pid=$!
	fi
}

# bench_lane NAME CMD...: CMD started in the background; its output in the lane's file until bench_lanes_wait.
bench_lane() {
	local name=$1
	shift
	[ -n "$_lane_dir" ] || _lane_dir=$(mktemp -d)
	(
		t0=$(date +%s) rc=0
		"$@" >"$_lane_dir/$name.out" 2>&1 </dev/null || rc=$?
		echo "$rc $(($(date +%s) - t0))" >"$_lane_dir/$name.rc"
	) &
	_lane_names+=("$name")
	_lane_pids+=($!)
	echo "   beside it: $name"
}

# bench_lanes_stop: the lanes still running stopped, each with all it started (a run that fails before bench_lanes_wait).
_tree() { # PID and its descendants, by parent id (pgrep -P)
	local c
	echo "$1"
	for c in $(pgrep -P "$1"); do _tree "$c"; done
}
bench_lanes_stop() {
	local p all=()
	for p in "${_lane_pids[@]}"; do all+=($(_tree "$p")); done
	[ ${#all[@]} = 0 ] || kill "${all[@]}" 2>/dev/null || true
	for p in "${_lane_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	[ -z "$_lane_dir" ] || rm -rf "$_lane_dir"
	_lane_names=() _lane_pids=() _lane_dir=
}

# bench_lanes_wait: every lane waited for, its output and time printed, in the order started; 1 when one failed.
bench_lanes_wait() {
	local i rc=0 r s name
	for i in "${!_lane_pids[@]}"; do
		name=${_lane_names[i]}
		wait "${_lane_pids[i]}" || true
		r=1 s=0
		[ -f "$_lane_dir/$name.rc" ] && read -r r s <"$_lane_dir/$name.rc"
		echo "   -- $name (beside the step): ${s}s"
		[ -f "$_lane_dir/$name.out" ] && cat "$_lane_dir/$name.out"
		_beside="$_beside${_beside:+, }$name $s s"
		if [ "$r" != 0 ]; then
			echo "bench: $name failed (exit status $r); its output above" >&2
			rc=1
		fi
	done
	[ -z "$_lane_dir" ] || rm -rf "$_lane_dir"
	_lane_names=() _lane_pids=() _lane_dir=
	return $rc
}

# bench_steps_summary: "N s (MODE); each step: build S s, ..." of the steps timed so far.
bench_steps_summary() {
	local i total=0 list=""
	for i in "${!_step_names[@]}"; do
		total=$((total + _step_secs[i]))
		list="$list${list:+, }${_step_names[i]} ${_step_secs[i]} s"
		[ -z "${_step_beside[i]}" ] || list="$list (beside it: ${_step_beside[i]})"
	done
	echo "$total s ($MODE); each step: $list"
}

# bench_steps_done: the last step timed; STEPS_CSV rewritten (the other mode's rows kept), beside then renamed.
bench_steps_done() {
	local i tmp
	_step_end
	tmp="$STEPS_CSV.tmp.$$"
	{
		echo "mode,step,seconds"
		[ -f "$STEPS_CSV" ] && awk -F, -v m="$MODE" 'NR > 1 && $1 != m' "$STEPS_CSV"
		for i in "${!_step_names[@]}"; do
			echo "$MODE,${_step_names[i]},${_step_secs[i]}"
		done
	} >"$tmp"
	mv "$tmp" "$STEPS_CSV"
}

# -- preflight: package -> a file or command it provides
_missing=() _missing_npm=0
_need_cmd() { command -v "$1" >/dev/null 2>&1 || _missing+=("$2"); }
_need_file() { [ -e "$1" ] || _missing+=("$2"); }

# bench_preflight: every tool the steps use (PEERS=0: not the peers'); 0, or 2 after naming what is missing.
bench_preflight() {
	local sudo="" p what uniq=()
	_missing=() _missing_npm=0
	# build, simulator, benchmarks, report, charts
	_need_cmd cmake cmake
	_need_cmd g++ g++
	_need_cmd cc gcc
	_need_cmd make make
	_need_cmd python3 python3
	_need_cmd gzip gzip
	_need_cmd gnuplot gnuplot-nox
	_need_file /usr/include/benchmark/benchmark.h libbenchmark-dev
	_need_file /usr/include/cmocka.h libcmocka-dev # the configure step also sets up tests/
	_need_file /usr/include/zlib.h zlib1g-dev
	# the perf step (callgrind), the Redis rounds
	_need_cmd valgrind valgrind
	_need_cmd redis-server redis-server
	_need_cmd redis-benchmark redis-tools
	_need_cmd redis-cli redis-tools
	_need_file /usr/include/hiredis/hiredis.h libhiredis-dev
	if [ "${PEERS:-1}" != 0 ]; then
		_need_cmd go golang-go
		_need_file /usr/share/gocode/src/golang.org/x/time/rate/rate.go golang-golang-x-time-dev
		_need_file /usr/share/gocode/src/github.com/juju/ratelimit/ratelimit.go golang-github-juju-ratelimit-dev
		_need_file /usr/share/java/guava.jar libguava-java
		_need_cmd javac default-jdk-headless
		_need_cmd node nodejs
		for p in rate-limiter-flexible ioredis; do
			[ -e "bench/peers/node/node_modules/$p/package.json" ] || _missing_npm=1
		done
		[ $_missing_npm = 0 ] || _need_cmd npm npm # what installs them
		_need_cmd nginx nginx-core
	fi
	if command -v gnuplot >/dev/null 2>&1 && ! echo 'set terminal pngcairo' | gnuplot >/dev/null 2>&1; then
		_missing+=(gnuplot-nox) # a gnuplot without the pngcairo terminal
	fi
	for p in "${_missing[@]}"; do
		case " ${uniq[*]} " in *" $p "*) ;; *) uniq+=("$p") ;; esac
	done
	[ ${#uniq[@]} -eq 0 ] && [ $_missing_npm = 0 ] && return 0
	[ "$(id -u)" = 0 ] || sudo="sudo "
	{
		what="${uniq[*]}"
		[ $_missing_npm = 1 ] && what="$what${what:+ }(the node modules of bench/peers/node)"
		echo "bench: missing before the first step: $what"
		echo "bench: run: make deps"
		if [ ${#uniq[@]} -gt 0 ]; then
			echo "bench: (that is: ${sudo}apt-get update && ${sudo}apt-get install -y ${uniq[*]}$(
				[ $_missing_npm = 1 ] && echo "; cd bench/peers/node && npm ci"))"
		else
			echo "bench: (that is: cd bench/peers/node && npm ci)"
		fi
		if [ "${PEERS:-1}" != 0 ]; then echo "bench: (or skip the peers: make bench PEERS=0)"; fi
	} >&2
	return 2
}

# The pool (bench_pool_run, bench_pool_wait). `wait -n` would free a slot when
# any job ends, but bash 5.2 once answered "no such job" for a job it had
# already reaped, which stops a run under set -e; so the pool polls its pids
# (kill -0) every 0.1 s and waits on the one that ended, which gives its exit
# status. Waiting on the oldest instead left a core idle while a newer, shorter
# run had ended (a default set's seed takes about 4x a theory set's).
_pool=()
bench_pool_run() {
	local jobs=$1 i p
	shift
	while [ ${#_pool[@]} -ge "$jobs" ]; do
		for i in "${!_pool[@]}"; do
			p=${_pool[i]}
			if ! kill -0 "$p" 2>/dev/null; then
				unset "_pool[i]"
				_pool=("${_pool[@]}")
				wait "$p" || return
				break
			fi
		done
		[ ${#_pool[@]} -lt "$jobs" ] || sleep 0.1
	done
	"$@" >/dev/null &
	_pool+=($!)
}
bench_pool_wait() {
	local p rc=0
	for p in "${_pool[@]}"; do wait "$p" || rc=$?; done
	_pool=()
	return $rc
}
