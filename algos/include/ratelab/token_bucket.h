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

#ifdef __cplusplus
}
#endif
#endif
