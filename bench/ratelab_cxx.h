// ratelab_cxx.h - every ratelab C header the benchmarks use, included from
// C++ (their size pins are RL_STATIC_ASSERT, static_assert in C++).
#ifndef RATELAB_BENCH_RATELAB_CXX_H
#define RATELAB_BENCH_RATELAB_CXX_H

// rl_store_stats names both a struct and a function (fine in C; -Wshadow
// in C++).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#include "ratelab/algo.h"
#include "ratelab/breaker.h"
#include "ratelab/fixed_window.h"
#include "ratelab/gcra.h"
#include "ratelab/registry.h"
#include "ratelab/leaky_bucket.h"
#include "ratelab/sliding_counter.h"
#include "ratelab/sliding_log.h"
#include "ratelab/store.h"
#include "ratelab/token_bucket.h"
#pragma GCC diagnostic pop

#endif
