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
 *
 * Rule change (algo.h, rl_limiter_rerule), from (N0, W0, B0) to
 * (N1, W1, B1): with L0 the level at now drained as the old rule drains it
 * (level.h, in 1/W0 request), L1 = min(ceil(L0 * W1 / W0), B1 * W1) in
 * 1/W1 request, computed as q * W1 + ceil(r * W1 / W0) with q = L0 / W0,
 * r = L0 % W0 (each product below 2^128); last_ns = now. The tokens
 * already taken carry over, at most a full new bucket.
 *
 * Settle (settle.h), delta units at now (clamped to last_ns): with L the
 * level at now, L' = min(L + delta * W, 2 * B * W) for a charge (the
 * bucket in debt by up to B tokens: a request of cost c then waits until
 * L' - d * N + c * W <= B * W; remaining answers 0 meanwhile), and
 * L' = max(0, L + delta * W) for a refund (never beyond a full bucket);
 * last_ns = now. admitted_ns is not used: a bucket keeps no request
 * apart, so a refund adds the tokens back to the bucket as it is now,
 * however long ago the request was admitted (Envoy's and Kong's way).
 *
 * Valid state (rl_limiter_state_check): last_ns in [0, RL_TIME_MAX_NS],
 * the level at most 2 * B * W (an empty bucket, B tokens owed after a
 * settle; so level_hi within its width).
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
