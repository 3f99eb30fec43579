/*
 * level.h - the per-key state of the two algorithms that keep a draining
 * level: token_bucket (the level is the bucket's missing tokens) and
 * leaky_bucket (the level is the queue of admitted, unserved requests).
 *
 * The level is counted in units of 1/W request, so that draining N/W
 * requests per ns is the exact integer N per ns for every N and W: no
 * rounding, no fractions. It is kept as its value at the key's last seen
 * time: level(t) = max(0, level - (t - last_ns) * N) for t >= last_ns. It
 * never exceeds (B + 1) * W <= (10^12 + 1) * 10^18 < 2^100, hence two
 * 64-bit words (level_hi below 2^36); a zeroed state is an empty level (a
 * full token bucket, an idle queue). 24 bytes per key, no padding.
 */
#ifndef RATELAB_LEVEL_H
#define RATELAB_LEVEL_H

#include <stdint.h>
#include "ratelab/static_assert.h"

struct rl_level {
	int64_t last_ns;   /* last seen time, ns */
	uint64_t level_lo; /* the level at last_ns, in 1/W request: low 64 bits */
	uint64_t level_hi; /* high 64 bits (below 2^36) */
};
RL_STATIC_ASSERT(sizeof(struct rl_level) == 24, "rl_level is 24 bytes");

#endif
