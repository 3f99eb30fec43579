/*
 * sim_rng.c - model: xoshiro256** (Blackman and Vigna) seeded with four
 * outputs of splitmix64 started at seed ^ mix(stream). Invariant: the
 * state is never all zero (splitmix64 outputs of distinct inputs), and each
 * variate consumes a fixed number of draws except sim_rng_below's rare
 * rejections, which depend only on the stream itself.
 */
#include "sim_rng.h"

#include "compat.h"
#include "ratelab/rule.h"
#include "sim_math.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = stream * 0xd1342543de82ef95ull + 1;

	x = seed ^ splitmix64(&x);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

uint64_t sim_rng_below(struct sim_rng *r, uint64_t n)
{
	rl__u128 m = (rl__u128)sim_rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		uint64_t floor = (0 - n) % n; /* 2^64 mod n */
		while (low < floor) {
			m = (rl__u128)sim_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double sim_rng_unit(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * 0x1p-53;
}

int64_t sim_rng_exp_ns(struct sim_rng *r, double mean_ns)
{
	double u = (double)((sim_rng_next(r) >> 11) + 1) * 0x1p-53; /* (0, 1] */
	double gap = -sim_ln(u) * mean_ns + 0.5;

	if (!(gap < (double)RL_TIME_MAX_NS))
		return RL_TIME_MAX_NS;
	return (int64_t)gap;
}
