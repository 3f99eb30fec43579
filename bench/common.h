// common.h - what every ratelab benchmark shares: the rule under test, the
// algorithms in rl_algo_all order, a checked limiter, key sequences (uniform
// and Zipf, drawn before any timed loop) and the allocator's byte count.
//
// The rule is N = 100 requests per W = 1 s, burst B = N. A hot key is offered
// one request every W / N / 2 = 5 ms of virtual time (twice its rate), so
// that after the first burst about half the requests are admitted and both
// verdicts are on the timed path.
#ifndef RATELAB_BENCH_COMMON_H
#define RATELAB_BENCH_COMMON_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ratelab_cxx.h"

namespace rlbench {

constexpr int64_t kLimit = 100;
constexpr int64_t kWindowNs = 1000000000;
constexpr int64_t kHotStepNs = kWindowNs / kLimit / 2;
// A time far from 0 and from any window boundary where the runs start.
constexpr int64_t kStartNs = 1000 * kWindowNs + kWindowNs / 3;

// The algorithms, in rl_algo_all's order.
std::vector<const rl_algo *> algos();

// A limiter of the benchmark rule for algo; exits with a message on error.
rl_limiter make_limiter(const rl_algo *algo);

enum class KeyOrder { uniform, zipf };
const char *order_name(KeyOrder order);

// len key ids in [0, nkeys): uniform, or Zipf with exponent 0.99 (rank r is
// key r - 1), from a fixed seed.
std::vector<uint64_t> key_sequence(KeyOrder order, size_t nkeys, size_t len, uint64_t seed);

// Bytes the allocator has handed out now (mallinfo2: heap in use + mmapped).
size_t malloc_bytes();

// glibc's malloc adapts its mmap and trim thresholds to what the process
// freed before, so a benchmark that allocates could cost more or less
// depending on the benchmarks run before it. The benchmarks start "warm"
// (blocks up to 64 MiB from the heap, freed memory kept: malloc_warm, set
// at start-up); malloc_cold restores glibc's initial thresholds (128 KiB:
// large blocks mapped and unmapped each time, page faults included).
void malloc_warm();
void malloc_cold();

// splitmix64: a small, fast, seeded generator for the sequences.
struct SplitMix {
	uint64_t s;
	uint64_t next()
	{
		uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		return z ^ (z >> 31);
	}
	double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
	uint64_t below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64); }
};

} // namespace rlbench

#endif
