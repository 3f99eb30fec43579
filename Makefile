# ratelab - a thin wrapper around CMake.
#   make         build (build/ratelab)
#   make test    build and run every test: plain, ASan+UBSan, and the
#                concurrency tests under TSan
#   make test-clang  the plain tests again, built by clang (CI runs it)
#   make bench   the whole measured report (results/REPORT.md); QUICK=1 for a short run
#   make deps    install the Debian packages ratelab needs
#   make install PREFIX=P   headers, libraries, ratelab.pc, the CMake package, bin/ratelab
#   make fuzz    each libFuzzer harness (tests/fuzz) for FUZZ_SECONDS (default 60)

DEPS := cmake g++ make pkg-config libcmocka-dev libbenchmark-dev gnuplot-nox zlib1g-dev
# curl: the HTTP server example's test.
DEPS_EXAMPLES := curl
DEPS += $(DEPS_EXAMPLES)
# chromium: the study report's page, opened headless by its test (test_study_report_html).
DEPS_STUDY := chromium
DEPS += $(DEPS_STUDY)
DEPS_PEERS := golang-go golang-golang-x-time-dev golang-github-juju-ratelimit-dev libguava-java default-jdk-headless nodejs nginx-core python3
DEPS += $(DEPS_PEERS)
JOBS ?= 2

# Redis backend, cluster routing and local plus global (ratelab/redis.h,
# fleet.h): the server the tests start, redis-cli (which also builds
# the test cluster) and redis-benchmark, the hiredis client library.
DEPS_REDIS := redis-server redis-tools libhiredis-dev
DEPS += $(DEPS_REDIS)
CMAKE_FLAGS ?=

.PHONY: all test test-plain test-asan test-tsan test-clang bench deps clean

all:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	cmake --build build -j $(JOBS)

test: test-plain test-asan test-tsan

test-plain: all
	ctest --test-dir build --output-on-failure -j $(JOBS)

test-asan:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRL_SANITIZE=address,undefined $(CMAKE_FLAGS) >/dev/null
	cmake --build build-asan -j $(JOBS)
	ctest --test-dir build-asan --output-on-failure -LE script -j $(JOBS)

test-tsan:
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRL_SANITIZE=thread $(CMAKE_FLAGS) >/dev/null
	@# only the concurrency tests' programs (test name = target, tests/CMakeLists.txt): nothing else runs under TSan
	cmake --build build-tsan -j $(JOBS) --target \
		$$(ctest --test-dir build-tsan -N -L concurrency | sed -n 's/^ *Test *#[0-9]*: //p')
	ctest --test-dir build-tsan --output-on-failure -L concurrency -j $(JOBS)

# The second supported compiler (README "Toolchains"), its warnings errors
# too; the gate's test (label perf) builds with cc, so it is not rerun, nor
# are the tests of scripts that run no compiled code (label script: the
# plain run has them). test-asan leaves those out too.
test-clang:
	CC=clang CXX=clang++ cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	cmake --build build-clang -j $(JOBS)
	ctest --test-dir build-clang --output-on-failure -LE 'perf|script' -j $(JOBS)

bench:
	QUICK=$(QUICK) PEERS=$(PEERS) bash bench/run.sh

deps:
	@missing=""; for p in $(DEPS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all installed ($(DEPS))"; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "deps: installing$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	else \
		echo "deps: missing$$missing; run: sudo apt-get update && sudo apt-get install -y$$missing"; exit 1; \
	fi
	@$(MAKE) --no-print-directory deps-peers

clean:
	rm -rf build build-asan build-tsan build-clang build-bench build-fuzz build-perf

# ---- install: make install PREFIX=/some/where (default /usr/local) ----
PREFIX ?= /usr/local
.PHONY: install
install: all
	cmake --install build --prefix $(PREFIX)

# -- peers (bench/peers/): the limiters people deploy, beside ratelab in `make bench`
# (PEERS=0 skips them). Their Debian packages are DEPS_PEERS; rate-limiter-flexible
# comes from npm at the version of bench/peers/node/package-lock.json.
.PHONY: deps-peers
deps-peers:
	@command -v npm >/dev/null 2>&1 || { echo "deps: npm missing; run: sudo apt-get install -y npm"; exit 1; }
	cd bench/peers/node && npm ci --no-audit --no-fund

# -- performance gate (bench/perf; README "Track performance in your CI"):
# exact per-operation figures from callgrind against results/baseline/perf.json,
# thresholds from bench/perf/thresholds.csv.
#   make perf-check               measure, judge against the baseline (or, on another toolchain, against
#                                 the baseline's commit measured here); then compare.py, information only
#   make perf-baseline            refresh the baseline deliberately; append to results/baseline/history.csv
#   make perf-compare BASE=<rev>  base and working tree built by one toolchain, measured in one job
#                                 (the pull-request gate; fetches BASE into a shallow clone)
#   PERF_ENTRIES=REGEX            only the entries whose name matches (a quick local run)
#   PERF_THRESHOLD='[ENTRY:]FIGURE=PCT ...'  thresholds for this run only
#   PERF_OUT=DIR                  where the JSON, JUnit and Markdown outputs go (default PERF_BUILD/gate)
#   make perf-summary             prints the last run's Markdown summary
#   make perf-thresholds          lists the thresholds in force, each line checked
DEPS_PERF := valgrind python3 python3-scipy libbenchmark-tools python3-jsonschema libxml2-utils python3-yaml
DEPS += $(DEPS_PERF)
PERF_BUILD ?= build-perf
PERF_BASELINE ?= results/baseline/perf.json
PERF_PLANT ?= 0
PERF_ENTRIES ?=
PERF_THRESHOLD ?=
PERF_OUT ?= $(PERF_BUILD)/gate
PERF := /usr/bin/python3 bench/perf/perf.py --build $(PERF_BUILD) --out-dir $(PERF_OUT) \
	$(if $(filter 1,$(PERF_PLANT)),--plant) $(if $(PERF_ENTRIES),--entries '$(PERF_ENTRIES)') \
	$(foreach t,$(PERF_THRESHOLD),--threshold '$(t)')

.PHONY: perf-check perf-baseline perf-compare perf-thresholds perf-summary
# perf-check after make bench (CI) measures nothing again: perf.py reuses the
# figures bench's perf step measured for the same binaries (BUILD/perf-measured.json).
perf-check:
	@rc=0; $(PERF) check --baseline $(PERF_BASELINE) || rc=$$?; $(PERF) wallclock; exit $$rc

perf-baseline:
	$(PERF) baseline

perf-compare:
	@[ -n "$(BASE)" ] || { echo "usage: make perf-compare BASE=<git rev>" >&2; exit 2; }
	$(PERF) compare "$(BASE)"

perf-thresholds:
	@$(PERF) thresholds

# The last check's or compare's Markdown summary (a CI job's step summary).
perf-summary:
	@cat "$(PERF_OUT)/perf-summary.md" 2>/dev/null || { echo "perf: no $(PERF_OUT)/perf-summary.md: run make perf-check or make perf-compare first" >&2; exit 2; }

# -- fuzzing (tests/fuzz): clang's libFuzzer with ASan+UBSan, every
# library instrumented (RL_FUZZ). Each harness runs FUZZ_SECONDS on a scratch
# copy of its committed seed corpus (tests/fuzz/corpus/NAME); a finding fails
# the target and leaves its reproducer in build-fuzz/artifacts/.
#   make fuzz                     each harness 60 s
#   make fuzz FUZZ_SECONDS=20     what CI runs
DEPS_FUZZ := clang libclang-rt-14-dev
DEPS += $(DEPS_FUZZ)
FUZZ_SECONDS ?= 60
FUZZERS := fuzz_parse fuzz_check fuzz_breaker fuzz_commands fuzz_scenario fuzz_import fuzz_compare fuzz_state

.PHONY: fuzz
fuzz:
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRL_FUZZ=ON \
		-DRL_SANITIZE=address,undefined -DBUILD_TESTING=OFF $(CMAKE_FLAGS) >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target $(FUZZERS)
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh build-fuzz $(FUZZERS)
