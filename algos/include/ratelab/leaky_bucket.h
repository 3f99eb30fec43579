/*
 * leaky_bucket.h - nginx limit_req's queue: admitted requests are served one
 * unit per W/N ns, in order (a request of cost c, algo.h, takes c service
 * slots); a request arriving to an idle queue is served at once, and at
 * most B admitted units may be waiting behind the one in service. Each
 * admitted request learns its delay (delay_ns, when its first unit starts
 * service) before it is served, rounded up to a whole ns (service times are
 * rational when N does not divide W). Exact for every N and W; 24 bytes
 * per key.
 *
 * Boundary: admitted iff its last unit's wait is <= B * W / N (inclusive):
 * B + 1 requests of cost 1 pass at one instant to an idle queue, the last
 * waiting B * W / N. A cost above B is never admitted (retry_after_ns =
 * RL_DURATION_MAX_NS), as the cost rules fix for every bucket algorithm,
 * although an idle queue could serve B + 1 units: a cost of B passes an
 * idle queue, B + 1 never does.
 *
 * Bound (max_admitted): at most B + 1 + floor(N * d / W) units admitted in
 * any closed interval of length d ns (admitted, not yet served: the queue).
 */
#ifndef RATELAB_LEAKY_BUCKET_H
#define RATELAB_LEAKY_BUCKET_H

#include "ratelab/algo.h"
#include "ratelab/level.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
