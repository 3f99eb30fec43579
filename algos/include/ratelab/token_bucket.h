/*
 * token_bucket.h - a bucket of B tokens refilled continuously at N/W tokens
 * per ns; a request is admitted iff at least one whole token is in the
 * bucket, and takes it. A new key starts full. Exact for every N and W
 * (see level.h); 24 bytes per key.
 *
 * Boundary: admitted iff tokens >= 1 (inclusive), i.e. iff the missing
 * tokens are <= B - 1.
 *
 * Bound (max_admitted): at most B + floor(N * d / W) admitted in any closed
 * interval of length d ns; B + N - 1 in a window (t - W, t] when N <= W.
 * A burst of B at one instant is within it: that is the configured burst.
 */
#ifndef RATELAB_TOKEN_BUCKET_H
#define RATELAB_TOKEN_BUCKET_H

#include "ratelab/algo.h"
#include "ratelab/level.h"

#ifdef __cplusplus
extern "C" {
#endif

int rl_token_bucket_check(const struct rl_limiter *lim, struct rl_level *st,
			  int64_t now_ns, struct rl_decision *out);

#ifdef __cplusplus
}
#endif
#endif
