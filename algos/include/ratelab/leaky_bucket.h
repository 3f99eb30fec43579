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
 *
 * Rule change (algo.h, rl_limiter_rerule), from (N0, W0, B0) to
 * (N1, W1, B1): with L0 the level at now drained as the old rule drains it
 * (level.h, in 1/W0 request), L1 = min(ceil(L0 * W1 / W0), B1 * W1) in
 * 1/W1 request, computed as q * W1 + ceil(r * W1 / W0) with q = L0 / W0,
 * r = L0 % W0 (each product below 2^128); last_ns = now. The queue
 * carries over in the new rule's units, at most B1 * W1 (B1 waiting).
 *
 * Settle (settle.h), delta units at now (clamped to last_ns): with L the
 * queue's level at now, L' = min(L + delta * W, (2 * B + 1) * W) for a
 * charge (the queue B units longer than a check leaves it at most: later
 * requests are refused until it has drained below B * W - (c - 1) * W),
 * and L' = max(0, L + delta * W) for a refund (an idle queue at most);
 * last_ns = now. admitted_ns is not used: the queue keeps no request
 * apart, so the units are added to or taken from the queue as it is now,
 * whether or not that request has been served.
 *
 * Valid state (rl_limiter_state_check): last_ns in [0, RL_TIME_MAX_NS],
 * the level at most (2 * B + 1) * W (B waiting and the one in service, and
 * B more after a settle; so level_hi within its width).
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
