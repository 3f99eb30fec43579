/*
 * token_bucket.h - a bucket of B tokens refilled continuously at N/W tokens
 * per ns; a request of cost c (algo.h) is admitted iff at least c whole
 * tokens are in the bucket, and takes them. A new key starts full. Exact
 * for every N and W (see level.h); 24 bytes per key.
 *
 * Boundary: admitted iff tokens >= c (inclusive), i.e. iff the missing
 * tokens are <= B - c: a cost of B passes a full bucket, a cost above B
 * never passes (retry_after_ns = RL_DURATION_MAX_NS). When rejected,
 * retry_after_ns is the smallest d with tokens(t + d) >= c.
 *
 * Bound (max_admitted): at most B + floor(N * d / W) units admitted in any
 * closed interval of length d ns; B + N - 1 in a window (t - W, t] when
 * N <= W. A burst of B at one instant is within it: the configured burst.
 */
#ifndef RATELAB_TOKEN_BUCKET_H
#define RATELAB_TOKEN_BUCKET_H

#include "ratelab/algo.h"
#include "ratelab/level.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One request of cost units (algo.h); RL_EINVAL for a cost outside [1, RL_COST_MAX]. */
int rl_token_bucket_check_n(const struct rl_limiter *lim, struct rl_level *st, int64_t now_ns,
			    int64_t cost, struct rl_decision *out);

/* One request of cost 1: rl_token_bucket_check_n with cost 1. */
int rl_token_bucket_check(const struct rl_limiter *lim, struct rl_level *st, int64_t now_ns,
			  struct rl_decision *out);

#ifdef __cplusplus
}
#endif
#endif
