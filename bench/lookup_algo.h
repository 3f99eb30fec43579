/*
 * lookup_algo.h - the benchmarks' algorithm that decides nothing: every
 * request admitted, its 8-byte state never read or written. A store run
 * with it costs only the store's own part of a check (the call, the key's
 * hash, the search of its buckets): the store1t/lookup runs of bench/store.cc and
 * the perf gate's store1t/lookup/1 (bench/perf/perf_driver.c).
 */
#ifndef RATELAB_BENCH_LOOKUP_ALGO_H
#define RATELAB_BENCH_LOOKUP_ALGO_H

#include "ratelab/algo.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct rl_algo rlbench_lookup_algo;

#ifdef __cplusplus
}
#endif

#endif
