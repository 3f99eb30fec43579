/*
 * test_algo_bounds.c - boundary tests for every algorithm, with hand-worked
 * expectations: exactly at the limit and one past it, window edges (start
 * inclusive, end exclusive; sliding_log's exclusive t - W edge), refill at
 * exactly W/N ns, retry_after exactness, time going backwards, the range
 * extremes (no overflow, exact answers, saturation, gcra's documented debt
 * horizon), rule validation, RL_ERANGE, sliding_log's memory, and the
 * pinned state sizes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "level_ops.h"
#include "ratelab/algo.h"
#include "ratelab/fixed_window.h"
#include "ratelab/gcra.h"
#include "ratelab/leaky_bucket.h"
#include "ratelab/level.h"
#include "ratelab/runlog.h"
#include "ratelab/sliding_counter.h"
#include "ratelab/sliding_log.h"
#include "ratelab/token_bucket.h"
#include "limiter_fixture.h"
#include "test_rng.h"

#define E18 1000000000000000000LL
#define TMAX RL_TIME_MAX_NS
#define SKIP INT64_MIN /* an answer field not checked */

/* The sizes the headers promise, pinned here too (a test of the tests' view). */
_Static_assert(sizeof(struct rl_level) == 24, "token_bucket/leaky_bucket state is 24 bytes");
_Static_assert(sizeof(struct rl_gcra) == 24, "gcra state is 24 bytes");
_Static_assert(sizeof(struct rl_fixed_window) == 24, "fixed_window state is 24 bytes");
_Static_assert(sizeof(struct rl_sliding_counter) == 32, "sliding_counter state is 32 bytes");
_Static_assert(sizeof(struct rl_sliding_log) == 40, "sliding_log state is 40 bytes + its log");
_Static_assert(sizeof(struct rl_runlog) == 32, "a run log is 32 bytes");
_Static_assert(sizeof(struct rl_run) == 16, "a run is 16 bytes");
_Static_assert(sizeof(struct rl_decision) == 32, "a decision is four int64");
_Static_assert(sizeof(rl__u128) == 16, "128-bit arithmetic is available");


static struct rl_decision last_d;

static int at(struct fx *f, int64_t t)
{
	memset(&last_d, 0x5a, sizeof(last_d));
	return rl_limiter_check(&f->lim, f->st, t, &last_d);
}

/* A request at t must get the verdict and answers given (SKIP: not checked). */
#define EXPECT(f, t, verdict, rem, retry, reset)                                           \
	do {                                                                               \
		int v_ = at((f), (t));                                                     \
		if (v_ != (verdict))                                                       \
			fail_msg("%s at t=%lld: verdict %d, expected %d", (f)->lim.algo->name, \
				 (long long)(t), v_, (int)(verdict));                      \
		expect_field("remaining", (f), (t), last_d.remaining, (rem));              \
		expect_field("retry_after_ns", (f), (t), last_d.retry_after_ns, (retry));  \
		expect_field("reset_ns", (f), (t), last_d.reset_ns, (reset));              \
	} while (0)

static void expect_field(const char *what, struct fx *f, int64_t t, int64_t got, int64_t want)
{
	if (want != SKIP && got != want)
		fail_msg("%s at t=%lld (N=%lld W=%lld B=%lld): %s = %lld, expected %lld",
			 f->lim.algo->name, (long long)t, (long long)f->lim.rule.limit,
			 (long long)f->lim.rule.window_ns, (long long)f->lim.rule.burst, what,
			 (long long)got, (long long)want);
}

/* ------------------------------------------------------------------ */
/* Exactly at the limit, one past it, and when it comes back.          */

static void token_bucket_limit(void **u)
{
	(void)u;
	struct fx f;
	/* 3 per 999 ns: one token per 333 ns; B = 3 */
	fx_init(&f, "token_bucket", 3, 999, 3);
	EXPECT(&f, 0, 1, 2, 0, 333);
	EXPECT(&f, 0, 1, 1, 0, 666);
	EXPECT(&f, 0, 1, 0, 0, 999); /* the Bth */
	EXPECT(&f, 0, 0, 0, 333, 999); /* one past it */
	EXPECT(&f, 332, 0, 0, 1, 667);
	EXPECT(&f, 333, 1, 0, 0, 999); /* refilled one token at exactly W/N */
	EXPECT(&f, 333, 0, 0, 333, 999);
	EXPECT(&f, 5000, 1, 2, 0, 333); /* capped at B, not more */
	fx_free(&f);
}

static void gcra_limit(void **u)
{
	(void)u;
	struct fx f;
	/* N divides W: the same answers as token_bucket's */
	fx_init(&f, "gcra", 3, 999, 3);
	EXPECT(&f, 0, 1, 2, 0, 333);
	EXPECT(&f, 0, 1, 1, 0, 666);
	EXPECT(&f, 0, 1, 0, 0, 999);
	EXPECT(&f, 0, 0, 0, 333, 999);
	EXPECT(&f, 332, 0, 0, 1, 667);
	EXPECT(&f, 333, 1, 0, 0, 999);
	EXPECT(&f, 333, 0, 0, 333, 999);
	EXPECT(&f, 5000, 1, 2, 0, 333);
	fx_free(&f);
}

static void leaky_bucket_limit(void **u)
{
	(void)u;
	struct fx f;
	/* 3 per 999 ns: served one per 333 ns; at most B = 3 wait behind the
	 * one in service, so B + 1 = 4 pass at one instant */
	fx_init(&f, "leaky_bucket", 3, 999, 3);
	int64_t delays[] = { 0, 333, 666, 999 };
	for (int i = 0; i < 4; i++) {
		EXPECT(&f, 0, 1, 3 - i, 0, 333 * (i + 1));
		assert_int_equal(last_d.delay_ns, delays[i]);
	}
	EXPECT(&f, 0, 0, 0, 333, 1332); /* the B + 2nd */
	assert_int_equal(last_d.delay_ns, 0);
	EXPECT(&f, 332, 0, 0, 1, 1000);
	EXPECT(&f, 333, 1, 0, 0, 1332); /* waits exactly B * W / N */
	assert_int_equal(last_d.delay_ns, 999);
	EXPECT(&f, 10000, 1, 3, 0, 333); /* idle queue: served at once */
	assert_int_equal(last_d.delay_ns, 0);
	fx_free(&f);

	/* the brief's shape: N = 4, W = 1000, B = 2: 3 pass (0, 250, 500) */
	fx_init(&f, "leaky_bucket", 4, 1000, 2);
	EXPECT(&f, 0, 1, 2, 0, 250);
	EXPECT(&f, 0, 1, 1, 0, 500);
	EXPECT(&f, 0, 1, 0, 0, 750);
	assert_int_equal(last_d.delay_ns, 500);
	EXPECT(&f, 0, 0, 0, 250, 750);
	EXPECT(&f, 250, 1, 0, 0, 750);
	assert_int_equal(last_d.delay_ns, 500);
	fx_free(&f);
}

static void fixed_window_limit(void **u)
{
	(void)u;
	struct fx f;
	fx_init(&f, "fixed_window", 3, 1000, 3);
	EXPECT(&f, 500, 1, 2, 0, 500);
	EXPECT(&f, 500, 1, 1, 0, 500);
	EXPECT(&f, 600, 1, 0, 0, 400); /* the Nth */
	EXPECT(&f, 600, 0, 0, 400, 400); /* the N+1st */
	EXPECT(&f, 999, 0, 0, 1, 1); /* the window's last ns is still in it */
	EXPECT(&f, 1000, 1, 2, 0, 1000); /* a new window starts at exactly kW */
	fx_free(&f);

	/* windows are aligned at multiples of W, not at the first request */
	fx_init(&f, "fixed_window", 1, 1000, 1);
	EXPECT(&f, 999, 1, 0, 0, 1);
	EXPECT(&f, 1000, 1, 0, 0, 1000);
	EXPECT(&f, 1999, 0, 0, 1, 1);
	EXPECT(&f, 2000, 1, 0, 0, 1000);
	fx_free(&f);
}

static void sliding_log_limit(void **u)
{
	(void)u;
	struct fx f;
	fx_init(&f, "sliding_log", 3, 1000, 3);
	EXPECT(&f, 500, 1, 2, 0, 1000);
	EXPECT(&f, 700, 1, 1, 0, 1000);
	EXPECT(&f, 700, 1, 0, 0, 1000); /* the Nth */
	EXPECT(&f, 700, 0, 0, 800, 1000); /* the N+1st: 500 leaves the window at 1500 */
	EXPECT(&f, 1499, 0, 0, 1, 201); /* 1499 - 1000 < 500: still inside */
	EXPECT(&f, 1500, 1, 0, 0, 1000); /* 1500 - 1000 < 500 is false: out */
	EXPECT(&f, 1500, 0, 0, 200, 1000);
	EXPECT(&f, 1700, 1, 1, 0, 1000); /* both 700s left together */
	fx_free(&f);

	/* the exclusive edge at t - W, with W = 10 */
	fx_init(&f, "sliding_log", 1, 10, 1);
	EXPECT(&f, 5, 1, 0, 0, 10);
	EXPECT(&f, 14, 0, 0, 1, 1);
	EXPECT(&f, 15, 1, 0, 0, 10);
	fx_free(&f);
}

static void sliding_counter_limit(void **u)
{
	(void)u;
	struct fx f;
	/* N = 3 per 1000: prev * (1000 - e) + curr * 1000 < 3000 */
	fx_init(&f, "sliding_counter", 3, 1000, 3);
	EXPECT(&f, 500, 1, 2, 0, SKIP);
	EXPECT(&f, 500, 1, 1, 0, SKIP);
	EXPECT(&f, 500, 1, 0, 0, SKIP); /* the Nth */
	/* the N+1st: no room in this window (curr = N); in the next, prev = 3
	 * weighs 3 * (1000 - e) < 3000 from e = 1, i.e. t = 1001 */
	EXPECT(&f, 500, 0, 0, 501, SKIP);
	EXPECT(&f, 999, 0, 0, 2, SKIP);
	EXPECT(&f, 1000, 0, 0, 1, SKIP); /* 3 * 1000 = 3000: not < 3000 */
	EXPECT(&f, 1001, 1, 0, 0, SKIP); /* 3 * 999 = 2997 < 3000 */
	/* now prev = 3, curr = 1: 2997 + 1000 >= 3000 until
	 * 3 * (1000 - e) + 1000 < 3000, e >= 334 */
	EXPECT(&f, 1001, 0, 0, 333, SKIP);
	EXPECT(&f, 1333, 0, 0, 1, SKIP);
	EXPECT(&f, 1334, 1, 0, 0, SKIP);
	fx_free(&f);

	/* N = 2 per 10: two at 9, then at 10 prev = 2 weighs 20 */
	fx_init(&f, "sliding_counter", 2, 10, 2);
	EXPECT(&f, 9, 1, 1, 0, SKIP);
	EXPECT(&f, 9, 1, 0, 0, SKIP);
	/* full quota back once the weighted count is below one request:
	 * window 1, 2 * (10 - e) < 10 from e = 6, t = 16 */
	assert_int_equal(last_d.reset_ns, 7);
	EXPECT(&f, 10, 0, 0, 1, 6);
	EXPECT(&f, 11, 1, 0, 0, SKIP); /* 2 * 9 = 18 < 20 */
	fx_free(&f);

	/* the previous window counts only if it is the one just before */
	fx_init(&f, "sliding_counter", 1, 10, 1);
	EXPECT(&f, 5, 1, 0, 0, SKIP);
	EXPECT(&f, 20, 1, 0, 0, SKIP); /* window 2: window 1 had nothing */
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Refill at exactly W/N, N not dividing W, gcra's rounding.           */

static void refill_exactly_w_over_n(void **u)
{
	(void)u;
	const char *algos[] = { "token_bucket", "gcra" };
	for (int i = 0; i < 2; i++) {
		struct fx f;
		fx_init(&f, algos[i], 4, 1000, 1);
		EXPECT(&f, 0, 1, 0, 0, 250);
		EXPECT(&f, 0, 0, 0, 250, 250);
		EXPECT(&f, 249, 0, 0, 1, 1);
		EXPECT(&f, 250, 1, 0, 0, 250);
		EXPECT(&f, 499, 0, 0, 1, 1);
		EXPECT(&f, 500, 1, 0, 0, 250);
		fx_free(&f);
	}
}

static void token_bucket_not_dividing(void **u)
{
	(void)u;
	struct fx f;
	/* 3 per 1000 ns, B = 1: a token every 333.33 ns, capped at one */
	fx_init(&f, "token_bucket", 3, 1000, 1);
	EXPECT(&f, 0, 1, 0, 0, 334);
	EXPECT(&f, 0, 0, 0, 334, 334);
	EXPECT(&f, 333, 0, 0, 1, 1); /* 0.999 tokens */
	EXPECT(&f, 334, 1, 0, 0, 334); /* 1.002 capped at B = 1; none left */
	EXPECT(&f, 667, 0, 0, 1, 1); /* 0.999 tokens */
	EXPECT(&f, 668, 1, 0, 0, 334);
	fx_free(&f);

	/* B = 2 keeps the fractions: nothing is lost to rounding */
	fx_init(&f, "token_bucket", 3, 1000, 2);
	EXPECT(&f, 0, 1, 1, 0, 334);
	EXPECT(&f, 0, 1, 0, 0, 667); /* 2 tokens in 666.67 ns */
	EXPECT(&f, 334, 1, 0, 0, 666); /* 1.002: 0.002 left, 1.998 to go */
	EXPECT(&f, 667, 1, 0, 0, 667); /* 0.002 + 0.999 = 1.001: 0.001 left */
	fx_reset(&f);
	int admitted = 0;
	for (int64_t t = 0; t <= 1000000; t++)
		admitted += at(&f, t) == 1;
	/* B at the start, then exactly 3000 refilled by 10^6 ns */
	assert_int_equal(admitted, 3002);
	fx_free(&f);
}

static void leaky_bucket_not_dividing(void **u)
{
	(void)u;
	struct fx f;
	/* 3 per 1000 ns, B = 1: service every 333.33 ns */
	fx_init(&f, "leaky_bucket", 3, 1000, 1);
	EXPECT(&f, 0, 1, 1, 0, 334);
	assert_int_equal(last_d.delay_ns, 0);
	EXPECT(&f, 0, 1, 0, 0, 667); /* served at 333.33: waits 334 whole ns */
	assert_int_equal(last_d.delay_ns, 334);
	EXPECT(&f, 0, 0, 0, 334, 667);
	EXPECT(&f, 333, 0, 0, 1, 334);
	EXPECT(&f, 334, 1, 0, 0, 666); /* served at 666.67 (waits 332.67 -> 333), done at 1000 */
	assert_int_equal(last_d.delay_ns, 333);
	fx_free(&f);
}

/* gcra and token_bucket on one request: the same verdict and answers. */
static void same_as_token_bucket(struct fx *g, struct fx *tb, int64_t t, int64_t cost)
{
	struct rl_decision dg, dt;
	int vg = rl_limiter_check_n(&g->lim, g->st, t, cost, &dg);
	int vt = rl_limiter_check_n(&tb->lim, tb->st, t, cost, &dt);

	if (vg != vt || dg.remaining != dt.remaining || dg.retry_after_ns != dt.retry_after_ns ||
	    dg.reset_ns != dt.reset_ns)
		fail_msg("N=%lld W=%lld B=%lld t=%lld cost %lld: gcra %d %lld %lld %lld, token_bucket %d %lld %lld %lld",
			 (long long)g->lim.rule.limit, (long long)g->lim.rule.window_ns, (long long)g->lim.rule.burst,
			 (long long)t, (long long)cost, vg, (long long)dg.remaining, (long long)dg.retry_after_ns,
			 (long long)dg.reset_ns, vt, (long long)dt.remaining, (long long)dt.retry_after_ns,
			 (long long)dt.reset_ns);
}

static void gcra_exact_emission(void **u)
{
	(void)u;
	struct fx g, tb;
	/* 3 per 1000, B = 2: T = 333.33 ns exactly (gcra.h), token_bucket's rate */
	fx_init(&g, "gcra", 3, 1000, 2);
	EXPECT(&g, 0, 1, 1, 0, 334);   /* debt 333.33: reset rounded up */
	EXPECT(&g, 0, 1, 0, 0, 667);   /* debt 666.67 */
	EXPECT(&g, 0, 0, 0, 334, 667); /* debt - 333.33 <= tau at d = 333.33: 334 */
	EXPECT(&g, 334, 1, 0, 0, 666); /* debt 332.67 <= tau 333.33 */
	fx_free(&g);

	/* in the long run gcra admits what token_bucket admits, request by request */
	fx_init(&g, "gcra", 3, 1000, 2);
	fx_init(&tb, "token_bucket", 3, 1000, 2);
	int admitted = 0;
	for (int64_t t = 0; t <= 1000000; t++) {
		admitted += at(&g, t) == 1;
		(void)at(&tb, t);
	}
	assert_int_equal(admitted, 3002); /* 2 at once, then 3 per 1000 ns */
	fx_free(&g);
	fx_free(&tb);

	/* 10^12 per hour (bytes), B = 2: T = 3.6 ns exactly (gcra.h), not ceil 4 ns;
	 * one unit a ns offered over [0, 35999]: the bound 1 + floor((35999 + tau)
	 * / T) = 10001 admitted, where T = 4 would admit 9001 */
	fx_init(&g, "gcra", RL_LIMIT_MAX, 3600000000000LL, 2);
	assert_int_equal(rl_limiter_check_n(&g.lim, g.st, 0, 2, &last_d), RL_ALLOWED);
	assert_int_equal(last_d.reset_ns, 8); /* TAT 7.2 */
	assert_int_equal(rl_limiter_check_n(&g.lim, g.st, 3, 1, &last_d), RL_REJECTED);
	assert_int_equal(last_d.retry_after_ns, 1); /* debt 4.2 - tau 3.6: 0.6 ns short, rounded up */
	fx_free(&g);
	fx_init(&g, "gcra", RL_LIMIT_MAX, 3600000000000LL, 2);
	admitted = 0;
	for (int64_t t = 0; t < 36000; t++)
		admitted += at(&g, t) == 1;
	assert_int_equal(admitted, 10001);
	assert_int_equal(rl_limiter_max_admitted(&g.lim, 35999), 10001);
	fx_free(&g);

	/* T below 1 ns: 10^12 per s (bytes), B = 10^12, T = 1/1000 ns */
	fx_init(&g, "gcra", RL_LIMIT_MAX, 1000000000, RL_BURST_MAX);
	assert_int_equal(rl_limiter_check_n(&g.lim, g.st, 0, RL_COST_MAX, &last_d), RL_ALLOWED);
	assert_int_equal(last_d.reset_ns, 1000000000);
	assert_int_equal(rl_limiter_check_n(&g.lim, g.st, 1, 1001, &last_d), RL_REJECTED);
	assert_int_equal(last_d.retry_after_ns, 1); /* 0.001 ns short, rounded up */
	assert_int_equal(rl_limiter_check_n(&g.lim, g.st, 1, 1000, &last_d), RL_ALLOWED); /* 1000 per ns */
	assert_int_equal(last_d.remaining, 0);
	assert_int_equal(rl_limiter_check_n(&g.lim, g.st, 1, 1, &last_d), RL_REJECTED);
	fx_free(&g);

	/* rules where N does not divide W, small and large: token_bucket's answers */
	static const int64_t rules[][3] = { { 3, 1000, 2 },	  { 7, 10, 5 },
					    { 999999999999LL, 1000000000, 3 }, { RL_LIMIT_MAX, 999999999LL, RL_BURST_MAX },
					    { 1000003, 3600000000000LL, 1000 }, { RL_LIMIT_MAX - 1, RL_WINDOW_MAX_NS, RL_BURST_MAX } };
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
		fx_init(&g, "gcra", rules[r][0], rules[r][1], rules[r][2]);
		fx_init(&tb, "token_bucket", rules[r][0], rules[r][1], rules[r][2]);
		uint64_t s = 0x6c7261 + r;
		int64_t t = 0;
		for (int q = 0; q < 2000; q++) {
			int64_t cost = (t_splitmix(&s) % 3) ? 1 : 1 + (int64_t)(t_splitmix(&s) % (uint64_t)rules[r][2]);
			same_as_token_bucket(&g, &tb, t, cost);
			t += (int64_t)(t_splitmix(&s) % (uint64_t)(rules[r][1] / rules[r][0] * 2 + 3));
		}
		fx_free(&g);
		fx_free(&tb);
	}
}

/* ------------------------------------------------------------------ */
/* retry_after exactness: replay a trace, and at every rejection check   */
/* that a copy is rejected at t + retry - 1 and admitted at t + retry.  */

static void replay(struct fx *f, const int64_t *ts, int n)
{
	fx_reset(f);
	for (int i = 0; i < n; i++)
		assert_true(rl_limiter_check(&f->lim, f->st, ts[i], NULL) >= 0);
}

static void retry_after_is_exact(void **u)
{
	(void)u;
	static const struct {
		int64_t n, w, b;
	} rules[] = { { 1, 1, 1 },    { 3, 1000, 3 }, { 3, 1000, 1 }, { 7, 100, 2 },
		      { 5, 12345, 9 }, { 2, 3, 4 },    { 10, 1000000007, 10 } };
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	int64_t ts[200];
	int checked = 0;

	for (size_t a = 0; a < count; a++) {
		for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
			if (all[a] == &rl_gcra_algo && rules[r].w % rules[r].n)
				continue; /* gcra rounds T up: exactness is for N | W */
			struct fx f;
			fx_init(&f, all[a]->name, rules[r].n, rules[r].w, rules[r].b);
			uint64_t s = 12345 + a * 100 + r;
			int64_t t = 0;
			for (int i = 0; i < 200; i++) {
				s = s * 6364136223846793005ULL + 1442695040888963407ULL;
				uint64_t x = s >> 33;
				if (x % 3 == 0)
					t += (int64_t)(x >> 3) % (2 * rules[r].w / rules[r].n + 2);
				ts[i] = t;
				replay(&f, ts, i);
				struct rl_decision d;
				int v = rl_limiter_check(&f.lim, f.st, t, &d);
				assert_true(v >= 0);
				if (v == RL_ALLOWED) {
					assert_int_equal(d.retry_after_ns, 0);
					continue;
				}
				assert_true(d.retry_after_ns >= 1);
				/* rejected at t + retry - 1, nothing else arriving */
				replay(&f, ts, i);
				v = rl_limiter_check(&f.lim, f.st, t + d.retry_after_ns - 1, NULL);
				if (v != RL_REJECTED)
					fail_msg("%s N=%lld W=%lld: request %d at %lld: retry %lld, "
						 "yet admitted 1 ns earlier", all[a]->name,
						 (long long)rules[r].n, (long long)rules[r].w, i,
						 (long long)t, (long long)d.retry_after_ns);
				replay(&f, ts, i);
				v = rl_limiter_check(&f.lim, f.st, t + d.retry_after_ns, NULL);
				if (v != RL_ALLOWED)
					fail_msg("%s N=%lld W=%lld: request %d at %lld: retry %lld, "
						 "yet rejected then", all[a]->name,
						 (long long)rules[r].n, (long long)rules[r].w, i,
						 (long long)t, (long long)d.retry_after_ns);
				checked++;
			}
			fx_free(&f);
		}
	}
	assert_true(checked > 500); /* the traces do hit the limits */
}

/* ------------------------------------------------------------------ */
/* Time going backwards is clamped to the key's last seen time.        */

static void backwards_time_is_clamped(void **u)
{
	(void)u;
	struct fx f;

	fx_init(&f, "fixed_window", 1, 1000, 1);
	EXPECT(&f, 1000, 1, 0, 0, 1000);
	EXPECT(&f, 999, 0, 0, 1000, 1000); /* as at 1000: not window 0 */
	EXPECT(&f, 2000, 1, 0, 0, 1000);
	fx_free(&f);

	fx_init(&f, "sliding_log", 1, 1000, 1);
	EXPECT(&f, 1000, 1, 0, 0, 1000);
	EXPECT(&f, 500, 0, 0, 1000, 1000);
	EXPECT(&f, 1999, 0, 0, 1, 1);
	EXPECT(&f, 0, 0, 0, 1, 1); /* last seen is 1999 now */
	EXPECT(&f, 2000, 1, 0, 0, 1000);
	fx_free(&f);

	fx_init(&f, "sliding_counter", 1, 1000, 1);
	EXPECT(&f, 1500, 1, 0, 0, SKIP);
	EXPECT(&f, 999, 0, 0, 501, SKIP); /* as at 1500; admitted at 2001 */
	EXPECT(&f, 2001, 1, 0, 0, SKIP);
	fx_free(&f);

	const char *buckets[] = { "token_bucket", "gcra" };
	for (int i = 0; i < 2; i++) {
		fx_init(&f, buckets[i], 1, 1000, 1);
		EXPECT(&f, 5000, 1, 0, 0, 1000);
		EXPECT(&f, 0, 0, 0, 1000, 1000); /* as at 5000, not refilled from 0 */
		EXPECT(&f, 5600, 0, 0, 400, 400);
		EXPECT(&f, 5300, 0, 0, 400, 400); /* a rejected request's time counts too */
		EXPECT(&f, 6000, 1, 0, 0, 1000);
		fx_free(&f);
	}

	fx_init(&f, "leaky_bucket", 1, 1000, 1);
	EXPECT(&f, 5000, 1, 1, 0, 1000);
	EXPECT(&f, 0, 1, 0, 0, 2000); /* as at 5000: waits 1000 */
	assert_int_equal(last_d.delay_ns, 1000);
	EXPECT(&f, 4000, 0, 0, 1000, 2000);
	EXPECT(&f, 6000, 1, 0, 0, 2000); /* served at 7000, done at 8000 */
	assert_int_equal(last_d.delay_ns, 1000);
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* The range extremes.                                                 */

static void extremes_fresh_key(void **u)
{
	(void)u;
	struct fx f;
	/* N = 10^6, W = 10^18, B = 10^9 at the last valid time */
	fx_init(&f, "token_bucket", 1000000, E18, 1000000000);
	EXPECT(&f, TMAX, 1, 999999999, 0, 1000000000000LL); /* one token: W/N = 10^12 ns */
	EXPECT(&f, TMAX, 1, 999999998, 0, 2000000000000LL);
	fx_free(&f);

	/* gcra caps tau at RL_GCRA_HORIZON_NS - T (gcra.h): with T = 10^12,
	 * k * T <= 5223371036854775807 lets 5223372 through at once, at any
	 * time, not B */
	fx_init(&f, "gcra", 1000000, E18, 1000000000);
	EXPECT(&f, TMAX, 1, 5223371, 0, 1000000000000LL);
	EXPECT(&f, TMAX, 1, 5223370, 0, 2000000000000LL);
	fx_reset(&f);
	EXPECT(&f, 0, 1, 5223371, 0, 1000000000000LL);
	fx_free(&f);

	fx_init(&f, "leaky_bucket", 1000000, E18, 1000000000);
	EXPECT(&f, TMAX, 1, 1000000000, 0, 1000000000000LL);
	assert_int_equal(last_d.delay_ns, 0);
	EXPECT(&f, TMAX, 1, 999999999, 0, 2000000000000LL);
	assert_int_equal(last_d.delay_ns, 1000000000000LL);
	fx_free(&f);

	fx_init(&f, "fixed_window", 1000000, E18, 1000000000);
	EXPECT(&f, TMAX, 1, 999999, 0, E18); /* window 4 ends at 5 * 10^18 */
	EXPECT(&f, TMAX - 1, 1, 999998, 0, E18); /* clamped to TMAX */
	fx_reset(&f);
	EXPECT(&f, TMAX - 1, 1, 999999, 0, 1); /* window 3 ends at TMAX */
	fx_free(&f);

	fx_init(&f, "sliding_log", 1000000, E18, 1000000000);
	EXPECT(&f, TMAX, 1, 999999, 0, E18);
	fx_free(&f);

	fx_init(&f, "sliding_counter", 1000000, E18, 1000000000);
	/* curr = 1 weighs W; below W only from 1 ns into the next window */
	EXPECT(&f, TMAX, 1, 999999, 0, E18 + 1);
	fx_free(&f);

	/* N = 1, W = 10^18, B = 10^9 */
	fx_init(&f, "token_bucket", 1, E18, 1000000000);
	EXPECT(&f, 0, 1, 999999999, 0, E18);
	EXPECT(&f, TMAX, 1, 999999999, 0, E18); /* refilled, capped at B */
	fx_free(&f);

	fx_init(&f, "leaky_bucket", 1, E18, 1000000000);
	for (int i = 0; i < 5; i++) {
		EXPECT(&f, TMAX, 1, 1000000000 - i, 0, E18 * (i + 1));
		assert_int_equal(last_d.delay_ns, E18 * i);
	}
	fx_free(&f);

	fx_init(&f, "fixed_window", 1, E18, 1);
	EXPECT(&f, TMAX, 1, 0, 0, E18);
	EXPECT(&f, TMAX, 0, 0, E18, E18);
	fx_free(&f);

	fx_init(&f, "sliding_log", 1, E18, 1);
	EXPECT(&f, TMAX, 1, 0, 0, E18);
	EXPECT(&f, TMAX, 0, 0, E18, E18);
	fx_free(&f);

	fx_init(&f, "sliding_counter", 1, E18, 1);
	EXPECT(&f, TMAX, 1, 0, 0, E18 + 1);
	EXPECT(&f, TMAX, 0, 0, E18 + 1, E18 + 1);
	fx_free(&f);
}

/* Sets an rl_level (level.h) to hold level, in 1/W-request units, at its
 * last seen time. */
static void set_level(const struct fx *f, int64_t last_ns, rl__u128 level)
{
	struct rl_level *l = f->st;

	l->last_ns = last_ns;
	l->level_lo = (uint64_t)level;
	l->level_hi = (uint32_t)(level >> 64);
}

static void extremes_full_buckets(void **u)
{
	(void)u;
	struct fx f;
	const rl__u128 bw = (rl__u128)1000000000 * (rl__u128)E18; /* B * W = 10^27 */

	/* an empty token bucket at the extremes: the next token in W/N,
	 * the whole bucket in 10^27 / N ns, past int64: saturated */
	fx_init(&f, "token_bucket", 1000000, E18, 1000000000);
	set_level(&f, TMAX, bw);
	EXPECT(&f, TMAX, 0, 0, 1000000000000LL, RL_DURATION_MAX_NS);
	fx_free(&f);

	fx_init(&f, "token_bucket", 1, E18, 1000000000);
	set_level(&f, TMAX, bw);
	EXPECT(&f, TMAX, 0, 0, E18, RL_DURATION_MAX_NS);
	set_level(&f, 0, bw); /* idle for 4 * 10^18 ns: 4 tokens back */
	EXPECT(&f, TMAX, 1, 3, 0, RL_DURATION_MAX_NS);
	fx_free(&f);

	/* a leaky bucket with B waiting: the last one admitted waits
	 * B * W / N = 10^21 ns, saturated; the next is rejected */
	fx_init(&f, "leaky_bucket", 1000000, E18, 1000000000);
	set_level(&f, TMAX, bw);
	EXPECT(&f, TMAX, 1, 0, 0, RL_DURATION_MAX_NS);
	assert_int_equal(last_d.delay_ns, RL_DURATION_MAX_NS);
	EXPECT(&f, TMAX, 0, 0, 1000000000000LL, RL_DURATION_MAX_NS);
	fx_free(&f);

	fx_init(&f, "leaky_bucket", 1, E18, 1000000000);
	set_level(&f, TMAX, bw + (rl__u128)E18);
	EXPECT(&f, TMAX, 0, 0, E18, RL_DURATION_MAX_NS);
	fx_free(&f);

	/* the largest B reached by requests, for N = 10^6 at one instant */
	fx_init(&f, "token_bucket", 1000000, E18, 1000000);
	for (int i = 0; i < 1000000; i++)
		assert_int_equal(rl_limiter_check(&f.lim, f.st, TMAX, NULL), RL_ALLOWED);
	EXPECT(&f, TMAX, 0, 0, 1000000000000LL, E18);
	fx_free(&f);
}

static void extremes_full_windows(void **u)
{
	(void)u;
	struct fx f;

	/* a million admissions at one instant, near the top of time */
	fx_init(&f, "fixed_window", 1000000, E18, 1);
	for (int i = 0; i < 1000000; i++)
		assert_int_equal(rl_limiter_check(&f.lim, f.st, TMAX, NULL), RL_ALLOWED);
	EXPECT(&f, TMAX, 0, 0, E18, E18);
	fx_free(&f);

	fx_init(&f, "sliding_log", 1000000, E18, 1);
	for (int i = 0; i < 1000000; i++)
		assert_int_equal(rl_limiter_check(&f.lim, f.st, TMAX, NULL), RL_ALLOWED);
	EXPECT(&f, TMAX, 0, 0, E18, E18);
	assert_true(rl_sliding_log_heap_bytes(f.st) <= 4 * sizeof(struct rl_run));
	fx_free(&f);

	/* sliding_counter: a million at the end of window 2, then window 3's
	 * weighted count is 10^6 * (W - e) < N * W from e = 1 */
	fx_init(&f, "sliding_counter", 1000000, E18, 1);
	for (int i = 0; i < 1000000; i++)
		assert_int_equal(rl_limiter_check(&f.lim, f.st, 3 * E18 - 1, NULL), RL_ALLOWED);
	EXPECT(&f, 3 * E18 - 1, 0, 0, 2, SKIP);
	EXPECT(&f, 3 * E18, 0, 0, 1, SKIP);
	EXPECT(&f, 3 * E18 + 1, 1, 0, 0, SKIP);
	fx_free(&f);
}

/*
 * sliding_counter's verdict-only check on a rule with N * W >= 2^64 (here
 * 2 * 10^19 > 1.8 * 10^19), past its 64-bit arithmetic: window 0 full
 * (one cost of N), then in window 1 the weighted count
 * 20 * (W - e) + curr * W < 20 * W admits exactly 5 at e = W / 4 and 5
 * more at e = W / 2 (a wrapped (N - curr) * W would admit none).
 */
static void sliding_counter_wide_rule(void **u)
{
	(void)u;
	struct fx f;
	int admitted = 0;

	fx_init(&f, "sliding_counter", 20, E18, 1);
	assert_int_equal(rl_limiter_check_n(&f.lim, f.st, 0, 20, NULL), RL_ALLOWED);
	for (int i = 0; i < 30; i++)
		admitted += rl_limiter_check(&f.lim, f.st, E18 + E18 / 4, NULL) == RL_ALLOWED;
	assert_int_equal(admitted, 5);
	for (int i = 0; i < 30; i++)
		admitted += rl_limiter_check(&f.lim, f.st, E18 + E18 / 2, NULL) == RL_ALLOWED;
	assert_int_equal(admitted, 10);
	fx_free(&f);
}

static void gcra_debt_horizon(void **u)
{
	(void)u;
	struct fx g, tb;
	/* N = 1, W = 10^18, B = 10^9: T = 10^18 and tau is capped (gcra.h) at
	 * RL_GCRA_HORIZON_NS - T = 4223372036854775807: five admissions at
	 * once (debts 0..4 * 10^18), where token_bucket admits B. */
	fx_init(&g, "gcra", 1, E18, 1000000000);
	fx_init(&tb, "token_bucket", 1, E18, 1000000000);
	for (int i = 0; i < 5; i++) {
		EXPECT(&g, TMAX, 1, 4 - i, 0, E18 * (i + 1));
		EXPECT(&tb, TMAX, 1, 999999999 - i, 0, E18 * (i + 1));
	}
	EXPECT(&g, TMAX, 0, 0, 776627963145224193LL, 5 * E18);
	EXPECT(&tb, TMAX, 1, 999999994, 0, 6 * E18);
	fx_free(&g);
	fx_free(&tb);

	/* the cap never blocks a key for good: after a burst at 0 the next
	 * admission comes exactly retry_after later, and the long-run rate
	 * is one per T */
	fx_init(&g, "gcra", 1, E18, 1000000000);
	for (int i = 0; i < 5; i++)
		EXPECT(&g, 0, 1, 4 - i, 0, E18 * (i + 1));
	EXPECT(&g, 0, 0, 0, 776627963145224193LL, 5 * E18);
	EXPECT(&g, 776627963145224192LL, 0, 0, 1, SKIP);
	EXPECT(&g, 776627963145224193LL, 1, 0, 0, SKIP);
	EXPECT(&g, 776627963145224193LL + E18 - 1, 0, 0, 1, SKIP);
	EXPECT(&g, 776627963145224193LL + E18, 1, 0, 0, SKIP);
	fx_free(&g);

	/* N = 10^6, T = 10^12: 5223372 in all at one instant, far fewer than
	 * B = 10^9 */
	fx_init(&g, "gcra", 1000000, E18, 1000000000);
	for (int i = 0; i < 100000; i++)
		assert_int_equal(rl_limiter_check(&g.lim, g.st, TMAX, NULL), RL_ALLOWED);
	EXPECT(&g, TMAX, 1, 5223372 - 100001, 0, 100001 * 1000000000000LL);
	fx_free(&g);
}

/* ------------------------------------------------------------------ */
/* Rules, times and the registry.                                      */

static void rule_validation(void **u)
{
	(void)u;
	static const struct {
		int64_t n, w, b;
		const char *field;
	} bad[] = {
		{ 0, 1000, 1, "limit" },
		{ -1, 1000, 1, "limit" },
		{ 1000000000001, 1000, 1, "limit" },
		{ INT64_MIN, 1000, 1, "limit" },
		{ 1, 0, 1, "window" },
		{ 1, -5, 1, "window" },
		{ 1, E18 + 1, 1, "window" },
		{ 1, INT64_MAX, 1, "window" },
		{ 1, 1000, 0, "burst" },
		{ 1, 1000, -1, "burst" },
		{ 1, 1000, 1000000000001, "burst" },
		{ 1, 1000, INT64_MAX, "burst" },
	};
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rl_rule r = { bad[i].n, bad[i].w, bad[i].b };
		char msg[160] = "";
		char value[32];
		int64_t v = strcmp(bad[i].field, "limit") == 0	  ? bad[i].n
			    : strcmp(bad[i].field, "window") == 0 ? bad[i].w
								  : bad[i].b;
		snprintf(value, sizeof(value), "%lld", (long long)v);
		assert_int_equal(rl_rule_validate(&r, msg, sizeof(msg)), RL_EINVAL);
		if (!strstr(msg, bad[i].field) || !strstr(msg, value))
			fail_msg("rule %zu: message '%s' does not name %s %s", i, msg, bad[i].field,
				 value);
		assert_int_equal(rl_rule_validate(&r, NULL, 0), RL_EINVAL);
		for (size_t a = 0; a < count; a++) {
			struct rl_limiter lim;
			msg[0] = '\0';
			assert_int_equal(rl_limiter_init(&lim, all[a], &r, msg, sizeof(msg)), RL_EINVAL);
			assert_non_null(strstr(msg, bad[i].field));
		}
	}

	/* the range ends themselves are valid */
	static const struct rl_rule good[] = { { 1, 1, 1 }, { RL_LIMIT_MAX, E18, RL_BURST_MAX },
					       { 1, E18, RL_BURST_MAX }, { RL_LIMIT_MAX, 1, 1 } };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		for (size_t a = 0; a < count; a++) {
			struct rl_limiter lim;
			assert_int_equal(rl_limiter_init(&lim, all[a], &good[i], NULL, 0), RL_OK);
		}

	/* a tiny message buffer is truncated, never overrun */
	struct rl_rule r = { 0, 1, 1 };
	char tiny[6] = "xxxxx";
	assert_int_equal(rl_rule_validate(&r, tiny, 4), RL_EINVAL);
	assert_int_equal(tiny[3], '\0');
	assert_int_equal(tiny[4], 'x');

	/* no algorithm */
	struct rl_limiter lim;
	char msg[64] = "";
	struct rl_rule ok = rl_rule_make(3, 1000);
	assert_int_equal(ok.burst, 3); /* the default burst is N */
	assert_int_equal(rl_limiter_init(&lim, NULL, &ok, msg, sizeof(msg)), RL_EINVAL);
	assert_true(msg[0] != '\0');
}

static void time_out_of_range(void **u)
{
	(void)u;
	static const int64_t bad[] = { -1, INT64_MIN, TMAX + 1, INT64_MAX };
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);

	for (size_t a = 0; a < count; a++) {
		struct fx f;
		fx_init(&f, all[a]->name, 2, 1000, 2);
		assert_int_equal(at(&f, 500), RL_ALLOWED);
		unsigned char before[64];
		memcpy(before, f.st, all[a]->state_size);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			struct rl_decision d;
			assert_int_equal(rl_limiter_check(&f.lim, f.st, bad[i], &d), RL_ERANGE);
			assert_int_equal(rl_limiter_check(&f.lim, f.st, bad[i], NULL), RL_ERANGE);
			/* the state is unchanged on error */
			assert_memory_equal(before, f.st, all[a]->state_size);
		}
		/* and the ends of the range are fine */
		assert_true(at(&f, TMAX) >= 0);
		fx_reset(&f);
		assert_int_equal(at(&f, 0), RL_ALLOWED);
		fx_free(&f);
	}
}

static void registry_and_sizes(void **u)
{
	(void)u;
	static const struct {
		const char *name;
		size_t size;
		int owns_memory;
	} want[] = {
		{ "token_bucket", sizeof(struct rl_level), 0 },
		{ "gcra", sizeof(struct rl_gcra), 0 },
		{ "leaky_bucket", sizeof(struct rl_level), 0 },
		{ "fixed_window", sizeof(struct rl_fixed_window), 0 },
		{ "sliding_log", sizeof(struct rl_sliding_log), 1 },
		{ "sliding_counter", sizeof(struct rl_sliding_counter), 0 },
	};
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);

	assert_int_equal(count, 6);
	for (size_t i = 0; i < count; i++) {
		assert_string_equal(all[i]->name, want[i].name);
		assert_ptr_equal(rl_algo_find(want[i].name), all[i]);
		assert_int_equal(all[i]->state_size, want[i].size);
		assert_true(all[i]->state_size <= 40); /* fixed and small */
		assert_non_null(all[i]->check);
		assert_non_null(all[i]->is_idle);
		assert_int_equal(all[i]->release != NULL, want[i].owns_memory);
		assert_int_equal(all[i]->heap_bytes != NULL, want[i].owns_memory);
		assert_int_equal(all[i]->reset_ns != NULL, want[i].owns_memory);
		assert_int_equal(all[i]->answers_delay, strcmp(want[i].name, "leaky_bucket") == 0);
	}
	assert_string_equal(rl_algo_names(),
			    "token_bucket, gcra, leaky_bucket, fixed_window, sliding_log, sliding_counter");
	assert_null(rl_algo_find("nope"));
	assert_null(rl_algo_find(""));
	assert_null(rl_algo_find("GCRA"));
	assert_null(rl_algo_find("token_bucket "));

	/* every status of the list: its own message, values 0, -1, -2, ... */
	static const struct {
		int code;
		const char *message;
	} codes[] = {
#define STATUS_ROW(name, value, message, meaning) { RL_##name, message },
		RL_STATUS_LIST(STATUS_ROW)
#undef STATUS_ROW
	};
	assert_int_equal(sizeof(codes) / sizeof(codes[0]), 13); /* the Redis backend's five included */
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_int_equal(codes[i].code, -(int)i);
		assert_string_equal(rl_strerror(codes[i].code), codes[i].message);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(codes[i].message, codes[j].message);
	}
	assert_string_equal(rl_strerror(RL_ENOTFOUND), "not found");
	assert_string_equal(rl_strerror(RL_EREDIS), "redis error");
	assert_string_equal(rl_strerror(-13), "unknown status");
	assert_string_equal(rl_strerror(1), "unknown status");
}

/*
 * rl_limiter_reset_ns, the store's eviction order: leaves the state as it
 * was; for plain states it is the reset of a check on a copy; for
 * sliding_log the wait until its newest admission leaves the window.
 */
static void reset_ns_leaves_state(void **u)
{
	size_t count;
	const struct rl_algo *const *all = rl_algo_all(&count);
	const int64_t sec = 1000000000;

	(void)u;
	for (size_t a = 0; a < count; a++) {
		struct fx f, copy;
		fx_init(&f, all[a]->name, 3, 10 * sec, 3);
		fx_init(&copy, all[a]->name, 3, 10 * sec, 3);
		if (all[a]->reset_ns)
			assert_int_equal(rl_limiter_reset_ns(&f.lim, f.st, 0), 0); /* nothing admitted */
		at(&f, 1 * sec);
		at(&f, 4 * sec);
		unsigned char before[RL_ALGO_MAX_STATE];
		memcpy(before, f.st, all[a]->state_size);
		int64_t r = rl_limiter_reset_ns(&f.lim, f.st, 6 * sec);
		assert_memory_equal(before, f.st, all[a]->state_size);
		if (all[a]->reset_ns) {
			assert_int_equal(r, 4 * sec + 10 * sec - 6 * sec);
		} else {
			struct rl_decision d;
			at(&copy, 1 * sec);
			at(&copy, 4 * sec);
			assert_true(rl_limiter_check(&copy.lim, copy.st, 6 * sec, &d) >= 0);
			assert_int_equal(r, d.reset_ns);
		}
		assert_int_equal(rl_limiter_reset_ns(&f.lim, f.st, -1), RL_ERANGE);
		assert_int_equal(rl_limiter_reset_ns(&f.lim, f.st, RL_TIME_MAX_NS + 1), RL_ERANGE);
		fx_free(&f);
		fx_free(&copy);
	}
}

/* ------------------------------------------------------------------ */
/* sliding_log's memory: grows on demand, shrinks, freed on release.   */

static void sliding_log_memory(void **u)
{
	(void)u;
	struct fx f;
	const size_t run = sizeof(struct rl_run);

	fx_init(&f, "sliding_log", 1000000, 1000000, 1);
	assert_int_equal(rl_sliding_log_heap_bytes(f.st), 0); /* nothing up front */
	for (int i = 0; i < 3; i++)
		assert_int_equal(at(&f, i), RL_ALLOWED);
	assert_true(rl_sliding_log_heap_bytes(f.st) > 0);
	assert_true(rl_sliding_log_heap_bytes(f.st) <= 4 * run);

	/* 1000 distinct times: grows on demand, within 4x of what it needs */
	for (int i = 3; i < 1000; i++)
		assert_int_equal(at(&f, i), RL_ALLOWED);
	size_t grown = rl_sliding_log_heap_bytes(f.st);
	assert_true(grown >= 1000 * run);
	assert_true(grown <= 4 * 1000 * run);

	/* once they leave the window the ring shrinks back */
	assert_int_equal(at(&f, 1000 + 1000000), RL_ALLOWED);
	assert_true(rl_sliding_log_heap_bytes(f.st) <= 4 * run);

	/* the same through the verdict-only path (out == NULL), whose fast
	 * path drops one run itself and hands more to the full check */
	fx_reset(&f);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(rl_limiter_check(&f.lim, f.st, i, NULL), RL_ALLOWED);
	assert_true(rl_sliding_log_heap_bytes(f.st) >= 1000 * run);
	assert_int_equal(rl_limiter_check(&f.lim, f.st, 1000 + 1000000, NULL), RL_ALLOWED);
	assert_int_equal(((struct rl_sliding_log *)f.st)->log.len, 1);
	assert_int_equal(((struct rl_sliding_log *)f.st)->log.total, 1);
	assert_true(rl_sliding_log_heap_bytes(f.st) <= 4 * run);

	/* release frees it; a second release and a reuse are fine */
	rl_limiter_release(&f.lim, f.st);
	assert_int_equal(rl_sliding_log_heap_bytes(f.st), 0);
	rl_limiter_release(&f.lim, f.st);
	memset(f.st, 0, sizeof(struct rl_sliding_log));
	assert_int_equal(at(&f, 5), RL_ALLOWED);
	fx_free(&f);

	/* a million admissions at one instant take one run */
	fx_init(&f, "sliding_log", 1000000, 1000, 1);
	for (int i = 0; i < 1000000; i++)
		assert_int_equal(rl_limiter_check(&f.lim, f.st, 77, NULL), RL_ALLOWED);
	assert_int_equal(((struct rl_sliding_log *)f.st)->log.len, 1);
	assert_int_equal(((struct rl_sliding_log *)f.st)->log.total, 1000000);
	assert_true(rl_sliding_log_heap_bytes(f.st) <= 4 * run);
	EXPECT(&f, 77, 0, 0, 1000, 1000);
	EXPECT(&f, 1077, 1, 999999, 0, 1000); /* all of them left at once */
	fx_free(&f);
	/* (LeakSanitizer, in the sanitizer build, checks nothing is left) */
}

/*
 * token_bucket and leaky_bucket run their check in 64 bits when the
 * deepest level, (B + 1) * W, is below 2^63 (level_ops.h), else in 128.
 * The flag flips exactly there, and the two widths give the same codes,
 * answers and states on seeded random traces: each rule is run both as it
 * is and with the 128-bit path forced.
 */
static void level_widths_agree(void **u)
{
	(void)u;
	static const char *const algos[] = { "token_bucket", "leaky_bucket" };
	/* 10 * W against 2^63 = 9223372036854775808 */
	struct { int64_t w; bool narrow; } edge[] = {
		{ 922337203685477580LL, true },   /* 10 W = 2^63 - 8 */
		{ 922337203685477581LL, false },  /* 10 W = 2^63 + 2 */
	};
	uint64_t seed = t_seed_from_env(0x1e7e1), s = seed;

	for (size_t a = 0; a < 2; a++) {
		for (size_t e = 0; e < 2; e++) {
			struct fx f;

			fx_init(&f, algos[a], 1, edge[e].w, 9);
			if (rl__level_priv(&f.lim)->narrow != edge[e].narrow)
				fail_msg("%s W=%lld B=9: narrow %d, expected %d", algos[a],
					 (long long)edge[e].w, rl__level_priv(&f.lim)->narrow, edge[e].narrow);
			fx_free(&f);
		}
		for (int trace = 0; trace < 400; trace++) {
			int64_t n = 1 + (int64_t)(t_splitmix(&s) % 16);
			int64_t w = t_splitmix(&s) % 2 ? 1 + (int64_t)(t_splitmix(&s) % 1000)
						   : 1 + (int64_t)(t_splitmix(&s) % 1000000000);
			int64_t b = 1 + (int64_t)(t_splitmix(&s) % 12);
			struct fx f, g;

			fx_init(&f, algos[a], n, w, b);
			fx_init(&g, algos[a], n, w, b);
			assert_true(rl__level_priv(&f.lim)->narrow);
			((struct rl__level_priv *)(void *)g.lim.priv.bytes)->narrow = false;
			int64_t t = (int64_t)(t_splitmix(&s) % 1000000);
			for (int i = 0; i < 200; i++) {
				uint64_t r = t_splitmix(&s);
				if (r % 5 == 0)
					t -= (int64_t)(r % 7) * w / n; /* the clock steps back */
				else if (r % 5 != 1)
					t += (int64_t)((r >> 8) % (uint64_t)(3 * w / n + 2));
				if (t < 0)
					t = 0;
				int64_t cost = r % 11 == 0 ? (int64_t)((r >> 16) % (uint64_t)(b + 3)) + 1 : 1;
				struct rl_decision df, dg;
				int vf = rl_limiter_check_n(&f.lim, f.st, t, cost, &df);
				int vg = rl_limiter_check_n(&g.lim, g.st, t, cost, &dg);
				int qf = rl_limiter_check_n(&f.lim, f.st, t, 1, NULL);
				int qg = rl_limiter_check_n(&g.lim, g.st, t, 1, NULL);
				if (vf != vg || qf != qg || memcmp(&df, &dg, sizeof(df)) ||
				    memcmp(f.st, g.st, sizeof(struct rl_level)))
					fail_msg("%s N=%lld W=%lld B=%lld, trace %d step %d (t=%lld cost=%lld): "
						 "64-bit %d/%d, 128-bit %d/%d; RL_SEED=%#llx",
						 algos[a], (long long)n, (long long)w, (long long)b, trace, i,
						 (long long)t, (long long)cost, vf, qf, vg, qg,
						 (unsigned long long)seed);
				int64_t later = t + (int64_t)(r % (uint64_t)(2 * w));
				if (f.lim.algo->is_idle(&f.lim, f.st, later) != g.lim.algo->is_idle(&g.lim, g.st, later) ||
				    rl_limiter_reset_ns(&f.lim, f.st, later) != rl_limiter_reset_ns(&g.lim, g.st, later))
					fail_msg("%s: idle or reset differs at step %d; RL_SEED=%#llx", algos[a], i,
						 (unsigned long long)seed);
			}
			fx_free(&f);
			fx_free(&g);
		}
	}
}

/* Two sliding logs hold the same runs (their rings may differ in address). */
static bool same_log(const struct rl_sliding_log *a, const struct rl_sliding_log *b)
{
	if (a->last_ns != b->last_ns || a->log.len != b->log.len || a->log.total != b->log.total ||
	    a->log.cap != b->log.cap)
		return false;
	for (uint32_t i = 0; i < a->log.len; i++) {
		const struct rl_run *x = &a->log.runs[(a->log.head + i) & (a->log.cap - 1)];
		const struct rl_run *y = &b->log.runs[(b->log.head + i) & (b->log.cap - 1)];
		if (x->at != y->at || x->count != y->count)
			return false;
	}
	return true;
}

/*
 * sliding_log's check_heap (algo.h): on seeded random traces that grow,
 * trim and free the ring (bursts, pauses, weighted and invalid costs,
 * verdicts and answers), it returns what check returns on a twin state,
 * leaves the same runs, and adds to its delta exactly how much heap_bytes
 * changed.
 */
static void sliding_log_check_heap(void **u)
{
	(void)u;
	const struct rl_algo *algo = &rl_sliding_log_algo;
	uint64_t seed = t_seed_from_env(0x5117), s = seed;

	assert_non_null(algo->check_heap);
	for (int trace = 0; trace < 200; trace++) {
		int64_t n = 1 + (int64_t)(t_splitmix(&s) % 40), w = 1 + (int64_t)(t_splitmix(&s) % 100000);
		struct rl_rule rule = { n, w, n };
		struct rl_limiter lim;
		struct rl_sliding_log a = { 0 }, b = { 0 };
		int64_t t = (int64_t)(t_splitmix(&s) % 1000000);

		assert_int_equal(rl_limiter_init(&lim, algo, &rule, NULL, 0), RL_OK);
		for (int i = 0; i < 400; i++) {
			uint64_t r = t_splitmix(&s);
			switch (r % 8) {
			case 0: /* a pause: every run leaves */
				t += 2 * w + (int64_t)((r >> 8) % (uint64_t)w);
				break;
			case 1: /* a burst at one instant */
				break;
			case 2:
				t -= (int64_t)((r >> 8) % 50); /* the clock steps back */
				break;
			default:
				t += 1 + (int64_t)((r >> 8) % (uint64_t)(2 * w / n + 1));
			}
			int64_t cost = r % 13 == 0 ? (int64_t)((r >> 20) % (uint64_t)(n + 3)) : 1;
			int64_t at = r % 97 == 0 ? -1 : t; /* out of range now and then */
			bool answer = (r >> 40) % 3 == 0;
			struct rl_decision da, db;
			int64_t delta = 0;
			size_t before = algo->heap_bytes(&a);
			int ra = algo->check_heap(&lim, &a, at, cost, answer ? &da : NULL, &delta);
			int rb = algo->check(&lim, &b, at, cost, answer ? &db : NULL);
			int64_t grew = (int64_t)algo->heap_bytes(&a) - (int64_t)before;

			if (ra != rb || (answer && ra >= 0 && memcmp(&da, &db, sizeof da)) || !same_log(&a, &b) ||
			    delta != grew)
				fail_msg("N=%lld W=%lld trace %d step %d (t=%lld cost=%lld answer %d): "
					 "check_heap %d, check %d, runs %s, delta %lld for a heap change of %lld; "
					 "RL_SEED=%#llx",
					 (long long)n, (long long)w, trace, i, (long long)at, (long long)cost, answer,
					 ra, rb, same_log(&a, &b) ? "equal" : "differ", (long long)delta,
					 (long long)grew, (unsigned long long)seed);
		}
		rl_limiter_release(&lim, &a);
		rl_limiter_release(&lim, &b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(token_bucket_limit),
		cmocka_unit_test(gcra_limit),
		cmocka_unit_test(leaky_bucket_limit),
		cmocka_unit_test(fixed_window_limit),
		cmocka_unit_test(sliding_log_limit),
		cmocka_unit_test(sliding_counter_limit),
		cmocka_unit_test(refill_exactly_w_over_n),
		cmocka_unit_test(token_bucket_not_dividing),
		cmocka_unit_test(leaky_bucket_not_dividing),
		cmocka_unit_test(gcra_exact_emission),
		cmocka_unit_test(retry_after_is_exact),
		cmocka_unit_test(backwards_time_is_clamped),
		cmocka_unit_test(extremes_fresh_key),
		cmocka_unit_test(extremes_full_buckets),
		cmocka_unit_test(extremes_full_windows),
		cmocka_unit_test(sliding_counter_wide_rule),
		cmocka_unit_test(gcra_debt_horizon),
		cmocka_unit_test(rule_validation),
		cmocka_unit_test(time_out_of_range),
		cmocka_unit_test(registry_and_sizes),
		cmocka_unit_test(reset_ns_leaves_state),
		cmocka_unit_test(sliding_log_memory),
		cmocka_unit_test(level_widths_agree),
		cmocka_unit_test(sliding_log_check_heap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
