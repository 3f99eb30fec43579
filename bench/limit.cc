// limit.cc - the thread-safe single limiter (rl_limit, limit.h), unnamed key.
//
//   limit/<algo>/verdict   one thread, time passed in (rl_limit_allow_at,
//       out = NULL), advanced by W/N/2 per request as in hot.cc: the
//       uncontended cost of the locked path, or for gcra the lock-free one
//   limit_mt/<algo>/threads:<1|2>  every thread on the one limiter, each
//       advancing its own time by W/N/2 per request from where the last
//       run ended (so that each run starts where the limiter's state is):
//       the contended cost (wall time over all threads' requests)
//   atomic/<op>   the machine's own cost of the one locked operation every
//       thread-safe check takes, alone in a loop, one thread: spinlock
//       (the lock of the store's buckets and of rl_limit's unnamed key:
//       exchange, then a release store), mutex (pthread lock + unlock, for
//       comparison), cas8 (load a word, compare-and-swap it to its
//       successor), cas16 (the same on 16 bytes, x86-64 cmpxchg16b)
//
// Counters: allowed_pct.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <pthread.h>
#include <string>
#include <thread>

#include "bench_names.h"
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

void bm_mutex(benchmark::State &state)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	uint64_t x = 0;

	for (auto _ : state) {
		pthread_mutex_lock(&mu);
		benchmark::DoNotOptimize(++x);
		pthread_mutex_unlock(&mu);
	}
	state.SetItemsProcessed(state.iterations());
}

void bm_spinlock(benchmark::State &state)
{
	static std::atomic<uint32_t> lock{0};
	uint64_t x = 0;

	for (auto _ : state) {
		while (lock.exchange(1, std::memory_order_acquire)) {
		}
		benchmark::DoNotOptimize(++x);
		lock.store(0, std::memory_order_release);
	}
	state.SetItemsProcessed(state.iterations());
}

void bm_cas8(benchmark::State &state)
{
	static std::atomic<uint64_t> word{0};

	for (auto _ : state) {
		uint64_t seen = word.load(std::memory_order_relaxed);
		while (!word.compare_exchange_weak(seen, seen + 1)) {
		}
	}
	state.SetItemsProcessed(state.iterations());
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("cx16"))) bool cas16(unsigned __int128 *p, unsigned __int128 seen, unsigned __int128 next)
{
	return __sync_bool_compare_and_swap(p, seen, next);
}

void bm_cas16(benchmark::State &state)
{
	alignas(16) static unsigned __int128 word = 0;
	auto *half = reinterpret_cast<uint64_t *>(&word);

	for (auto _ : state) {
		unsigned __int128 seen;
		do {
			seen = (static_cast<unsigned __int128>(__atomic_load_n(&half[1], __ATOMIC_RELAXED)) << 64) |
			       __atomic_load_n(&half[0], __ATOMIC_RELAXED);
		} while (!cas16(&word, seen, seen + 1));
	}
	state.SetItemsProcessed(state.iterations());
}
#endif

int register_all()
{
	// glibc takes its locks without the lock prefix while a process has
	// only ever had one thread, and a process that has had two never goes
	// back. The thread-safe paths are for multi-threaded programs, so this
	// one is made one before any benchmark runs: atomic/mutex and every
	// locked row then cost what they cost there (pthread lock + unlock
	// measured 3.8 ns before and 14.5 ns after on an AMD EPYC guest).
	std::thread([] {}).join();
	benchmark::RegisterBenchmark(rlbench::names::atomic("spinlock").c_str(), bm_spinlock);
	benchmark::RegisterBenchmark(rlbench::names::atomic("mutex").c_str(), bm_mutex);
	benchmark::RegisterBenchmark(rlbench::names::atomic("cas8").c_str(), bm_cas8);
#if defined(__x86_64__) && defined(__GNUC__)
	benchmark::RegisterBenchmark(rlbench::names::atomic("cas16").c_str(), bm_cas16);
#endif
	for (const rl_algo *algo : rlbench::algos())
		benchmark::RegisterBenchmark(rlbench::names::limit(algo->name).c_str(), bm_limit, algo);
	for (const rl_algo *algo : rlbench::algos())
		benchmark::RegisterBenchmark(rlbench::names::limit_mt(algo->name).c_str(), bm_limit_mt, algo)
			->Threads(1)
			->Threads(2)
			->UseRealTime();
	return 0;
}

const int registered = register_all();

} // namespace
