/*
 * limiter_fixture.h - what the store tests share: a limiter made from a
 * rule that must be valid (the test fails otherwise). Include after
 * <cmocka.h>.
 */
#ifndef RATELAB_TEST_LIMITER_FIXTURE_H
#define RATELAB_TEST_LIMITER_FIXTURE_H

#include "ratelab/algo.h"

static inline struct rl_limiter make(const struct rl_algo *algo, int64_t limit, int64_t window_ns,
				     int64_t burst)
{
	struct rl_limiter lim;
	struct rl_rule rule = { limit, window_ns, burst };

	assert_int_equal(rl_limiter_init(&lim, algo, &rule, NULL, 0), RL_OK);
	return lim;
}

#endif
