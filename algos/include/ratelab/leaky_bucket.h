/*
 * leaky_bucket.h - nginx limit_req's queue: admitted requests are served one
 * per W/N ns, in order; a request arriving to an idle queue is served at
 * once, and at most B admitted requests may be waiting behind the one in
 * service. Each admitted request learns its delay (delay_ns) before it is
 * served, rounded up to a whole ns (service times are rational when N does
 * not divide W). Exact for every N and W; 24 bytes per key.
 *
 * Boundary: admitted iff its delay is <= B * W / N (inclusive): B + 1
 * requests pass at one instant to an idle queue, the last waiting B * W / N.
 *
 * Bound (max_admitted): at most B + 1 + floor(N * d / W) admitted in any
 * closed interval of length d ns (admitted, not yet served: the queue).
 */
#ifndef RATELAB_LEAKY_BUCKET_H
#define RATELAB_LEAKY_BUCKET_H

#include "ratelab/algo.h"
#include "ratelab/level.h"

#ifdef __cplusplus
extern "C" {
#endif

int rl_leaky_bucket_check(const struct rl_limiter *lim, struct rl_level *st,
			  int64_t now_ns, struct rl_decision *out);

#ifdef __cplusplus
}
#endif
#endif
