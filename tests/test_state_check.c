/*
 * test_state_check.c - rl_limiter_state_check: each field of each
 * algorithm's state at the edge its header states passes, one past it
 * fails (the corruptions that made checks wrap: a level above a settle's
 * debt cap (2 * B + 1) * W, a TAT beyond it, 2 * (tau + T), a window end not a multiple of W or beyond
 * last_ns + W, a count above N, sliding_log runs out of order or outside
 * the window), and every state the checks themselves leave passes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ratelab/algo.h"
#include "ratelab/fixed_window.h"
#include "ratelab/gcra.h"
#include "ratelab/level.h"
#include "ratelab/sliding_counter.h"
#include "ratelab/sliding_log.h"
#include "test_rng.h"

static struct rl_limiter make(const struct rl_algo *algo, int64_t n, int64_t w, int64_t b)
{
	struct rl_limiter lim;
	const struct rl_rule rule = { n, w, b };

	assert_int_equal(rl_limiter_init(&lim, algo, &rule, NULL, 0), RL_OK);
	return lim;
}

static void set_level(struct rl_level *st, unsigned __int128 v)
{
	st->level_lo = (uint64_t)v;
	st->level_hi = (uint64_t)(v >> 64);
}

static void test_level(void **unused)
{
	(void)unused;
	const struct rl_algo *algos[] = { &rl_token_bucket_algo, &rl_leaky_bucket_algo };

	for (int i = 0; i < 2; i++) {
		/* narrow and wide rules */
		struct rl_limiter lims[] = { make(algos[i], 10, 1000, 20),
					     make(algos[i], 1000000, 3600000000000LL, 10000000),
					     make(algos[i], 1, 1000000000000000000LL, 1000000000),
					     /* the widest: (B + 1) * W about 10^30, level_hi near 2^36 */
					     make(algos[i], RL_LIMIT_MAX, RL_WINDOW_MAX_NS, RL_BURST_MAX) };
		for (int j = 0; j < 4; j++) {
			const struct rl_limiter *lim = &lims[j];
			/* a settle's debt cap (settle.h): token_bucket 2 * B * W (B tokens
			 * owed); leaky_bucket (2 * B + 1) * W */
			unsigned __int128 deepest = (2 * (unsigned __int128)lim->rule.burst + (uint64_t)i) * (uint64_t)lim->rule.window_ns;
			struct rl_level st = { 0 };
			assert_int_equal(rl_limiter_state_check(lim, &st), RL_OK);
			set_level(&st, deepest);
			st.last_ns = RL_TIME_MAX_NS;
			assert_int_equal(rl_limiter_state_check(lim, &st), RL_OK);
			set_level(&st, deepest + 1);
			assert_int_equal(rl_limiter_state_check(lim, &st), RL_EINVAL);
			set_level(&st, 0);
			st.level_hi = (uint64_t)1 << 37; /* a high word no rule writes */
			assert_int_equal(rl_limiter_state_check(lim, &st), RL_EINVAL);
			st.level_hi = UINT64_MAX;
			assert_int_equal(rl_limiter_state_check(lim, &st), RL_EINVAL);
			st = (struct rl_level){ .last_ns = RL_TIME_MAX_NS + 1 };
			assert_int_equal(rl_limiter_state_check(lim, &st), RL_EINVAL);
			st.last_ns = -1;
			assert_int_equal(rl_limiter_state_check(lim, &st), RL_EINVAL);
		}
	}
}

static void test_gcra(void **unused)
{
	(void)unused;
	struct rl_limiter lim = make(&rl_gcra_algo, 10, 1000, 5); /* T 100, tau 400: debt cap 1000 */
	struct rl_gcra st = { 0, 0, 0 };

	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_OK);
	st = (struct rl_gcra){ 7000 + 999, 7000, 9 }; /* tat_frac < N */
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_OK);
	st.tat_frac = 10;
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	st = (struct rl_gcra){ 7000 + 1000, 7000, 0 };
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_OK);
	st.tat_ns++;
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	st = (struct rl_gcra){ -1, 7000, 0 };
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	st = (struct rl_gcra){ INT64_MAX, RL_TIME_MAX_NS, 0 };
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	st = (struct rl_gcra){ 0, RL_TIME_MAX_NS + 1, 0 };
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	/* the capped tolerance (gcra.h): TAT up to INT64_MAX at the last time */
	struct rl_limiter cap = make(&rl_gcra_algo, 1, 1000000000000000000LL, 1000000000);
	st = (struct rl_gcra){ INT64_MAX, RL_TIME_MAX_NS, 0 };
	assert_int_equal(rl_limiter_state_check(&cap, &st), RL_OK);
	/* N = B = 10^12, W = 10^18: T = 10^6 ns, tau + T = 10^18 exactly; a settle's debt cap twice that */
	struct rl_limiter big = make(&rl_gcra_algo, RL_LIMIT_MAX, RL_WINDOW_MAX_NS, RL_BURST_MAX);
	st = (struct rl_gcra){ 5 + 2 * RL_WINDOW_MAX_NS, 5, 0 };
	assert_int_equal(rl_limiter_state_check(&big, &st), RL_OK);
	st.tat_ns++;
	assert_int_equal(rl_limiter_state_check(&big, &st), RL_EINVAL);
	/* 7 per 10 ns, B 1: T = tau + T = 10/7 ns, cap 20/7 = 2 6/7 ns; one 1/7 ns past it refused */
	struct rl_limiter frac = make(&rl_gcra_algo, 7, 10, 1);
	st = (struct rl_gcra){ 100 + 2, 100, 6 };
	assert_int_equal(rl_limiter_state_check(&frac, &st), RL_OK);
	st = (struct rl_gcra){ 100 + 3, 100, 0 };
	assert_int_equal(rl_limiter_state_check(&frac, &st), RL_EINVAL);
}

static void test_windows(void **unused)
{
	(void)unused;
	struct rl_limiter fw = make(&rl_fixed_window_algo, 10, 100, 10);
	struct rl_fixed_window f = { 0 };

	assert_int_equal(rl_limiter_state_check(&fw, &f), RL_OK);
	f = (struct rl_fixed_window){ 150, 200, 10 };
	assert_int_equal(rl_limiter_state_check(&fw, &f), RL_OK);
	f.count = 11;
	assert_int_equal(rl_limiter_state_check(&fw, &f), RL_EINVAL);
	f = (struct rl_fixed_window){ 100, 200, 1 }; /* end = last + W */
	assert_int_equal(rl_limiter_state_check(&fw, &f), RL_OK);
	f = (struct rl_fixed_window){ 99, 200, 1 }; /* end beyond last + W */
	assert_int_equal(rl_limiter_state_check(&fw, &f), RL_EINVAL);
	f = (struct rl_fixed_window){ 200, 200, 1 }; /* end not after last */
	assert_int_equal(rl_limiter_state_check(&fw, &f), RL_EINVAL);
	f = (struct rl_fixed_window){ 150, 199, 1 }; /* not a multiple of W */
	assert_int_equal(rl_limiter_state_check(&fw, &f), RL_EINVAL);
	f = (struct rl_fixed_window){ 0, INT64_MIN, 0 };
	assert_int_equal(rl_limiter_state_check(&fw, &f), RL_EINVAL);
	/* N = 10^12: a count past 32 bits, up to N and not one more */
	struct rl_limiter fwb = make(&rl_fixed_window_algo, RL_LIMIT_MAX, RL_WINDOW_MAX_NS, RL_LIMIT_MAX);
	f = (struct rl_fixed_window){ 5, RL_WINDOW_MAX_NS, (uint64_t)RL_LIMIT_MAX };
	assert_int_equal(rl_limiter_state_check(&fwb, &f), RL_OK);
	f.count++;
	assert_int_equal(rl_limiter_state_check(&fwb, &f), RL_EINVAL);

	struct rl_limiter sc = make(&rl_sliding_counter_algo, 10, 100, 10);
	struct rl_sliding_counter c = { 0 };
	assert_int_equal(rl_limiter_state_check(&sc, &c), RL_OK);
	c = (struct rl_sliding_counter){ 150, 200, 10, 10 };
	assert_int_equal(rl_limiter_state_check(&sc, &c), RL_OK);
	c.prev = 11;
	assert_int_equal(rl_limiter_state_check(&sc, &c), RL_EINVAL);
	c = (struct rl_sliding_counter){ 150, 200, 10, UINT32_MAX };
	assert_int_equal(rl_limiter_state_check(&sc, &c), RL_EINVAL);
	c = (struct rl_sliding_counter){ 150, 200, 10, UINT64_MAX };
	assert_int_equal(rl_limiter_state_check(&sc, &c), RL_EINVAL);
	/* N = 10^12: counters past 32 bits, up to N and not one more */
	struct rl_limiter scb = make(&rl_sliding_counter_algo, RL_LIMIT_MAX, RL_WINDOW_MAX_NS, RL_LIMIT_MAX);
	c = (struct rl_sliding_counter){ 5, RL_WINDOW_MAX_NS, (uint64_t)RL_LIMIT_MAX, (uint64_t)RL_LIMIT_MAX };
	assert_int_equal(rl_limiter_state_check(&scb, &c), RL_OK);
	c.prev++;
	assert_int_equal(rl_limiter_state_check(&scb, &c), RL_EINVAL);
	c.prev--;
	c.curr++;
	assert_int_equal(rl_limiter_state_check(&scb, &c), RL_EINVAL);
	c = (struct rl_sliding_counter){ 150, 250, 0, 0 };
	assert_int_equal(rl_limiter_state_check(&sc, &c), RL_EINVAL);
	c = (struct rl_sliding_counter){ RL_TIME_MAX_NS, RL_TIME_MAX_NS + 100, 0, 1 };
	assert_int_equal(rl_limiter_state_check(&sc, &c), RL_OK);
	c.last_ns++;
	assert_int_equal(rl_limiter_state_check(&sc, &c), RL_EINVAL);
}

static void test_sliding_log(void **unused)
{
	(void)unused;
	struct rl_limiter lim = make(&rl_sliding_log_algo, 10, 100, 10);
	struct rl_run runs[4] = { { 101, 2 }, { 150, 3 }, { 200, 1 }, { 0, 0 } };
	struct rl_sliding_log st = { 200, { .runs = runs, .total = 6, .head = 0, .len = 3, .cap = 4 } };

	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_OK);
	runs[0].at = 100; /* left the window (200 - 100, 200] */
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	runs[0].at = 160; /* out of order */
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	runs[0].at = 101;
	runs[2].at = 201; /* after last_ns */
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	runs[2].at = 200;
	runs[1].count = 0;
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	runs[1].count = 3;
	st.log.total = 7; /* not the runs' sum */
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	st.log.total = 6;
	st.log.cap = 3; /* not a power of two */
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	st.log.cap = 4;
	st.log.len = 5;
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
	st.log.len = 3;
	/* more than N (a lowered limit, a settle's debt) but at most 2 * RL_LIMIT_MAX:
	 * valid; past 32 bits in one run */
	runs[1].count = 2 * (uint64_t)RL_LIMIT_MAX - 3;
	st.log.total = 2 * (uint64_t)RL_LIMIT_MAX;
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_OK);
	runs[1].count++;
	st.log.total++;
	assert_int_equal(rl_limiter_state_check(&lim, &st), RL_EINVAL);
}

/* Whatever the checks leave passes, for every algorithm, on seeded random traces. */
static void test_checks_leave_valid_states(void **unused)
{
	(void)unused;
	uint64_t seed = t_seed_from_env(0x51a7e5ULL), s = seed;
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);

	for (size_t a = 0; a < count; a++) {
		for (int round = 0; round < 200; round++) {
			int64_t n = (int64_t)(t_splitmix(&s) % 20) + 1, w = (int64_t)(t_splitmix(&s) % 5000) + 1;
			int64_t b = all[a]->uses_burst ? (int64_t)(t_splitmix(&s) % 30) + 1 : n;
			struct rl_limiter lim = make(all[a], n, w, b);
			_Alignas(16) unsigned char st[RL_ALGO_MAX_STATE] = { 0 };
			int64_t t = (int64_t)(t_splitmix(&s) % 100000);
			for (int q = 0; q < 50; q++) {
				t += (int64_t)(t_splitmix(&s) % (uint64_t)(2 * w / n + 2)) - (int64_t)(w / n / 4);
				t = t < 0 ? 0 : t;
				int64_t cost = (int64_t)(t_splitmix(&s) % 4) + 1;
				assert_true(rl_limiter_check_n(&lim, st, t, cost, NULL) >= 0);
				if (rl_limiter_state_check(&lim, st) != RL_OK) {
					print_error("%s: RL_SEED=0x%llx round %d request %d\n", all[a]->name,
						    (unsigned long long)seed, round, q);
					fail();
				}
			}
			rl_limiter_release(&lim, st);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level),      cmocka_unit_test(test_gcra),
		cmocka_unit_test(test_windows),    cmocka_unit_test(test_sliding_log),
		cmocka_unit_test(test_checks_leave_valid_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
