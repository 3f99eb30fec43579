/*
 * test_algo_own_bound.c - each algorithm's own documented bound (the ops
 * table's max_admitted, stated in its header): hand-worked values, that the
 * bound is reached where the header says (a burst of B at one instant for
 * token_bucket and gcra, B + 1 for leaky_bucket, 2N across a fixed_window
 * edge), and that it holds on seeded random traces (every closed interval
 * of several spans, counted by two pointers). RL_SEED replays a seed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "limiter_fixture.h"
#include "ratelab/fixed_window.h"
#include "test_rng.h"

#define SEC 1000000000LL

static int64_t bound(const char *algo, int64_t n, int64_t w, int64_t b, int64_t span)
{
	const struct rl_algo *a = rl_algo_find(algo);

	assert_non_null(a);
	struct rl_limiter lim = make(a, n, w, b);
	return rl_limiter_max_admitted(&lim, span);
}

static void hand_values(void **u)
{
	(void)u;
	/* N = 100 per W = 1 s, B = 150 */
	assert_int_equal(bound("token_bucket", 100, SEC, 150, 0), 150);
	assert_int_equal(bound("token_bucket", 100, SEC, 150, SEC - 1), 249);
	assert_int_equal(bound("token_bucket", 100, SEC, 150, SEC), 250);
	assert_int_equal(bound("gcra", 100, SEC, 150, 0), 150);
	assert_int_equal(bound("gcra", 100, SEC, 150, SEC - 1), 249);
	assert_int_equal(bound("gcra", 100, SEC, 150, SEC), 250);
	assert_int_equal(bound("leaky_bucket", 100, SEC, 150, 0), 151);
	assert_int_equal(bound("leaky_bucket", 100, SEC, 150, SEC - 1), 250);
	assert_int_equal(bound("fixed_window", 100, SEC, 150, 0), 100);
	assert_int_equal(bound("fixed_window", 100, SEC, 150, 1), 200);
	assert_int_equal(bound("fixed_window", 100, SEC, 150, SEC - 1), 200);
	assert_int_equal(bound("fixed_window", 100, SEC, 150, SEC), 200);
	assert_int_equal(bound("fixed_window", 100, SEC, 150, SEC + 1), 300);
	assert_int_equal(bound("sliding_counter", 100, SEC, 150, SEC - 1), 200);
	assert_int_equal(bound("sliding_log", 100, SEC, 150, 0), 100);
	assert_int_equal(bound("sliding_log", 100, SEC, 150, SEC - 1), 100);
	assert_int_equal(bound("sliding_log", 100, SEC, 150, SEC), 200);
	/* W = 1 ns: every ns its own window */
	assert_int_equal(bound("fixed_window", 3, 1, 3, 0), 3);
	assert_int_equal(bound("sliding_log", 3, 1, 3, 0), 3);
	/* gcra with T rounded up (N = 2, W = 3 ns: T = 2) */
	assert_int_equal(bound("gcra", 2, 3, 1, 4), 3);
	/* the extremes saturate instead of wrapping */
	assert_int_equal(bound("token_bucket", RL_LIMIT_MAX, 1, RL_BURST_MAX, RL_TIME_MAX_NS), INT64_MAX);
	assert_int_equal(bound("fixed_window", RL_LIMIT_MAX, 1, 1, RL_TIME_MAX_NS), INT64_MAX);
	assert_int_equal(bound("sliding_log", 1, RL_WINDOW_MAX_NS, 1, RL_TIME_MAX_NS), 5);
}

/* Admits as many as the limiter takes at t; returns how many. */
static int64_t flood(const struct rl_limiter *lim, void *st, int64_t t, int64_t at_most)
{
	int64_t k = 0;

	while (k < at_most && rl_limiter_check(lim, st, t, NULL) == RL_ALLOWED)
		k++;
	return k;
}

/* Where each header says its bound is reached. */
static void bound_is_reached(void **u)
{
	const int64_t n = 100, b = 150;

	(void)u;
	for (size_t i = 0; i < 3; i++) {
		static const char *const buckets[] = { "token_bucket", "gcra", "leaky_bucket" };
		const struct rl_algo *a = rl_algo_find(buckets[i]);
		struct rl_limiter lim = make(a, n, SEC, b);
		void *st = calloc(1, a->state_size);
		assert_non_null(st);
		int64_t k = flood(&lim, st, 0, 10 * b);
		assert_int_equal(k, rl_limiter_max_admitted(&lim, 0)); /* a burst at t = 0: exactly the bound */
		rl_limiter_release(&lim, st);
		free(st);
	}
	/* the 2N boundary pair: N at W - 1, N at W, inside one window of length W */
	struct rl_limiter fw = make(&rl_fixed_window_algo, n, SEC, n);
	struct rl_fixed_window st = { 0 };
	int64_t k = flood(&fw, &st, SEC - 1, 3 * n) + flood(&fw, &st, SEC, 3 * n);
	assert_int_equal(k, 2 * n);
	assert_int_equal(k, rl_limiter_max_admitted(&fw, 1));
}

/* Most admitted times inside a closed interval of span d: two pointers over sorted times. */
static int64_t max_in_span(const int64_t *t, size_t n, int64_t d)
{
	int64_t best = 0;

	for (size_t i = 0, j = 0; j < n; j++) {
		while (t[j] - t[i] > d)
			i++;
		if ((int64_t)(j - i + 1) > best)
			best = (int64_t)(j - i + 1);
	}
	return best;
}

/* Random bursts and gaps against every algorithm; the bound must hold for every span. */
static void bound_holds_on_random_traces(void **u)
{
	const char *env = getenv("RL_SEED");
	uint64_t seed = env && *env ? strtoull(env, NULL, 0) : 20261201;
	size_t na;
	const struct rl_algo *const *all = rl_algo_all(&na);
	enum { REQS = 4000 };
	int64_t *adm = malloc(REQS * sizeof(int64_t));

	(void)u;
	assert_non_null(adm);
	for (int round = 0; round < 40; round++) {
		uint64_t rng = seed * 1000 + (uint64_t)round;
		int64_t n = 1 + (int64_t)(t_splitmix(&rng) % 20), w = 1 + (int64_t)(t_splitmix(&rng) % 1000);
		int64_t b = 1 + (int64_t)(t_splitmix(&rng) % 40);
		for (size_t i = 0; i < na; i++) {
			struct rl_limiter lim = make(all[i], n, w, b);
			void *st = calloc(1, all[i]->state_size);
			uint64_t r = rng;
			size_t k = 0;
			int64_t t = 0;
			assert_non_null(st);
			for (int q = 0; q < REQS; q++) {
				uint64_t x = t_splitmix(&r);
				t += x % 4 == 0 ? (int64_t)((x >> 8) % (uint64_t)(3 * w)) : x % 4 == 1 ? 1 : 0;
				int v = rl_limiter_check(&lim, st, t, NULL);
				assert_true(v >= 0);
				if (v)
					adm[k++] = t;
			}
			const int64_t spans[] = { 0, 1, w / 2, w - 1, w, 2 * w - 1, 5 * w };
			for (size_t s = 0; s < sizeof(spans) / sizeof(spans[0]); s++) {
				int64_t got = max_in_span(adm, k, spans[s]), max = rl_limiter_max_admitted(&lim, spans[s]);
				if (got > max)
					fail_msg("seed %llu round %d: %s N=%lld W=%lld B=%lld admitted %lld in a span of %lld ns, "
						 "bound %lld", (unsigned long long)seed, round, all[i]->name, (long long)n,
						 (long long)w, (long long)b, (long long)got, (long long)spans[s], (long long)max);
			}
			rl_limiter_release(&lim, st);
			free(st);
		}
	}
	free(adm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hand_values),
		cmocka_unit_test(bound_is_reached),
		cmocka_unit_test(bound_holds_on_random_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
