/*
 * sliding_log.h - the exact sliding window: a request at t is admitted iff
 * fewer than N admitted requests have times x with t - W < x <= t (the
 * window is open at its old end, closed at t). Admits at most N in any
 * interval of length W; it is the reference the simulator measures the
 * others against. Bound (max_admitted): N * (floor(d / W) + 1) in any
 * closed interval of length d ns: N in a window (t - W, t]. Memory grows
 * with admissions in the window (runlog.h); the state owns heap memory,
 * freed by the algorithm's release op.
 */
#ifndef RATELAB_SLIDING_LOG_H
#define RATELAB_SLIDING_LOG_H

#include "ratelab/algo.h"
#include "ratelab/runlog.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_sliding_log {
	int64_t last_ns;      /* last seen time, ns */
	struct rl_runlog log; /* admitted times, ns */
};
_Static_assert(sizeof(struct rl_sliding_log) == 32, "rl_sliding_log is 32 bytes");

int rl_sliding_log_check(const struct rl_limiter *lim, struct rl_sliding_log *st,
			 int64_t now_ns, struct rl_decision *out);

/* Heap bytes the state asked for beyond sizeof(struct rl_sliding_log): its
 * ring's cap * sizeof(struct rl_run). What the allocator holds for them,
 * overhead included, is rl_runlog_heap_bytes(&st->log). */
size_t rl_sliding_log_heap_bytes(const struct rl_sliding_log *st);

#ifdef __cplusplus
}
#endif
#endif
