/*
 * test_rng.h - the tests' one pseudo-random generator (splitmix64: every
 * seed, zero included, gives a full-period stream) and their seed, so that
 * a failing seeded test replays with RL_SEED=<the printed seed>.
 */
#ifndef RATELAB_TEST_RNG_H
#define RATELAB_TEST_RNG_H

#include <stdint.h>
#include <stdlib.h>

static inline uint64_t t_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* RL_SEED from the environment when set, else def. */
static inline uint64_t t_seed_from_env(uint64_t def)
{
	const char *s = getenv("RL_SEED");
	return s && *s ? strtoull(s, NULL, 0) : def;
}

#endif
