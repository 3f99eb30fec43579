/*
 * fixed_window.h - windows aligned at multiples of W (window id floor(t/W));
 * a request is admitted iff fewer than N requests were admitted in its
 * window. Cheapest, and admits up to 2N in an interval of length W that
 * straddles a window edge. 24 bytes per key.
 *
 * Boundary: t belongs to the window [kW, (k+1)W): start inclusive, end
 * exclusive; admitted iff count < N (the Nth is admitted, the N+1st not).
 *
 * Bound (max_admitted): N in each window a closed interval of length d ns
 * meets, at most N * (ceil(d / W) + 1): 2N in a window (t - W, t], W >= 2.
 */
#ifndef RATELAB_FIXED_WINDOW_H
#define RATELAB_FIXED_WINDOW_H

#include "ratelab/algo.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_fixed_window {
	int64_t last_ns; /* last seen time, ns */
	int64_t end_ns;  /* end of the last seen time's window, ns (exclusive) */
	uint32_t count;  /* requests admitted in that window */
};
_Static_assert(sizeof(struct rl_fixed_window) == 24, "rl_fixed_window is 24 bytes");

int rl_fixed_window_check(const struct rl_limiter *lim, struct rl_fixed_window *st,
			  int64_t now_ns, struct rl_decision *out);

#ifdef __cplusplus
}
#endif
#endif
