/*
 * sim_rng.h - the simulator's seeded pseudo-random numbers: xoshiro256**
 * seeded through splitmix64, one independent stream per (seed, stream id),
 * so every traffic source draws the same numbers whatever the algorithm
 * under test decides.
 *
 * Determinism: the generator is pure 64-bit integer arithmetic. The derived
 * variates (uniform double, exponential gap) use only IEEE-754 double
 * basic operations (+ - * /, exact frexp/ldexp) through sim_math.h, never
 * a libm transcendental, and sim/ is built with -ffp-contract=off, so the
 * same seed gives bit-identical variates on any IEEE-754 machine.
 * Single-threaded: one sim_rng per user.
 */
#ifndef RATELAB_SIM_RNG_H
#define RATELAB_SIM_RNG_H

#include <stdint.h>

struct sim_rng {
	uint64_t s[4]; /* xoshiro256** state; never all zero */
};

/* Seeds the stream `stream` of seed `seed`. */
void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream);

static inline uint64_t sim_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = sim_rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sim_rng_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n) without bias (Lemire's multiply-and-reject); n >= 1. */
uint64_t sim_rng_below(struct sim_rng *r, uint64_t n);

/* Uniform in [0, 1), a multiple of 2^-53. */
double sim_rng_unit(struct sim_rng *r);

/*
 * An exponential duration with mean mean_ns, rounded to the nearest ns
 * (inverse CDF: -ln(U) * mean with U uniform in (0, 1]); saturates at
 * RL_TIME_MAX_NS.
 */
int64_t sim_rng_exp_ns(struct sim_rng *r, double mean_ns);

#endif
