// limit.cc - the thread-safe single limiter (rl_limit, limit.h), unnamed key.
//
//   limit/<algo>/verdict   one thread, time passed in (rl_limit_allow_at,
//       out = NULL), advanced by W/N/2 per request as in hot.cc: the
//       uncontended cost of the locked path, or for gcra the lock-free one
//   limit_mt/<algo>/threads:<1|2>  every thread on the one limiter, each
//       advancing its own time by W/N/2 per request from where the last
//       run ended (so that each run starts where the limiter's state is):
//       the contended cost (wall time over all threads' requests)
//
// Counters: allowed_pct.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "common.h"
#include "ratelab/limit.h"

namespace {

using rlbench::kHotStepNs;
using rlbench::kStartNs;

rl_limit *make(const rl_algo *algo)
{
	rl_limit *l = rl_limit_new(algo->name, rlbench::kLimit, rlbench::kWindowNs, 0);
	if (!l) {
		std::fprintf(stderr, "bench: rl_limit_new (%s): %s\n", algo->name, rl_limit_error());
		std::exit(1);
	}
	return l;
}

void finish(benchmark::State &state, int64_t allowed)
{
	state.SetItemsProcessed(state.iterations());
	state.counters["allowed_pct"] = benchmark::Counter(
		100.0 * static_cast<double>(allowed) / static_cast<double>(state.iterations() ? state.iterations() : 1),
		benchmark::Counter::kAvgThreads);
}

void bm_limit(benchmark::State &state, const rl_algo *algo)
{
	rl_limit *l = make(algo);
	int64_t now = kStartNs, allowed = 0;

	for (auto _ : state) {
		int r = rl_limit_allow_at(l, now, nullptr);
		benchmark::DoNotOptimize(r);
		allowed += r;
		now += kHotStepNs;
	}
	finish(state, allowed);
	rl_limit_free(l);
}

// One limiter per algorithm shared by the threads of a run, made on first
// use, with the latest time any run reached.
struct Shared {
	rl_limit *l = nullptr;
	std::atomic<int64_t> now{kStartNs};
};

Shared &shared(const rl_algo *algo)
{
	static std::mutex mu;
	static std::map<const rl_algo *, Shared> limits;
	std::lock_guard<std::mutex> lock(mu);
	Shared &sh = limits[algo];
	if (!sh.l)
		sh.l = make(algo);
	return sh;
}

void bm_limit_mt(benchmark::State &state, const rl_algo *algo)
{
	Shared &sh = shared(algo);
	int64_t now = sh.now.load(), allowed = 0;

	for (auto _ : state) {
		int r = rl_limit_allow_at(sh.l, now, nullptr);
		benchmark::DoNotOptimize(r);
		allowed += r;
		now += kHotStepNs;
	}
	int64_t seen = sh.now.load();
	while (seen < now && !sh.now.compare_exchange_weak(seen, now)) {
	}
	finish(state, allowed);
}

int register_all()
{
	for (const rl_algo *algo : rlbench::algos())
		benchmark::RegisterBenchmark((std::string("limit/") + algo->name + "/verdict").c_str(), bm_limit, algo);
	for (const rl_algo *algo : rlbench::algos())
		benchmark::RegisterBenchmark((std::string("limit_mt/") + algo->name).c_str(), bm_limit_mt, algo)
			->Threads(1)
			->Threads(2)
			->UseRealTime();
	return 0;
}

const int registered = register_all();

} // namespace
