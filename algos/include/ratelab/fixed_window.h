/*
 * fixed_window.h - windows aligned at multiples of W (window id floor(t/W));
 * a request of cost c (algo.h) is admitted iff the units admitted in its
 * window plus c are at most N. Cheapest, and admits up to 2N units in an
 * interval of length W that straddles a window edge. 24 bytes per key:
 * two int64 times and a uint64 count (N up to 10^12 needs 40 bits).
 *
 * Boundary: t belongs to the window [kW, (k+1)W): start inclusive, end
 * exclusive; admitted iff count + c <= N (inclusive: the request taking the
 * window's last unit passes, the Nth of cost 1 passes and the N+1st not).
 * A cost above N never passes (retry_after_ns = RL_DURATION_MAX_NS).
 *
 * Bound (max_admitted): N units in each window a closed interval of length
 * d ns meets, at most N * (ceil(d / W) + 1): 2N in a window (t - W, t],
 * W >= 2.
 *
 * Rule change (algo.h, rl_limiter_rerule), from (N0, W0) to (N1, W1): if
 * now < end_ns (the window holding now has admissions), count =
 * min(count, N1), and when W1 != W0 end_ns = now - now % W1 + W1 (the W1
 * window holding now); if now >= end_ns nothing carries (the W1 window
 * holding now starts empty). last_ns = now.
 *
 * Valid state (rl_limiter_state_check): all zero (a fresh key), or last_ns
 * in [0, RL_TIME_MAX_NS], end_ns a multiple of W in (last_ns,
 * last_ns + W], count <= N.
 */
#ifndef RATELAB_FIXED_WINDOW_H
#define RATELAB_FIXED_WINDOW_H

#include "ratelab/algo.h"
#include "ratelab/static_assert.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_fixed_window {
	int64_t last_ns; /* last seen time, ns */
	int64_t end_ns;  /* end of the last seen time's window, ns (exclusive) */
	uint64_t count;  /* units admitted in that window, <= N <= 10^12 (past 32 bits) */
};
RL_STATIC_ASSERT(sizeof(struct rl_fixed_window) == 24, "rl_fixed_window is 24 bytes");

/*
 * Settle (settle.h): a request admitted at a in window [kW, (k+1)W) and
 * settled by delta at t changes the count only while t is in that window
 * (count += delta, kept in [0, N]: a window charged full refuses until
 * it ends, as deeper debt would); once the window has ended, nothing.
 */

#ifdef __cplusplus
}
#endif
#endif
