# redis.sh - a real redis-server for the black-box tests: start_redis starts
# one on a free 127.0.0.1 port (REDIS_PORT, REDIS_PID) and arranges for it
# to be stopped on exit; without redis-server it says so loudly and exits 0.
# With RL_REDIS_MODULE set (the path of ratelab.so) the server loads the
# module (REDIS_MODE "using module ratelab", else "using scripts");
# RL_REDIS_PRELOAD is then preloaded into it (the sanitizer runtime of an
# instrumented module).
start_redis() {
	if ! command -v redis-server >/dev/null; then
		echo "*** SKIPPED: redis-server is not installed (make deps installs it) ***"
		exit 0
	fi
	local try
	for try in 1 2 3 4 5; do
		REDIS_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		local load=()
		REDIS_MODE="using scripts"
		if [ -n "${RL_REDIS_MODULE:-}" ]; then
			load=(--loadmodule "$RL_REDIS_MODULE")
			REDIS_MODE="using module ratelab"
		fi
		LD_PRELOAD=${RL_REDIS_PRELOAD:-} ASAN_OPTIONS=detect_leaks=0 \
			redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
			"${load[@]}" >"$tmp/redis.log" 2>&1 &
		REDIS_PID=$!
		trap 'kill -9 $REDIS_PID 2>/dev/null; wait $REDIS_PID 2>/dev/null; rm -rf "$tmp"' EXIT
		local i
		for i in $(seq 200); do
			# ours, not another test's server that took the port first
			redis-cli -p "$REDIS_PORT" info server 2>/dev/null | grep -q "^process_id:$REDIS_PID" && return 0
			kill -0 $REDIS_PID 2>/dev/null || break
			sleep 0.01
		done
		kill -9 $REDIS_PID 2>/dev/null; wait $REDIS_PID 2>/dev/null
	done
	echo "FAIL: cannot start redis-server"; exit 1
}
