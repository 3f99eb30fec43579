// ratelab_cxx.h - every ratelab C header the benchmarks use, included from
// C++. The headers pin their struct sizes with C11's _Static_assert, which
// C++17 spells static_assert; the alias is defined only around them.
#ifndef RATELAB_BENCH_RATELAB_CXX_H
#define RATELAB_BENCH_RATELAB_CXX_H

// rl_store_stats names both a struct and a function (fine in C; -Wshadow
// in C++).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#define _Static_assert static_assert
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
#undef _Static_assert
#pragma GCC diagnostic pop

#endif
