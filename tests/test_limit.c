/*
 * test_limit.c - the rl_limit API: bad arguments give NULL, errno and a
 * message naming the value; every answer equals rl_limiter_check on a
 * state of its own (seeded random traces, every algorithm); named keys
 * have quotas of their own; the burst default and the window algorithms'
 * refusal of a burst; the clock and the version.
 * RL_SEED overrides the seed, which failures print.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ratelab/limit.h"
#include "ratelab/store.h"
#include "ratelab/version.h"

static uint64_t seed = 20261201;

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void expect_refused(const char *algo, int64_t limit, int64_t window_ns, int64_t burst,
			   const char *words)
{
	errno = 0;
	assert_null(rl_limit_new(algo, limit, window_ns, burst));
	assert_int_equal(errno, EINVAL);
	if (!strstr(rl_limit_error(), words))
		fail_msg("error '%s' lacks '%s'", rl_limit_error(), words);
}

static void test_bad_arguments(void **unused)
{
	(void)unused;
	expect_refused(NULL, 10, RL_S(1), 0, "no algorithm");
	expect_refused("tokenbucket", 10, RL_S(1), 0, "unknown algorithm 'tokenbucket'");
	expect_refused("gcra", 0, RL_S(1), 0, "limit 0 is out of range [1, 1000000000000]");
	expect_refused("gcra", RL_LIMIT_MAX + 1, RL_S(1), 0, "limit 1000000000001 is out of range [1, 1000000000000]");
	expect_refused("gcra", 10, 0, 0, "window (ns) 0 is out of range");
	expect_refused("gcra", 10, RL_WINDOW_MAX_NS + 1, 0, "out of range [1, 1000000000000000000]");
	expect_refused("gcra", 10, RL_S(1), -1, "burst -1 is out of range");
	expect_refused("gcra", 10, RL_S(1), RL_BURST_MAX + 1, "burst 1000000000001 is out of range [1, 1000000000000]");
	expect_refused("fixed_window", 10, RL_S(1), 20, "burst 20 does not apply to fixed_window");
	expect_refused("sliding_log", 10, RL_S(1), 10, "does not apply to sliding_log");
	expect_refused("sliding_counter", 10, RL_S(1), 1, "does not apply to sliding_counter");

	struct rl_limit *l = rl_limit_new("fixed_window", 10, RL_S(1), 0);
	assert_non_null(l);
	assert_string_equal(rl_limit_error(), ""); /* a success clears the message */
	rl_limit_free(l);

	/* NULL limiters and keys are errors, never crashes. */
	assert_int_equal(rl_limit_allow_at(NULL, 0, NULL), RL_EINVAL);
	assert_false(rl_limit_allow(NULL));
	assert_false(rl_limit_allow_key(NULL, "a", 1));
	l = rl_limit_new("gcra", 1, RL_S(1), 0);
	assert_int_equal(rl_limit_allow_key_at(l, NULL, 3, 0, NULL), RL_EINVAL);
	assert_int_equal(rl_limit_allow_at(l, -1, NULL), RL_ERANGE);
	assert_int_equal(rl_limit_allow_at(l, RL_TIME_MAX_NS + 1, NULL), RL_ERANGE);
	assert_int_equal(rl_limit_allow_key_at(l, "k", 1, -1, NULL), RL_ERANGE);
	assert_null(rl_limit_rule(NULL));
	rl_limit_free(l);
	rl_limit_free(NULL);
}

static void test_burst_default(void **unused)
{
	(void)unused;
	struct rl_limit *l = rl_limit_new("token_bucket", 10, RL_S(1), 0);
	assert_int_equal(rl_limit_rule(l)->burst, 10);
	assert_int_equal(rl_limit_rule(l)->limit, 10);
	assert_int_equal(rl_limit_rule(l)->window_ns, 1000000000);
	rl_limit_free(l);
	l = rl_limit_new("token_bucket", 10, RL_S(1), 20);
	assert_int_equal(rl_limit_rule(l)->burst, 20);
	/* 20 at one instant (the full bucket), not the 21st; one more 100 ms later. */
	for (int i = 0; i < 20; i++)
		assert_int_equal(rl_limit_allow_at(l, 5, NULL), RL_ALLOWED);
	struct rl_decision d;
	assert_int_equal(rl_limit_allow_at(l, 5, &d), RL_REJECTED);
	assert_int_equal(d.retry_after_ns, RL_MS(100));
	assert_int_equal(rl_limit_allow_at(l, 5 + RL_MS(100) - 1, NULL), RL_REJECTED);
	assert_int_equal(rl_limit_allow_at(l, 5 + RL_MS(100), NULL), RL_ALLOWED);
	rl_limit_free(l);
}

static void test_durations(void **unused)
{
	(void)unused;
	assert_int_equal(RL_NS(7), 7);
	assert_int_equal(RL_US(7), 7000);
	assert_int_equal(RL_MS(7), 7000000);
	assert_int_equal(RL_S(7), 7000000000LL);
	assert_int_equal(RL_M(2), 120000000000LL);
	assert_int_equal(RL_H(2), 7200000000000LL);
	assert_int_equal(RL_H(277777), 999997200000000000LL); /* near RL_WINDOW_MAX_NS: no overflow */
}

/* Every answer and every verdict alone is the plain limiter's on a state of its own, for every algorithm. */
static void test_matches_limiter(void **unused)
{
	(void)unused;
	size_t n;
	const struct rl_algo *const *algos = rl_algo_all(&n);

	for (size_t a = 0; a < n; a++) {
		uint64_t x = seed + a;
		int64_t limit = 1 + (int64_t)(next_rand(&x) % 20);
		int64_t window = 1 + (int64_t)(next_rand(&x) % 1000);
		int64_t burst = algos[a]->uses_burst ? 1 + (int64_t)(next_rand(&x) % 30) : 0;
		struct rl_rule rule = { limit, window, burst ? burst : limit };
		struct rl_limiter lim;
		_Alignas(16) unsigned char state[RL_STORE_MAX_STATE] = { 0 };
		_Alignas(16) unsigned char kstate[RL_STORE_MAX_STATE] = { 0 };
		struct rl_limit *l = rl_limit_new(algos[a]->name, limit, window, burst);
		int64_t t = 0;

		assert_non_null(l);
		assert_int_equal(rl_limiter_init(&lim, algos[a], &rule, NULL, 0), RL_OK);
		for (int i = 0; i < 3000; i++) {
			struct rl_decision got = { 0 }, want = { 0 }, kgot = { 0 }, kwant = { 0 };
			t += (int64_t)(next_rand(&x) % (uint64_t)(2 * window / limit + 2));
			int64_t when = next_rand(&x) % 8 == 0 && t > 5 ? t - 5 : t; /* some go back */
			bool answer = next_rand(&x) % 2; /* else a verdict alone: its own routes */
			int rg = rl_limit_allow_at(l, when, answer ? &got : NULL);
			int rw = rl_limiter_check(&lim, state, when, answer ? &want : NULL);
			int kg = rl_limit_allow_key_at(l, "key", 3, when, answer ? &kgot : NULL);
			int kw = rl_limiter_check(&lim, kstate, when, answer ? &kwant : NULL);

			if (rg != rw || memcmp(&got, &want, sizeof(got)) != 0 || kg != kw ||
			    memcmp(&kgot, &kwant, sizeof(kgot)) != 0)
				fail_msg("seed %llu %s request %d at %lld: got %d/%d, want %d/%d",
					 (unsigned long long)seed, algos[a]->name, i, (long long)when, rg,
					 kg, rw, kw);
		}
		rl_limiter_release(&lim, state);
		rl_limiter_release(&lim, kstate);
		rl_limit_free(l);
	}
}

static void test_keys_have_own_quota(void **unused)
{
	(void)unused;
	struct rl_limit *l = rl_limit_new("fixed_window", 2, RL_M(1), 0);

	assert_int_equal(rl_limit_allow_key_at(l, "alice", 5, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_limit_allow_key_at(l, "alice", 5, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_limit_allow_key_at(l, "alice", 5, 0, NULL), RL_REJECTED);
	assert_int_equal(rl_limit_allow_key_at(l, "bob", 3, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_limit_allow_key_at(l, "", 0, 0, NULL), RL_ALLOWED); /* the empty key */
	assert_int_equal(rl_limit_allow_key_at(l, NULL, 0, 0, NULL), RL_ALLOWED); /* the same key */
	assert_int_equal(rl_limit_allow_key_at(l, "", 0, 0, NULL), RL_REJECTED);
	/* The unnamed key is none of them. */
	assert_int_equal(rl_limit_allow_at(l, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_limit_allow_at(l, 0, NULL), RL_ALLOWED);
	assert_int_equal(rl_limit_allow_at(l, 0, NULL), RL_REJECTED);
	/* Window boundary: [0, 1 min) then the next window. */
	assert_int_equal(rl_limit_allow_key_at(l, "alice", 5, RL_M(1) - 1, NULL), RL_REJECTED);
	assert_int_equal(rl_limit_allow_key_at(l, "alice", 5, RL_M(1), NULL), RL_ALLOWED);
	rl_limit_free(l);
}

/* The clock form: a bucket of 5 refilled once an hour admits 5 of 8 calls. */
static void test_clock_forms(void **unused)
{
	(void)unused;
	struct rl_limit *l = rl_limit_new("sliding_log", 5, RL_H(1), 0);
	int n = 0, k = 0;

	for (int i = 0; i < 8; i++) {
		n += rl_limit_allow(l);
		k += rl_limit_allow_key(l, "k", 1);
	}
	assert_int_equal(n, 5);
	assert_int_equal(k, 5);
	rl_limit_free(l); /* the sliding logs' rings are freed (the ASan build checks) */

	int64_t a = rl_now_ns(), b = rl_now_ns();
	assert_true(a >= 0 && b >= a && b <= RL_TIME_MAX_NS);
}

static void test_version(void **unused)
{
	(void)unused;
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", RATELAB_VERSION_MAJOR, RATELAB_VERSION_MINOR,
		 RATELAB_VERSION_PATCH);
	assert_string_equal(rl_version(), want);
	assert_string_equal(RATELAB_VERSION_STRING, want);
	assert_int_equal(RATELAB_VERSION_NUMBER, RATELAB_VERSION_MAJOR * 10000 +
							 RATELAB_VERSION_MINOR * 100 +
							 RATELAB_VERSION_PATCH);
}

int main(void)
{
	const char *env = getenv("RL_SEED");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_arguments),   cmocka_unit_test(test_burst_default),
		cmocka_unit_test(test_durations),       cmocka_unit_test(test_matches_limiter),
		cmocka_unit_test(test_keys_have_own_quota), cmocka_unit_test(test_clock_forms),
		cmocka_unit_test(test_version),
	};

	if (env)
		seed = strtoull(env, NULL, 10);
	printf("test_limit: seed %llu\n", (unsigned long long)seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
