// floor.h - the memory-floor reference: one random 16-byte read from an
// array of a given size, the machine's own cost of the cache (and TLB) miss
// a keyed check cannot avoid.
//   dependent   pointer chasing through one random cycle (Sattolo): each
//               read's address comes from the previous read, so the loads
//               cannot overlap - the full latency of one miss. This is the
//               reference keyed results are divided by.
//   independent addresses from a precomputed random sequence, as the
//               keyed benchmarks read theirs: the loads overlap as far as
//               the core allows - the miss throughput, reported beside it.
#ifndef RATELAB_BENCH_FLOOR_H
#define RATELAB_BENCH_FLOOR_H

#include <benchmark/benchmark.h>

#include <cstddef>

namespace rlbench {

// Times one 16-byte read per iteration from an array of bytes bytes (at
// least one element). Counters: array_bytes.
void run_floor(benchmark::State &state, size_t bytes, bool dependent);

} // namespace rlbench

#endif
