/*
 * settle_ops.h - private: each settling algorithm's settle (settle.h), at
 * the end of its own file; rl_limiter_settle (settle.c) has checked the
 * arguments and clamped now_ns to nothing yet (each clamps to its own
 * last seen time).
 */
#ifndef RATELAB_SETTLE_OPS_H
#define RATELAB_SETTLE_OPS_H

#include <stdint.h>

#include "ratelab/algo.h"

int rl__fixed_window_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
			    int64_t now_ns);
int rl__sliding_log_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
			   int64_t now_ns);
int rl__sliding_counter_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
			       int64_t now_ns);

int rl__token_bucket_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
			    int64_t now_ns);
int rl__leaky_bucket_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
			    int64_t now_ns);
int rl__gcra_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta, int64_t now_ns);

/* gcra's wait until TAT <= now (clamped), ns: rl_limiter_settled_reset_ns. */
int64_t rl__gcra_reset_ns(const void *state, int64_t now_ns);

#endif
