// breaker.cc - rl_breaker_handle amortised at limit 10^6 (window 1 s,
// open for 100 ms, times in ns):
//   breaker/at_limit   one request every W / limit: the breaker stays CLOSED
//                      and every call admits one time and expires one;
//   breaker/overload   one request every W / limit / 2: CLOSED fills in half
//                      a window, opens, rejects for 100 ms, probes, closes -
//                      the full cycle amortised;
//   breaker/overload_cold_malloc  the same with glibc's initial malloc
//                      thresholds (common.h), a check that the breaker's
//                      kept ring makes it independent of malloc's tuning.
// Counters: allowed_pct, openings (per run).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "bench_names.h"
#include "common.h"

namespace {

constexpr int64_t kLimit = 1000000;
constexpr int64_t kWindow = 1000000000;
constexpr int64_t kOpenFor = 100000000;

void bm_breaker(benchmark::State &state, int64_t step, bool cold)
{
	if (cold)
		rlbench::malloc_cold();
	rl_breaker b;
	char msg[160];
	if (rl_breaker_init(&b, kLimit, kWindow, kOpenFor, msg, sizeof msg) != RL_OK) {
		std::fprintf(stderr, "bench: breaker: %s\n", msg);
		std::exit(1);
	}
	int64_t now = 0, allowed = 0, openings = 0;
	rl_breaker_state before, prev = RL_BREAKER_CLOSED;

	for (auto _ : state) {
		int r = rl_breaker_handle(&b, now, &before);
		benchmark::DoNotOptimize(r);
		allowed += r;
		openings += before == RL_BREAKER_OPEN && prev != RL_BREAKER_OPEN;
		prev = before;
		now += step;
	}
	rl_breaker_destroy(&b);
	if (cold)
		rlbench::malloc_warm();
	state.SetItemsProcessed(state.iterations());
	state.counters["allowed_pct"] = 100.0 * static_cast<double>(allowed) /
					static_cast<double>(state.iterations() ? state.iterations() : 1);
	state.counters["openings"] = static_cast<double>(openings);
	state.counters["limit"] = static_cast<double>(kLimit);
}

// kBreakerRuns in order: at the limit's rate, twice it, twice it from a cold allocator.
int register_all()
{
	using rlbench::names::breaker;
	using rlbench::names::kBreakerRuns;
	benchmark::RegisterBenchmark(breaker(kBreakerRuns[0]).c_str(), bm_breaker, kWindow / kLimit, false);
	benchmark::RegisterBenchmark(breaker(kBreakerRuns[1]).c_str(), bm_breaker, kWindow / kLimit / 2, false);
	benchmark::RegisterBenchmark(breaker(kBreakerRuns[2]).c_str(), bm_breaker, kWindow / kLimit / 2, true);
	return 0;
}

const int registered = register_all();

} // namespace
