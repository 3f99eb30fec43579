// hot.cc - one hot key, single thread: the algorithm's own cost.
//
//   hot/<algo>/<via>/<answer>  time passed in, advanced by W/N/2 per request
//       via    = direct (the ops table's verdict or check op, its pointer
//                loaded once) or ops (rl_limiter_check, which loads it
//                from the limiter at each call)
//       answer = verdict (out = NULL, no divisions) or answer (with the
//                struct rl_decision the HTTP layer needs)
//   hot/floor/call   the loop of hot/<algo>/direct/verdict around a check
//                    that does nothing (hot_floor.h)
//   hot/floor/chain  the same around a minimal one-word gcra check (for
//                    reference, hot_floor.cc)
//   hot/floor/locked the same around a check that takes and drops a lock
//                    (the thread-safe rows' floor)
//   clock/<algo>   the same (direct, verdict) with a clock_gettime read
//   clock/read     clock_gettime(CLOCK_MONOTONIC) alone
//
// Counters: allowed_pct (share of admitted requests), state_bytes.
#include <benchmark/benchmark.h>

#include <ctime>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_names.h"
#include "common.h"
#include "hot_floor.h"

namespace {

using rlbench::kHotStepNs;
using rlbench::kStartNs;

using CheckFn = int (*)(const rl_limiter *, void *, int64_t, rl_decision *);

// A zeroed, suitably aligned state of the algorithm's size.
struct HotState {
	alignas(64) unsigned char bytes[64];
	explicit HotState(size_t size)
	{
		if (size > sizeof bytes)
			std::abort();
		std::memset(bytes, 0, sizeof bytes);
	}
};

int64_t monotonic_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void finish(benchmark::State &state, const rl_algo *algo, int64_t allowed)
{
	state.SetItemsProcessed(state.iterations());
	state.counters["allowed_pct"] = benchmark::Counter(
		100.0 * static_cast<double>(allowed) / static_cast<double>(state.iterations() ? state.iterations() : 1));
	state.counters["state_bytes"] = static_cast<double>(algo->state_size);
}

void bm_hot(benchmark::State &state, const rl_algo *algo, bool direct, bool answer)
{
	rl_limiter lim = rlbench::make_limiter(algo);
	HotState st(algo->state_size);
	rl_verdict_fn *verdict = algo->verdict;
	auto check = algo->check;
	rl_decision dec;
	rl_decision *out = answer ? &dec : nullptr;
	int64_t now = kStartNs, allowed = 0;

	for (auto _ : state) {
		int r = !direct ? rl_limiter_check(&lim, st.bytes, now, out)
			: answer ? check(&lim, st.bytes, now, 1, out)
				 : verdict(&lim, st.bytes, now);
		benchmark::DoNotOptimize(r);
		allowed += r;
		now += kHotStepNs;
	}
	if (answer)
		benchmark::DoNotOptimize(dec);
	finish(state, algo, allowed);
	rl_limiter_release(&lim, st.bytes);
}

// The loop of bm_hot (direct, verdict) around a floor check, on gcra's
// limiter and a zeroed 8-byte state.
void bm_hot_floor(benchmark::State &state, CheckFn check)
{
	rl_limiter lim = rlbench::make_limiter(&rl_gcra_algo);
	HotState st(sizeof(int64_t));
	int64_t now = kStartNs, allowed = 0;

	for (auto _ : state) {
		int r = check(&lim, st.bytes, now, nullptr);
		benchmark::DoNotOptimize(r);
		allowed += r;
		now += kHotStepNs;
	}
	state.SetItemsProcessed(state.iterations());
	state.counters["allowed_pct"] = benchmark::Counter(
		100.0 * static_cast<double>(allowed) / static_cast<double>(state.iterations() ? state.iterations() : 1));
	rl_limiter_release(&lim, st.bytes);
}

void bm_clock(benchmark::State &state, const rl_algo *algo)
{
	rl_limiter lim = rlbench::make_limiter(algo);
	HotState st(algo->state_size);
	rl_verdict_fn *verdict = algo->verdict;
	int64_t allowed = 0;

	for (auto _ : state) {
		int r = verdict(&lim, st.bytes, monotonic_ns());
		benchmark::DoNotOptimize(r);
		allowed += r;
	}
	finish(state, algo, allowed);
	rl_limiter_release(&lim, st.bytes);
}

void bm_clock_read(benchmark::State &state)
{
	for (auto _ : state)
		benchmark::DoNotOptimize(monotonic_ns());
	state.SetItemsProcessed(state.iterations());
}

int register_all()
{
	for (const rl_algo *algo : rlbench::algos()) {
		for (bool direct : {true, false})
			for (bool answer : {false, true})
				benchmark::RegisterBenchmark(rlbench::names::hot(algo->name, direct, answer).c_str(), bm_hot,
							     algo, direct, answer);
	}
	// through a lambda's jump, as a call through a pointer
	benchmark::RegisterBenchmark(rlbench::names::kHotFloorCall, bm_hot_floor,
				     [](const rl_limiter *l, void *s, int64_t t, rl_decision *o) {
					     return rlbench::floor_call(l, s, t, o); });
	benchmark::RegisterBenchmark(rlbench::names::kHotFloorChain, bm_hot_floor,
				     [](const rl_limiter *l, void *s, int64_t t, rl_decision *o) {
					     return rlbench::floor_chain(l, s, t, o); });
	benchmark::RegisterBenchmark(rlbench::names::kHotFloorLocked, bm_hot_floor,
				     [](const rl_limiter *l, void *s, int64_t t, rl_decision *o) {
					     return rlbench::floor_locked(l, s, t, o); });
	benchmark::RegisterBenchmark(rlbench::names::kClockRead, bm_clock_read);
	for (const rl_algo *algo : rlbench::algos())
		benchmark::RegisterBenchmark(rlbench::names::clock(algo->name).c_str(), bm_clock, algo);
	return 0;
}

const int registered = register_all();

} // namespace
