/*
 * test_conc_limit.c - rl_limit under threads: THREADS threads sharing one
 * limiter admit in total exactly what one thread would, for every
 * algorithm, on the unnamed key and on named keys, with the caller's time
 * and with the monotonic clock; the keyed store made on first use by
 * threads racing to make it. POSIX threads (which ThreadSanitizer
 * intercepts).
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
#define PER_THREAD 600 /* requests per thread */
#define LIMIT 1000     /* requests per window; THREADS * PER_THREAD = 2400 are made */
#define KEYS 3

enum mode { UNNAMED_AT, UNNAMED_CLOCK, KEYED_AT, KEYED_CLOCK };

struct worker {
	struct rl_limit *l;
	pthread_barrier_t *start;
	enum mode mode;
	int allowed[KEYS];
	int errors;
};

static void *work(void *arg)
{
	static const char *const keys[KEYS] = { "a", "bb", "ccc" };
	struct worker *w = arg;

	pthread_barrier_wait(w->start); /* all threads at once: their checks interleave */
	for (int i = 0; i < PER_THREAD; i++) {
		int k = i % KEYS, rc;

		switch (w->mode) {
		case UNNAMED_AT:
			rc = rl_limit_allow_at(w->l, 1000 + i, NULL);
			break;
		case UNNAMED_CLOCK:
			rc = rl_limit_allow(w->l) ? RL_ALLOWED : RL_REJECTED;
			break;
		case KEYED_AT:
			rc = rl_limit_allow_key_at(w->l, keys[k], (size_t)k + 1, 1000 + i, NULL);
			break;
		default:
			rc = rl_limit_allow_key(w->l, keys[k], (size_t)k + 1) ? RL_ALLOWED : RL_REJECTED;
			break;
		}
		if (rc < 0)
			w->errors++;
		else
			w->allowed[k] += rc;
	}
	return NULL;
}

/*
 * What one thread admits of the same THREADS * PER_THREAD requests: the
 * limit (leaky_bucket: one more, the request in service beside a full queue).
 */
static int one_thread(const char *algo)
{
	struct rl_limit *l = rl_limit_new(algo, LIMIT, RL_H(24 * 365), 0);
	int n = 0;

	for (int i = 0; i < THREADS * PER_THREAD; i++)
		n += rl_limit_allow_at(l, 1000 + i % PER_THREAD, NULL);
	rl_limit_free(l);
	assert_true(n == LIMIT || n == LIMIT + 1);
	return n;
}

static void run(const char *algo, enum mode mode)
{
	/* A year's window: the few seconds a run takes refill nothing. */
	struct rl_limit *l = rl_limit_new(algo, LIMIT, RL_H(24 * 365), 0);
	struct worker w[THREADS] = { 0 };
	pthread_t th[THREADS];
	pthread_barrier_t start;
	int total[KEYS] = { 0 }, sum = 0;

	assert_non_null(l);
	pthread_barrier_init(&start, NULL, THREADS);
	for (int t = 0; t < THREADS; t++) {
		w[t] = (struct worker){ .l = l, .start = &start, .mode = mode };
		assert_int_equal(pthread_create(&th[t], NULL, work, &w[t]), 0);
	}
	for (int t = 0; t < THREADS; t++) {
		assert_int_equal(pthread_join(th[t], NULL), 0);
		assert_int_equal(w[t].errors, 0);
		for (int k = 0; k < KEYS; k++)
			total[k] += w[t].allowed[k];
	}
	pthread_barrier_destroy(&start);
	rl_limit_free(l);
	for (int k = 0; k < KEYS; k++)
		sum += total[k];
	if (mode == UNNAMED_AT || mode == UNNAMED_CLOCK) {
		int want = one_thread(algo);
		if (sum != want)
			fail_msg("%s mode %d: %d admitted, one thread admits %d", algo, mode, sum, want);
		return;
	}
	/* Each key gets THREADS * PER_THREAD / KEYS = 800 requests, below the limit: all pass. */
	for (int k = 0; k < KEYS; k++)
		if (total[k] != THREADS * PER_THREAD / KEYS)
			fail_msg("%s mode %d key %d: %d admitted, want %d", algo, mode, k, total[k],
				 THREADS * PER_THREAD / KEYS);
}

static void test_exact_totals(void **unused)
{
	(void)unused;
	size_t n;
	const struct rl_algo *const *algos = rl_algo_all(&n);

	for (size_t a = 0; a < n; a++)
		for (int m = UNNAMED_AT; m <= KEYED_CLOCK; m++)
			run(algos[a]->name, (enum mode)m);
}

/* A limit below each key's share: each key stops at exactly 100. */
static void test_keyed_limit_exact(void **unused)
{
	(void)unused;
	static const char *const keys[KEYS] = { "a", "bb", "ccc" };
	struct rl_limit *l = rl_limit_new("gcra", 100, RL_H(24 * 365), 0);
	struct worker w[THREADS] = { 0 };
	pthread_t th[THREADS];
	pthread_barrier_t start;

	pthread_barrier_init(&start, NULL, THREADS);
	for (int t = 0; t < THREADS; t++) {
		w[t] = (struct worker){ .l = l, .start = &start, .mode = KEYED_CLOCK };
		assert_int_equal(pthread_create(&th[t], NULL, work, &w[t]), 0);
	}
	int total[KEYS] = { 0 };
	for (int t = 0; t < THREADS; t++) {
		pthread_join(th[t], NULL);
		for (int k = 0; k < KEYS; k++)
			total[k] += w[t].allowed[k];
	}
	pthread_barrier_destroy(&start);
	for (int k = 0; k < KEYS; k++) {
		assert_int_equal(total[k], 100);
		assert_false(rl_limit_allow_key(l, keys[k], (size_t)k + 1));
	}
	rl_limit_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_totals),
		cmocka_unit_test(test_keyed_limit_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
