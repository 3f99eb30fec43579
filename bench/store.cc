// store.cc - the thread-safe keyed path (rl_store_check, verdict only).
//
//   store/<algo>/<nkeys>/<order>  nkeys = 1, 1K, 100K, 1M, 10M; one thread;
//       the store is created with max_keys = nkeys and filled with every
//       key (outside the timed loop), then offered keys in uniform or
//       Zipf(0.99) order from a sequence drawn beforehand; time advances by
//       max(1, W / (2 N nkeys)) ns per request: each key is offered about
//       twice its rate (once at 10M keys, where the 1 ns step binds); up to
//       1K keys the store then runs two windows of that traffic, untimed, so
//       that every repetition finds the keys' bursts spent and sliding_log's
//       rings at their steady size (a run rebuilds its store when another
//       ran in between, as the interleaved passes of bench/run.sh do). Should
//       a key of the fill find the store full (both its buckets full and no
//       key of theirs able to move: none in 10M when measured), it is
//       dropped or displaces another (the evicted counter shows how many);
//       the timed checks then find their keys or, for those few, are decided
//       by the when_full policy.
//   store1t/<algo>/<nkeys>/<order>  the same on a one-thread store
//       (rl_store_config.one_thread: no bucket locks) at 1, 1K and 1M keys.
//   store1t/lookup/<nkeys>/uniform  the one-thread runs at 1 and 1K keys
//       with an algorithm that decides nothing (lookup_algo.h): the store's
//       own part of a check, the hash and the search of the key's first bucket
//       (and its second, for the few keys stored there).
//   floor/<algo>/<nkeys>/<dependent|independent>  the memory floor (floor.h)
//       over an array as large as that store (rl_store_stats bytes) at its
//       largest: after the fill (and the untimed windows, up to 1K keys),
//       or after its timed runs if larger (a sliding_log key's ring grows
//       from one run after the fill to about N runs in the steady state, a
//       30-fold larger table at 1K keys).
//   store_mt/<algo>/<shared|disjoint>/threads:<1|2>  one key shared by every
//       thread, or one key per thread, each thread offered W / N / 2.
//
// Counters: store_bytes_per_key (rl_store_stats), malloc_bytes_per_key (the
// allocator's growth over create + fill, mallinfo2), allowed_pct, items/s.
// RL_BENCH_QUICK=1 in the environment drops the 10M-key runs.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_names.h"
#include "common.h"
#include "floor.h"
#include "lookup_algo.h"

namespace {

using rlbench::KeyOrder;

void fail(const char *what, const char *algo, int rc)
{
	std::fprintf(stderr, "bench: %s (%s): %s\n", what, algo, rl_strerror(rc));
	std::exit(1);
}

struct Keyed {
	const rl_algo *algo = nullptr;
	size_t nkeys = 0;
	bool one_thread = false;
	rl_limiter lim;
	rl_store *store = nullptr;
	int64_t now = rlbench::kStartNs, dt = 1;
	double store_bpk = 0, malloc_bpk = 0;
	std::vector<uint64_t> seq[2]; // uniform, zipf
	std::unique_ptr<unsigned char[]> spacer; // placement(): allocated just before the store

	~Keyed() { rl_store_destroy(store); }
};

std::unique_ptr<Keyed> current;
// Stores of up to this many keys run two windows untimed after their fill (keyed()).
constexpr size_t kBurnInMaxKeys = 1000;
std::map<std::pair<std::string, size_t>, size_t> store_bytes; // by (algo, nkeys)

// The floor's array size for (algo, nkeys): the largest table a store of
// them has held, after its fill or its timed runs, in either mode.
void note_bytes(const rl_algo *algo, size_t nkeys, size_t bytes)
{
	size_t &largest = store_bytes[{algo->name, nkeys}];
	largest = std::max(largest, bytes);
}

// A heap block allocated before each store, of one of 64 sizes 64 B apart
// in turn, so that a small store's table lands at another offset within a
// 4 KiB page each time it is built. A check's loads from the table run
// behind stores to the stack (the key, the return address); where their
// page offsets nearly match, the loads wait for those stores (4K
// aliasing). With address randomisation off, store1t/lookup/1 took
// 14.9-21.2 ns in four processes with one of these placements and
// 8.4-9.9 ns with two others. The interleaved runs (1 key, 1K keys)
// rebuild their store whenever another run came in between, so their
// repetitions sample placements instead of all paying, or all escaping, one.
std::unique_ptr<unsigned char[]> placement()
{
	static unsigned builds;
	size_t step = (builds++ * 37u) % 64u;
	return std::make_unique<unsigned char[]>(64 * step + 48);
}

// Checks keys 0 .. nkeys - 1 once each at now. A large store of an algorithm
// whose state is plain bytes (no heap: nothing a second thread's malloc arena
// would hold) is filled by two threads, each checking every other key: the
// store is the thread-safe one, the keys and their states the same; only which
// of a key's two buckets it lands in may differ where the table is full. The
// fill is the benchmark's setup, untimed; the 10M-key fills were most of the
// benchmarks' step.
void fill(rl_store *store, const rl_algo *algo, size_t nkeys, int64_t now, bool one_thread)
{
	auto part = [&](uint64_t first, uint64_t step) {
		for (uint64_t key = first; key < nkeys; key += step) {
			int rc = rl_store_check(store, &key, sizeof key, now, nullptr);
			if (rc < 0)
				fail("rl_store_check", algo->name, rc);
		}
	};
	if (one_thread || algo->release || nkeys < 1000000) {
		part(0, 1);
		return;
	}
	std::thread other(part, 1, 2);
	part(0, 2);
	other.join();
}

// The filled store of algo with nkeys keys; one is kept at a time.
Keyed &keyed(const rl_algo *algo, size_t nkeys, bool one_thread = false)
{
	if (current && current->algo == algo && current->nkeys == nkeys && current->one_thread == one_thread)
		return *current;
	current.reset();
	// the floor array stays cached: the next store of another algorithm often has a table of
	// the same size (token_bucket, gcra, leaky_bucket and fixed_window's are), and its floor
	// then reuses the array instead of shuffling hundreds of MB again (floor.cc rebuilds it,
	// identical, only for another size)
	if (nkeys >= 1000000)
		std::fprintf(stderr, "bench: filling a %s store with %zu keys\n", algo->name, nkeys);

	auto k = std::make_unique<Keyed>();
	k->algo = algo;
	k->nkeys = nkeys;
	k->one_thread = one_thread;
	k->lim = rlbench::make_limiter(algo);
	k->dt = std::max<int64_t>(1, rlbench::kWindowNs / (2 * rlbench::kLimit * static_cast<int64_t>(nkeys)));
	size_t len = nkeys >= (1u << 16) ? (1u << 22) : (1u << 16);
	k->seq[0] = rlbench::key_sequence(KeyOrder::uniform, nkeys, len, 0x11 + nkeys);
	k->seq[1] = rlbench::key_sequence(KeyOrder::zipf, nkeys, len, 0x22 + nkeys);

	k->spacer = placement();
	size_t before = rlbench::malloc_bytes();
	rl_store_config cfg{};
	cfg.limiter = &k->lim;
	cfg.max_keys = nkeys;
	cfg.when_full = RL_FULL_EVICT;
	cfg.one_thread = one_thread;
	int rc = rl_store_create(&k->store, &cfg);
	if (rc != RL_OK)
		fail("rl_store_create", algo->name, rc);
	fill(k->store, algo, nkeys, k->now, one_thread);
	k->now += 1;
	struct rl_store_stats st;
	rl_store_stats(k->store, &st);
	k->store_bpk = static_cast<double>(st.bytes) / static_cast<double>(st.keys ? st.keys : 1);
	k->malloc_bpk = static_cast<double>(rlbench::malloc_bytes() - before) / static_cast<double>(nkeys);
	note_bytes(algo, nkeys, st.bytes);
	if (nkeys <= kBurnInMaxKeys) {
		const std::vector<uint64_t> &seq = k->seq[0];
		for (size_t i = 0; i < 4 * static_cast<size_t>(rlbench::kLimit) * nkeys; i++) {
			uint64_t key = seq[i & (seq.size() - 1)];
			rc = rl_store_check(k->store, &key, sizeof key, k->now, nullptr);
			if (rc < 0)
				fail("rl_store_check", algo->name, rc);
			k->now += k->dt;
		}
		rl_store_stats(k->store, &st);
		note_bytes(algo, nkeys, st.bytes);
	}
	current = std::move(k);
	return *current;
}

void bm_store(benchmark::State &state, const rl_algo *algo, size_t nkeys, KeyOrder order, bool one_thread)
{
	Keyed &k = keyed(algo, nkeys, one_thread);
	const std::vector<uint64_t> &seq = k.seq[order == KeyOrder::zipf];
	size_t mask = seq.size() - 1, i = 0;
	int64_t now = k.now, dt = k.dt, allowed = 0;
	rl_store *s = k.store;

	for (auto _ : state) {
		uint64_t key = seq[i++ & mask];
		int r = rl_store_check(s, &key, sizeof key, now, nullptr);
		benchmark::DoNotOptimize(r);
		allowed += r;
		now += dt;
	}
	k.now = now;
	struct rl_store_stats st;
	rl_store_stats(s, &st);
	state.SetItemsProcessed(state.iterations());
	state.counters["allowed_pct"] = 100.0 * static_cast<double>(allowed) /
					static_cast<double>(state.iterations() ? state.iterations() : 1);
	state.counters["store_bytes_per_key"] = k.store_bpk;
	state.counters["malloc_bytes_per_key"] = k.malloc_bpk;
	note_bytes(algo, nkeys, st.bytes);
	state.counters["keys"] = static_cast<double>(st.keys);
	state.counters["evicted"] = static_cast<double>(st.evicted_idle + st.evicted_full);
}

void bm_floor(benchmark::State &state, const rl_algo *algo, size_t nkeys, bool dependent)
{
	auto it = store_bytes.find({algo->name, nkeys});
	size_t bytes = it != store_bytes.end() ? it->second : 0;
	if (!bytes) {
		keyed(algo, nkeys);
		bytes = store_bytes[{algo->name, nkeys}];
	}
	current.reset(); // the floor runs alone in memory
	rlbench::run_floor(state, bytes, dependent);
}

// The stores of the threaded runs, one per algorithm, built on first use,
// sized for 4096 keys so that the threads' keys (0 and 1) sit in different
// buckets, hence under different locks, as two clients' keys would.
struct Shared {
	rl_limiter lim;
	rl_store *store = nullptr;
	std::atomic<int64_t> now{rlbench::kStartNs};
	~Shared() { rl_store_destroy(store); }
};

Shared &shared_store(const rl_algo *algo)
{
	static std::mutex mu;
	static std::map<const rl_algo *, std::unique_ptr<Shared>> stores;
	std::lock_guard<std::mutex> lock(mu);
	auto &slot = stores[algo];
	if (!slot) {
		slot = std::make_unique<Shared>();
		slot->lim = rlbench::make_limiter(algo);
		rl_store_config cfg{};
		cfg.limiter = &slot->lim;
		cfg.max_keys = 4096;
		cfg.when_full = RL_FULL_EVICT;
		int rc = rl_store_create(&slot->store, &cfg);
		if (rc != RL_OK)
			fail("rl_store_create", algo->name, rc);
	}
	return *slot;
}

void bm_store_mt(benchmark::State &state, const rl_algo *algo, bool one_key)
{
	Shared &sh = shared_store(algo);
	uint64_t key = one_key ? 0 : static_cast<uint64_t>(state.thread_index());
	int64_t now = sh.now.load(), allowed = 0;

	for (auto _ : state) {
		int r = rl_store_check(sh.store, &key, sizeof key, now, nullptr);
		benchmark::DoNotOptimize(r);
		allowed += r;
		now += rlbench::kHotStepNs;
	}
	int64_t seen = sh.now.load();
	while (seen < now && !sh.now.compare_exchange_weak(seen, now)) {
	}
	state.SetItemsProcessed(state.iterations());
	state.counters["allowed_pct"] = benchmark::Counter(
		100.0 * static_cast<double>(allowed) / static_cast<double>(state.iterations() ? state.iterations() : 1),
		benchmark::Counter::kAvgThreads);
}

int register_all()
{
	const char *quick = std::getenv("RL_BENCH_QUICK");
	const size_t ncounts = quick && std::string(quick) == "1" ? rlbench::names::kStoreKeysQuick
								   : std::size(rlbench::names::kStoreKeys);
	const std::vector<size_t> counts(rlbench::names::kStoreKeys, rlbench::names::kStoreKeys + ncounts);

	for (const rl_algo *algo : rlbench::algos())
		for (bool one_key : {true, false})
			benchmark::RegisterBenchmark(rlbench::names::store_mt(algo->name, one_key).c_str(), bm_store_mt,
						     algo, one_key)
				->Threads(1)
				->Threads(2)
				->UseRealTime();
	// by key count, then algorithm: the stores of one size one after another, so that
	// floors of the same array size follow each other and share the cached array
	for (size_t n : counts)
		for (const rl_algo *algo : rlbench::algos()) {
			for (KeyOrder order : {KeyOrder::uniform, KeyOrder::zipf})
				benchmark::RegisterBenchmark(
					rlbench::names::store(algo->name, n, rlbench::order_name(order)).c_str(), bm_store,
					algo, n, order, false);
			if (std::find(std::begin(rlbench::names::kStoreKeysOneThread),
				      std::end(rlbench::names::kStoreKeysOneThread), n) != std::end(rlbench::names::kStoreKeysOneThread))
				for (KeyOrder order : {KeyOrder::uniform, KeyOrder::zipf})
					benchmark::RegisterBenchmark(rlbench::names::store_one_thread(
									     algo->name, n, rlbench::order_name(order))
									     .c_str(),
								     bm_store, algo, n, order, true);
			for (bool dep : {true, false})
				benchmark::RegisterBenchmark(rlbench::names::floor(algo->name, n, dep).c_str(), bm_floor,
							     algo, n, dep);
		}
	for (size_t n : rlbench::names::kLookupKeys)
		benchmark::RegisterBenchmark(rlbench::names::store_lookup(n).c_str(), bm_store, &rlbench_lookup_algo, n,
					     KeyOrder::uniform, true);
	return 0;
}

const int registered = register_all();

} // namespace
