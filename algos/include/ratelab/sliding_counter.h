/*
 * sliding_counter.h - Cloudflare's sliding-window counter: the previous
 * window's count weighted by how much of it still overlaps the sliding
 * window. With prev units admitted in window floor(t/W) - 1 (0 if none),
 * curr admitted so far in floor(t/W) and e = t mod W, a request of cost c
 * (algo.h) is admitted iff
 *     prev * (W - e) + (curr + c - 1) * W < N * W        (strict)
 * in exact 128-bit integers (at c = 1: prev * (W - e) + curr * W < N * W),
 * then curr += c. A cost above N never passes (retry_after_ns =
 * RL_DURATION_MAX_NS). 32 bytes per key: two int64 times and two uint64
 * counts (N up to 10^12 needs 40 bits); prev * (W - e) and N * W stay
 * below 10^30 < 2^100.
 *
 * Bound (max_admitted): curr never passes N, so N units in each window a
 * closed interval of length d ns meets, at most N * (ceil(d / W) + 1): 2N
 * in a window (t - W, t] (W >= 2); it approaches N on steady traffic only.
 *
 * Rule change (algo.h, rl_limiter_rerule), from (N0, W0) to (N1, W1): the
 * state first advances to now's W0 window as a check does. If W1 == W0:
 * prev = min(prev, N1), curr = min(curr, N1). Otherwise the check's own
 * estimate of the units in the sliding window, u = curr +
 * ceil(prev * (end_ns - now) / W0), becomes curr = min(u, N1), prev = 0,
 * end_ns = now - now % W1 + W1 (the W1 window holding now). last_ns = now.
 *
 * Valid state (rl_limiter_state_check): all zero (a fresh key), or last_ns
 * in [0, RL_TIME_MAX_NS], end_ns a multiple of W in (last_ns,
 * last_ns + W], prev <= N, curr <= N.
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
	uint64_t prev;   /* units admitted in the window before it, <= N <= 10^12 */
	uint64_t curr;   /* units admitted in it, <= N */
};
RL_STATIC_ASSERT(sizeof(struct rl_sliding_counter) == 32, "rl_sliding_counter is 32 bytes");

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
