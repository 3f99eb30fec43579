/*
 * sliding_counter.h - Cloudflare's sliding-window counter: the previous
 * window's count weighted by how much of it still overlaps the sliding
 * window. With prev units admitted in window floor(t/W) - 1 (0 if none),
 * curr admitted so far in floor(t/W) and e = t mod W, a request of cost c
 * (algo.h) is admitted iff
 *     prev * (W - e) + (curr + c - 1) * W < N * W        (strict)
 * in exact 128-bit integers (at c = 1: prev * (W - e) + curr * W < N * W),
 * then curr += c. A cost above N never passes (retry_after_ns =
 * RL_DURATION_MAX_NS). 24 bytes per key.
 *
 * Bound (max_admitted): curr never passes N, so N units in each window a
 * closed interval of length d ns meets, at most N * (ceil(d / W) + 1): 2N
 * in a window (t - W, t] (W >= 2); it approaches N on steady traffic only.
 */
#ifndef RATELAB_SLIDING_COUNTER_H
#define RATELAB_SLIDING_COUNTER_H

#include "ratelab/algo.h"
#include "ratelab/static_assert.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_sliding_counter {
	int64_t last_ns; /* last seen time, ns */
	int64_t end_ns;  /* end of the last seen time's window, ns (exclusive) */
	uint32_t prev;   /* units admitted in the window before it, <= N */
	uint32_t curr;   /* units admitted in it, <= N */
};
RL_STATIC_ASSERT(sizeof(struct rl_sliding_counter) == 24, "rl_sliding_counter is 24 bytes");

/*
 * Settle (settle.h): a request admitted at a, settled by delta at t,
 * changes the counter of a's window while that window is t's (curr) or
 * the one before (prev), kept in [0, N] as the counters are; earlier,
 * nothing.
 */

#ifdef __cplusplus
}
#endif
#endif
