// hot_floor.h - the floor entries of hot.cc (hot_floor.cc): check functions
// with rl_<algo>_check's shape, state cast from void *.
#ifndef RATELAB_BENCH_HOT_FLOOR_H
#define RATELAB_BENCH_HOT_FLOOR_H

#include <cstdint>

#include "ratelab_cxx.h"

namespace rlbench {

// Returns 1 and touches nothing.
int floor_call(const rl_limiter *lim, void *st, int64_t now_ns, rl_decision *out);
// One int64 TAT at st, gcra's rule with lim's emission and tolerance (ns):
// admitted iff max(TAT, now) - now <= tolerance, then TAT = max(TAT, now) + emission.
int floor_chain(const rl_limiter *lim, void *st, int64_t now_ns, rl_decision *out);
// Takes and drops a spinlock as the library's is (an exchange with acquire
// order, a release store), returns 1 and touches nothing else.
int floor_locked(const rl_limiter *lim, void *st, int64_t now_ns, rl_decision *out);

} // namespace rlbench

#endif
