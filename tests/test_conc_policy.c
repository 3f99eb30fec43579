/*
 * test_conc_policy.c - a policy limiter (rl_limit_new_policy) under
 * threads: THREADS threads sharing it admit in total exactly what one
 * thread would, for every algorithm, on the unnamed key and on named
 * keys, with costs on a ':units' rule: all requests come at one instant,
 * so one thread would admit exactly as many as the tighter rule allows,
 * and any lost update or half-committed policy shows as a different
 * total. POSIX threads (which ThreadSanitizer intercepts).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "ratelab/limit.h"

#define THREADS 4
#define PER_THREAD 500

struct worker {
	struct rl_limit *l;
	pthread_barrier_t *start;
	int keyed;
	int64_t cost;
	int allowed, errors;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->start);
	for (int i = 0; i < PER_THREAD; i++) {
		int rc = w->keyed ? rl_limit_allow_key_n_at(w->l, "k", 1, 1000, w->cost, NULL)
				  : rl_limit_allow_n_at(w->l, 1000, w->cost, NULL);
		if (rc < 0)
			w->errors++;
		else
			w->allowed += rc;
	}
	return NULL;
}

/* THREADS threads of requests of cost at one instant: the total admitted. */
static int run(const char *algo, const char *policy, int keyed, int64_t cost)
{
	struct rl_limit *l = rl_limit_new_policy(algo, policy);
	pthread_barrier_t start;
	pthread_t th[THREADS];
	struct worker w[THREADS];
	int total = 0;

	assert_non_null(l);
	assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (int t = 0; t < THREADS; t++) {
		w[t] = (struct worker){ l, &start, keyed, cost, 0, 0 };
		assert_int_equal(pthread_create(&th[t], NULL, work, &w[t]), 0);
	}
	for (int t = 0; t < THREADS; t++) {
		pthread_join(th[t], NULL);
		assert_int_equal(w[t].errors, 0);
		total += w[t].allowed;
	}
	pthread_barrier_destroy(&start);
	rl_limit_free(l);
	return total;
}

/* The same requests from one thread. */
static int sequential(const char *algo, const char *policy, int keyed, int64_t cost)
{
	struct rl_limit *l = rl_limit_new_policy(algo, policy);
	int total = 0;

	assert_non_null(l);
	for (int i = 0; i < THREADS * PER_THREAD; i++) {
		int rc = keyed ? rl_limit_allow_key_n_at(l, "k", 1, 1000, cost, NULL)
			       : rl_limit_allow_n_at(l, 1000, cost, NULL);
		assert_true(rc >= 0);
		total += rc;
	}
	rl_limit_free(l);
	return total;
}

static void one_instant(void **u)
{
	(void)u;
	static const char *const algos[] = { "token_bucket", "gcra",	    "leaky_bucket",
					     "fixed_window", "sliding_log", "sliding_counter" };
	/* 700 per hour binds before 900 per second; cost 3 on a units rule of 1000 binds before 800 */
	static const struct {
		const char *policy;
		int64_t cost;
		int most; /* one thread's total, at most */
	} cases[] = { { "900/1s+700/1h", 1, 701 }, { "800/1s + 1000/1s:units", 3, 334 } };

	for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++)
		for (size_t c = 0; c < 2; c++)
			for (int keyed = 0; keyed < 2; keyed++) {
				int want = sequential(algos[a], cases[c].policy, keyed, cases[c].cost);
				int got = run(algos[a], cases[c].policy, keyed, cases[c].cost);
				assert_true(want >= cases[c].most - 2 && want <= cases[c].most);
				if (got != want)
					fail_msg("%s %s %s: %d admitted by %d threads, %d by one", algos[a],
						 cases[c].policy, keyed ? "keyed" : "unnamed", got, THREADS, want);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_instant),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
