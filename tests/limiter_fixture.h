/*
 * limiter_fixture.h - what the tests share: a limiter made from a rule
 * that must be valid (the test fails otherwise), and one limiter with one
 * key's state (struct fx). Include after <cmocka.h>.
 */
#ifndef RATELAB_TEST_LIMITER_FIXTURE_H
#define RATELAB_TEST_LIMITER_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "ratelab/algo.h"

static inline struct rl_limiter make(const struct rl_algo *algo, int64_t limit, int64_t window_ns,
				     int64_t burst)
{
	struct rl_limiter lim;
	struct rl_rule rule = { limit, window_ns, burst };

	assert_int_equal(rl_limiter_init(&lim, algo, &rule, NULL, 0), RL_OK);
	return lim;
}

/* One limiter and one key's state. */
struct fx {
	struct rl_limiter lim;
	void *st;
};

static inline void fx_init(struct fx *f, const char *algo, int64_t n, int64_t w, int64_t b)
{
	struct rl_rule rule = { n, w, b };
	char msg[128];
	const struct rl_algo *a = rl_algo_find(algo);

	assert_non_null(a);
	assert_int_equal(rl_limiter_init(&f->lim, a, &rule, msg, sizeof(msg)), RL_OK);
	f->st = calloc(1, a->state_size);
	assert_non_null(f->st);
}

static inline void fx_free(struct fx *f)
{
	rl_limiter_release(&f->lim, f->st);
	free(f->st);
	f->st = NULL;
}

/* Restarts the key (a fresh state). */
static inline void fx_reset(struct fx *f)
{
	rl_limiter_release(&f->lim, f->st);
	memset(f->st, 0, f->lim.algo->state_size);
}

#endif
