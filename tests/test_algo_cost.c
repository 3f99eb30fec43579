/*
 * test_algo_cost.c - weighted requests (a cost in units per request), with
 * hand-worked expectations: a cost of B passes a full bucket and B + 1
 * never passes (retry_after_ns saturated, nothing admitted); a cost of N
 * passes an empty window and N + 1 never; the request taking a window's
 * last unit passes and one unit more does not; retry_after_ns is exact for
 * costs above 1 (rejected at t + d - 1, admitted at t + d); no overflow at
 * the extremes N = 10^6, W = 10^18, c = 10^9; a cost that can never be
 * admitted changes no state; a cost outside [1, RL_COST_MAX] is RL_EINVAL
 * and changes no state; and the store and the
 * registry pass the cost through. The random-trace properties for costs
 * are in test_algo_props.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ratelab/algo.h"
#include "ratelab/registry.h"
#include "ratelab/sliding_log.h"
#include "ratelab/store.h"
#include "gcra_ops.h"
#include "limiter_fixture.h"

#define E18 1000000000000000000LL
#define TMAX RL_TIME_MAX_NS
#define NEVER RL_DURATION_MAX_NS
#define SKIP INT64_MIN /* an answer field not checked */

static const char *const all[] = { "token_bucket", "gcra",	  "leaky_bucket",
				   "fixed_window", "sliding_log", "sliding_counter" };

/* One limiter and one key's state. */

static struct rl_decision last_d;

static void expect_field(const char *what, const struct fx *f, int64_t t, int64_t c, int64_t got,
			 int64_t want)
{
	if (want != SKIP && got != want)
		fail_msg("%s at t=%lld cost %lld (N=%lld W=%lld B=%lld): %s = %lld, expected %lld",
			 f->lim.algo->name, (long long)t, (long long)c, (long long)f->lim.rule.limit,
			 (long long)f->lim.rule.window_ns, (long long)f->lim.rule.burst, what,
			 (long long)got, (long long)want);
}

/* A request of cost c at t must get the verdict and answers given (SKIP: not checked). */
static void expect(struct fx *f, int64_t t, int64_t c, int verdict, int64_t rem, int64_t retry,
		   int64_t reset)
{
	memset(&last_d, 0x5a, sizeof(last_d));
	int v = rl_limiter_check_n(&f->lim, f->st, t, c, &last_d);

	expect_field("verdict", f, t, c, v, verdict);
	expect_field("remaining", f, t, c, last_d.remaining, rem);
	expect_field("retry_after_ns", f, t, c, last_d.retry_after_ns, retry);
	expect_field("reset_ns", f, t, c, last_d.reset_ns, reset);
}

/* ------------------------------------------------------------------ */
/* The largest admissible cost and one past it.                        */

static void bucket_cost_b_and_b_plus_1(void **u)
{
	(void)u;
	struct fx f;
	/* 4 per 1000 ns (T = 250 ns), B = 5 */
	static const char *const buckets[] = { "token_bucket", "gcra", "leaky_bucket" };
	for (int i = 0; i < 3; i++) {
		fx_init(&f, buckets[i], 4, 1000, 5);
		int leaky = i == 2;
		/* c = B from a full bucket (an idle queue): admitted; 5 units take 1250 ns
		 * to drain; leaky_bucket still has its one unit in service to give */
		expect(&f, 0, 5, 1, leaky ? 1 : 0, 0, 1250);
		fx_reset(&f);
		/* c = B + 1: never, nothing taken (a full quota stays full) */
		expect(&f, 0, 6, 0, leaky ? 6 : 5, NEVER, 0);
		expect(&f, 7, 6, 0, leaky ? 6 : 5, NEVER, 0);
		expect(&f, 7, 5, 1, leaky ? 1 : 0, 0, 1250);
		/* and later, as often as it is tried */
		expect(&f, 5 * E18 / 2, RL_COST_MAX, 0, leaky ? 6 : 5, NEVER, 0);
		fx_free(&f);
	}

	/* leaky_bucket: B + 1 cost-1 requests pass an idle queue, the last
	 * waiting B * W / N, though one request of cost B + 1 never does */
	fx_init(&f, "leaky_bucket", 4, 1000, 5);
	expect(&f, 0, 5, 1, 1, 0, 1250);
	memset(&last_d, 0, sizeof(last_d));
	assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 0, 1, &last_d), 1);
	assert_int_equal(last_d.delay_ns, 1250);
	expect(&f, 0, 1, 0, 0, 250, 1500);
	fx_free(&f);
}

static void window_cost_n_and_last_unit(void **u)
{
	(void)u;
	struct fx f;
	static const char *const windows[] = { "fixed_window", "sliding_log", "sliding_counter" };
	for (int i = 0; i < 3; i++) {
		/* sliding_counter: in the next window the 3 (or 5) units weigh
		 * 3 * (100 - e) (5 * (100 - e)): 2 more (any unit) fit at e = 1,
		 * and the weight falls below one unit at e = 67 (e = 81) */
		int sc = i == 2;
		int64_t retry = sc ? 101 : 100, reset3 = sc ? 167 : 100, reset5 = sc ? 181 : 100;
		/* 5 per 100 ns, at t = 0 (the start of a fixed window) */
		fx_init(&f, windows[i], 5, 100, 5);
		expect(&f, 0, 5, 1, 0, 0, reset5); /* c = N into an empty window */
		fx_reset(&f);
		expect(&f, 0, 6, 0, 5, NEVER, 0); /* c = N + 1: never */
		expect(&f, 0, 3, 1, 2, 0, reset3);
		expect(&f, 0, 3, 0, 2, retry, reset3); /* one unit too many */
		expect(&f, 0, 2, 1, 0, 0, reset5);     /* exactly the window's last unit */
		expect(&f, 0, 1, 0, 0, retry, reset5);
		expect(&f, 0, 6, 0, 0, NEVER, reset5);
		fx_free(&f);
	}
}

/* ------------------------------------------------------------------ */
/* retry_after_ns for a cost above 1: rejected at t + d - 1, admitted at t + d. */

struct req {
	int64_t t, c;
};

/*
 * Replays trace on a fresh key; its last request must be rejected with
 * retry_after_ns == d. Then, each on a fresh replay, the same request at
 * t + d - 1 is rejected and at t + d admitted.
 */
static void retry_exact(const char *algo, int64_t n, int64_t w, int64_t b, const struct req *trace,
			int len, int64_t d)
{
	struct fx f;
	const struct req *last = &trace[len - 1];

	fx_init(&f, algo, n, w, b);
	for (int probe = 0; probe < 3; probe++) {
		fx_reset(&f);
		for (int i = 0; i < len - 1; i++)
			assert_int_equal(rl_limiter_check_n(&f.lim, f.st, trace[i].t, trace[i].c, NULL),
					 RL_ALLOWED);
		if (probe == 0)
			expect(&f, last->t, last->c, 0, SKIP, d, SKIP);
		else
			expect(&f, last->t + d - (probe == 1), last->c, probe == 2, SKIP, SKIP, SKIP);
	}
	fx_free(&f);
}

static void retry_after_exact_for_costs(void **u)
{
	(void)u;
	/* 3 per 999 ns (333 ns a token), B = 3: 2 taken, 1 left, 2 wanted */
	const struct req tb[] = { { 0, 2 }, { 0, 2 } };
	retry_exact("token_bucket", 3, 999, 3, tb, 2, 333);
	retry_exact("gcra", 3, 999, 3, tb, 2, 333);
	/* an idle queue takes 3 units at 0 (the last waits 666 ns); 2 more fit
	 * once one unit has been served */
	const struct req lb[] = { { 0, 3 }, { 0, 2 } };
	retry_exact("leaky_bucket", 3, 999, 3, lb, 2, 333);
	/* 5 per 100 ns: 3 at 10, 3 more only in the next window, at 100 */
	const struct req fw[] = { { 10, 3 }, { 50, 3 } };
	retry_exact("fixed_window", 5, 100, 5, fw, 2, 50);
	/* 2 at 10, 2 at 20: 2 more at 30 fit once the run at 10 leaves, at 110 */
	const struct req sl[] = { { 10, 2 }, { 20, 2 }, { 30, 2 } };
	retry_exact("sliding_log", 5, 100, 5, sl, 3, 80);
	/* 4 per 100: 4 at 90; at 110, 2 fit once 4 * (100 - e) + 100 < 400: e = 26 */
	const struct req sc[] = { { 90, 4 }, { 110, 2 } };
	retry_exact("sliding_counter", 4, 100, 4, sc, 2, 16);
	/* 4 fit at 110 too, once 4 * (100 - e) + 300 < 400: e = 76 */
	const struct req sc2[] = { { 90, 4 }, { 110, 4 } };
	retry_exact("sliding_counter", 4, 100, 4, sc2, 2, 66);
	/* 2 at 150 leave no room for 3 in this window; in the next, once
	 * 2 * (100 - e) + 200 < 400: e = 1, t = 201 */
	const struct req sc3[] = { { 90, 4 }, { 150, 2 }, { 150, 3 } };
	retry_exact("sliding_counter", 4, 100, 4, sc3, 3, 51);
}

/* ------------------------------------------------------------------ */
/* The range extremes: N = B = c = 10^12, W = 10^18 ns.               */

static void extremes(void **u)
{
	(void)u;
	struct fx f;
	const int64_t n = RL_LIMIT_MAX, w = RL_WINDOW_MAX_NS, b = RL_BURST_MAX, c = RL_COST_MAX;
	const int64_t half = E18 / 2, t1 = 1000000; /* W / N = 10^6 ns a unit */

	/* token_bucket and gcra (T = 10^6 ns, tau below the horizon: the same
	 * decisions): all 10^12 units at once; refilling them takes 10^18 ns */
	for (int i = 0; i < 2; i++) {
		fx_init(&f, i ? "gcra" : "token_bucket", n, w, b);
		expect(&f, 0, c, 1, 0, 0, E18);
		expect(&f, half, c, 0, 500000000000LL, half, half); /* 5 * 10^11 back */
		expect(&f, half, 500000000000LL, 1, 0, 0, E18);
		expect(&f, half, 1, 0, 0, t1, E18); /* one unit per 10^6 ns */
		fx_reset(&f);
		expect(&f, TMAX, c, 1, 0, 0, E18);
		expect(&f, TMAX, 1, 0, 0, t1, E18);
		fx_free(&f);
	}

	/* gcra at T = 10^18 ns: tau is capped at the horizon (gcra.h), so the
	 * most one request can take is floor(tau / T) + 1 = 5 units */
	fx_init(&f, "gcra", 1, w, b);
	int64_t tol = rl__gcra_priv(&f.lim)->tolerance_ns, t = rl__gcra_priv(&f.lim)->emission_ns;
	assert_int_equal(t, E18);
	assert_int_equal(tol / t + 1, 5);
	expect(&f, TMAX, 6, 0, 5, NEVER, 0);
	expect(&f, TMAX, c, 0, 5, NEVER, 0);
	expect(&f, TMAX, 5, 1, 0, 0, 5 * t);
	/* the TAT sits at TMAX + 5 * T <= INT64_MAX: no overflow */
	expect(&f, TMAX, 1, 0, 0, 5 * t - tol, 5 * t);
	fx_free(&f);

	/* leaky_bucket: c = B from an idle queue (its last unit waits
	 * (B - 1) * W / N); then one unit more waits B * W / N = 10^18 ns */
	fx_init(&f, "leaky_bucket", n, w, b);
	expect(&f, 0, c, 1, 1, 0, SKIP);
	memset(&last_d, 0, sizeof(last_d));
	assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 0, 1, &last_d), 1);
	assert_int_equal(last_d.delay_ns, E18);
	expect(&f, 0, 1, 0, 0, t1, SKIP);
	fx_free(&f);

	/* the windows at N = 10^12 - 1: N units in one request, and
	 * c = 10^12 = N + 1 never */
	const int64_t nw = n - 1;
	fx_init(&f, "fixed_window", nw, w, nw);
	expect(&f, TMAX, c, 0, nw, NEVER, 0);
	expect(&f, TMAX, nw, 1, 0, 0, w);
	expect(&f, TMAX, 1, 0, 0, w, w);
	fx_free(&f);
	fx_init(&f, "sliding_log", nw, w, nw);
	expect(&f, 0, nw - 1, 1, 1, 0, w);
	expect(&f, 1, 2, 0, 1, w - 1, w - 1); /* the run at 0 must leave first */
	expect(&f, 1, 1, 1, 0, 0, w);
	expect(&f, TMAX, c, 0, nw, NEVER, 0);
	expect(&f, TMAX, nw, 1, 0, 0, w);
	assert_true(rl_sliding_log_heap_bytes(f.st) <= 4 * 16); /* one run of 10^12 - 1 units */
	fx_free(&f);
	fx_init(&f, "sliding_counter", nw, w, nw);
	expect(&f, w - 1, nw, 1, 0, 0, SKIP);
	/* at W the previous window weighs N * W: one unit fits at W + 1 */
	expect(&f, w, 1, 0, 0, 1, SKIP);
	expect(&f, w, c, 0, 0, NEVER, SKIP);
	expect(&f, w + 1, 1, 1, 0, 0, SKIP);
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Invalid costs: RL_EINVAL, no state change.                          */

static void invalid_cost(void **u)
{
	(void)u;
	static const int64_t bad[] = { 0, -1, RL_COST_MAX + 1, INT64_MIN, INT64_MAX };
	unsigned char before[64];

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct fx f;
		fx_init(&f, all[i], 3, 1000, 3);
		assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 5, 2, NULL), RL_ALLOWED);
		size_t size = f.lim.algo->state_size;
		memcpy(before, f.st, size);
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			struct rl_decision d = { -7, -7, -7, -7 };
			assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 10, bad[k], &d), RL_EINVAL);
			assert_int_equal(f.lim.algo->check(&f.lim, f.st, 10, bad[k], NULL), RL_EINVAL);
			assert_memory_equal(before, f.st, size);
			assert_int_equal(d.remaining, -7); /* no answer written */
		}
		/* the largest valid cost is valid */
		assert_true(rl_limiter_check_n(&f.lim, f.st, 10, RL_COST_MAX, NULL) == RL_REJECTED);
		assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 10, 1, NULL), RL_ALLOWED);
		fx_free(&f);
	}
}

/* A cost that can never be admitted leaves the state exactly as it was:
 * not even the last seen time moves, so a later request with an earlier
 * time is not clamped to it. */
static void never_cost_changes_nothing(void **u)
{
	(void)u;
	unsigned char before[64];

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct fx f;
		fx_init(&f, all[i], 3, 1000, 3);
		assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 5, 2, NULL), RL_ALLOWED);
		size_t size = f.lim.algo->state_size;
		memcpy(before, f.st, size);
		/* 3 units pass a full bucket or an empty window, 4 never do */
		expect(&f, 1999, 4, 0, SKIP, NEVER, SKIP);
		assert_memory_equal(before, f.st, size);
		assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 1999, RL_COST_MAX, NULL), RL_REJECTED);
		assert_memory_equal(before, f.st, size);
		/* a time before 1999 is still decided at its own time */
		struct rl_decision d;
		assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 6, 1, &d), RL_ALLOWED);
		/* at 1999 the units at 5 would have left the window */
		if (strcmp(all[i], "sliding_log") == 0)
			assert_int_equal(d.remaining, 0);
		if (strcmp(all[i], "fixed_window") == 0)
			assert_int_equal(d.reset_ns, 994); /* window [0, 1000), not [1000, 2000) */
		fx_free(&f);
	}
}

/* ------------------------------------------------------------------ */
/* The store and the registry pass the cost through.                   */

static void store_check_n(void **u)
{
	(void)u;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct rl_limiter lim;
		struct rl_rule rule = { 10, 1000, 10 };
		struct rl_store *s = NULL;
		struct rl_store_stats st;
		struct rl_decision d;

		assert_int_equal(rl_limiter_init(&lim, rl_algo_find(all[i]), &rule, NULL, 0), RL_OK);
		struct rl_store_config cfg = { .limiter = &lim, .max_keys = 4, .when_full = RL_FULL_EVICT };
		assert_int_equal(rl_store_create(&s, &cfg), RL_OK);
		/* a bad cost stores nothing */
		assert_int_equal(rl_store_check_n(s, "k", 1, 0, 0, &d), RL_EINVAL);
		assert_int_equal(rl_store_check_n(s, "k", 1, 0, RL_COST_MAX + 1, &d), RL_EINVAL);
		rl_store_stats(s, &st);
		assert_int_equal(st.keys, 0);
		/* 10 units (leaky_bucket: 11, one in service): 7, then the
		 * rest in one request, then not even 1 */
		int64_t cap = i == 2 ? 11 : 10;
		assert_int_equal(rl_store_check_n(s, "k", 1, 0, 7, &d), RL_ALLOWED);
		assert_int_equal(d.remaining, cap - 7);
		assert_int_equal(rl_store_check_n(s, "k", 1, 0, cap - 6, &d), RL_REJECTED);
		assert_int_equal(d.remaining, cap - 7);
		assert_int_equal(rl_store_check_n(s, "k", 1, 0, cap - 7, &d), RL_ALLOWED);
		assert_int_equal(d.remaining, 0);
		assert_int_equal(rl_store_check(s, "k", 1, 0, &d), RL_REJECTED);
		/* another key is fresh; 11 units never pass */
		assert_int_equal(rl_store_check_n(s, "j", 1, 0, 11, &d), RL_REJECTED);
		assert_int_equal(d.retry_after_ns, NEVER);
		assert_int_equal(d.remaining, i == 2 ? 11 : 10); /* leaky: B + 1 units of 1 */
		rl_store_destroy(s);
	}
}

static void registry_check_n(void **u)
{
	(void)u;
	char path[] = "/tmp/rl_cost_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char ini[] = "[tier tokens]\n"
				  "algorithm = sliding_log\n"
				  "limit = 1000\n"
				  "window = 1m\n"
				  "[tier internal]\n"
				  "unlimited = true\n"
				  "[clients]\n"
				  "internal = ops\n"
				  "[defaults]\n"
				  "tier = tokens\n";
	assert_int_equal(write(fd, ini, sizeof(ini) - 1), (ssize_t)(sizeof(ini) - 1));
	close(fd);

	struct rl_registry *r = NULL;
	struct rl_answer a;
	char err[256];
	assert_int_equal(rl_registry_load(&r, path, err, sizeof(err)), RL_OK);
	unlink(path);

	/* an LLM API: 1000 tokens per minute, each request costs its tokens */
	assert_int_equal(rl_registry_check_n(r, "alice", 5, 0, 600, &a), RL_ALLOWED);
	assert_int_equal(a.d.remaining, 400);
	assert_int_equal(rl_registry_check_n(r, "alice", 5, 1000, 401, &a), RL_REJECTED);
	assert_int_equal(a.verdict, RL_REJECTED);
	assert_int_equal(a.d.retry_after_ns, 60000000000LL - 1000); /* when the 600 leave */
	assert_int_equal(rl_registry_check_n(r, "alice", 5, 1000, 400, &a), RL_ALLOWED);
	assert_int_equal(rl_registry_check_n(r, "alice", 5, 1000, 1001, &a), RL_REJECTED);
	assert_int_equal(a.d.retry_after_ns, NEVER);
	assert_int_equal(rl_registry_check_n(r, "alice", 5, 0, 0, &a), RL_EINVAL);
	/* an unlimited tier admits any valid cost, and refuses invalid ones */
	assert_int_equal(rl_registry_check_n(r, "ops", 3, 0, RL_COST_MAX, &a), RL_ALLOWED);
	assert_int_equal(rl_registry_check_n(r, "ops", 3, 0, -5, &a), RL_EINVAL);
	rl_registry_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bucket_cost_b_and_b_plus_1),
		cmocka_unit_test(window_cost_n_and_last_unit),
		cmocka_unit_test(retry_after_exact_for_costs),
		cmocka_unit_test(extremes),
		cmocka_unit_test(invalid_cost),
		cmocka_unit_test(never_cost_changes_nothing),
		cmocka_unit_test(store_check_n),
		cmocka_unit_test(registry_check_n),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
